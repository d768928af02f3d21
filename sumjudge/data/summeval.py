"""SummEval: 100 CNN/DM documents x 16 systems, expert Likert scores.

Texts and the 3-expert means for all 1600 summaries come from BARTScore's
``SUM/SummEval/data.pkl``; the individual expert scores exist for the 12
abstractive systems only (DAMO-NLP-SG/LLM_summeval) and stay missing for
M0, M1, M2, M5, never invented.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import BUILTIN
from .readers import DataError, iter_jsonl, read_pickle, require

DIMENSIONS = BUILTIN["summeval"].dimensions  # consistency, relevance, fluency, coherence
N_EXPERTS = 3


def _expert_scores(annotation_files: list[Path]) -> dict[tuple[str, str], list[dict]]:
    experts: dict[tuple[str, str], list[dict]] = {}
    for path in annotation_files:
        for lineno, rec in iter_jsonl(path):
            where = f"{path}, line {lineno}"
            require(rec, ["id", "model_id", "expert_annotations"], where)
            ann = rec["expert_annotations"]
            if len(ann) != N_EXPERTS or any(set(a) < set(DIMENSIONS) for a in ann):
                raise DataError(f"{where}: expected {N_EXPERTS} expert annotations with "
                                f"keys {', '.join(DIMENSIONS)}")
            experts[(rec["id"], rec["model_id"])] = ann
    return experts


def prepare(pickle_path: str | Path, annotation_files: list[str | Path]) -> pd.DataFrame:
    data = read_pickle(pickle_path)
    experts = _expert_scores([Path(p) for p in annotation_files])
    rows = []
    for doc_id in sorted(data):
        doc = data[doc_id]
        require(doc, ["src", "ref_summs", "sys_summs"], f"{pickle_path}, document {doc_id}")
        for system in sorted(doc["sys_summs"], key=lambda s: int(s.lstrip("M"))):
            entry = doc["sys_summs"][system]
            row = {
                "unit_id": f"{doc_id}/{system}",
                "doc_id": doc_id,
                "system": system,
                "article": doc["src"],
                "summary": entry["sys_summ"],
                "references": list(doc["ref_summs"]),
            }
            for dim in DIMENSIONS:
                row[dim] = float(entry["scores"][dim])
            ann = experts.get((doc_id, system))
            for k in range(N_EXPERTS):
                for dim in DIMENSIONS:
                    row[f"{dim}_expert{k}"] = float(ann[k][dim]) if ann else np.nan
            rows.append(row)
    df = pd.DataFrame(rows)
    # The per-expert file and the pickle are independent releases: check they agree.
    have = df["consistency_expert0"].notna()
    for dim in DIMENSIONS:
        mean = df.loc[have, [f"{dim}_expert{k}" for k in range(N_EXPERTS)]].mean(axis=1)
        bad = (mean - df.loc[have, dim]).abs() > 1e-6
        if bad.any():
            first = df.loc[have].loc[bad].iloc[0]
            raise DataError(f"SummEval {first.unit_id}: mean of expert {dim} scores "
                            f"{mean[bad].iloc[0]:.3f} differs from the pickle's {first[dim]:.3f}")
    return df
