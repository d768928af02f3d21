"""SummEval: 100 CNN/DM documents x 16 systems, expert Likert scores.

Three sources, each for what only it has (docs/data.md):

- BARTScore's ``SUM/SummEval/data.pkl``: texts, the 11 references and the 3-expert
  means of all 1600 summaries;
- nitaytech/AltTest's ``human_annotations.json``: each expert's score for all 1600
  summaries (the 4 extractive systems M0, M1, M2, M5 included);
- DAMO-NLP-SG/LLM_summeval's ``M*_outputs_annotations.jsonl`` (12 abstractive
  systems): the 5 crowd (turker) scores, and a second copy of the expert scores.

The sources are independent releases, so :func:`prepare` checks them against each
other wherever they overlap (expert scores AltTest = DAMO, expert means = pickle)
and stops naming the file, document, system and dimension of the first mismatch.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import BUILTIN
from .readers import DataError, iter_jsonl, read_json, read_pickle, require

DIMENSIONS = BUILTIN["summeval"].dimensions  # consistency, relevance, fluency, coherence
N_EXPERTS = 3
N_TURKERS = 5
TOLERANCE = 1e-6


def _damo_scores(annotation_files: list[Path]) -> dict[tuple[str, str], tuple[list[dict], list[dict], str]]:
    """(doc, system) -> (expert annotations, turker annotations, where) from the DAMO files."""
    out: dict[tuple[str, str], tuple[list[dict], list[dict], str]] = {}
    for path in annotation_files:
        for lineno, rec in iter_jsonl(path):
            where = f"{path}, line {lineno}"
            require(rec, ["id", "model_id", "expert_annotations", "turker_annotations"], where)
            for key, n in (("expert_annotations", N_EXPERTS), ("turker_annotations", N_TURKERS)):
                ann = rec[key]
                if len(ann) != n or any(not set(DIMENSIONS) <= set(a) for a in ann):
                    raise DataError(f"{where}: expected {n} {key} with keys {', '.join(DIMENSIONS)}")
            out[(rec["id"], rec["model_id"])] = (rec["expert_annotations"], rec["turker_annotations"], where)
    return out


def _alttest_scores(path: Path) -> dict[tuple[str, str, str], list[float]]:
    """(doc, system, dimension) -> the 3 experts' scores from AltTest's ``{"e0": {...}, ...}``."""
    data = read_json(path)
    keys = [f"e{k}" for k in range(N_EXPERTS)]
    if not isinstance(data, dict) or set(data) != set(keys):
        raise DataError(f"{path}: expected one object per expert with keys {', '.join(keys)}, "
                        f"found {sorted(data) if isinstance(data, dict) else type(data).__name__}")
    out: dict[tuple[str, str, str], list[float]] = {}
    for k, expert in enumerate(keys):
        for key, value in data[expert].items():
            parts = key.split("__")
            if len(parts) != 3:
                raise DataError(f"{path}: {expert} key {key!r} is not '<doc_id>__<system>__<dimension>'")
            out.setdefault(tuple(parts), [np.nan] * N_EXPERTS)[k] = float(value)
    return out


def prepare(pickle_path: str | Path, annotation_files: list[str | Path],
            experts_path: str | Path) -> pd.DataFrame:
    data = read_pickle(pickle_path)
    damo = _damo_scores([Path(p) for p in annotation_files])
    experts = _alttest_scores(Path(experts_path))
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
            crowd = damo.get((doc_id, system))
            for dim in DIMENSIONS:
                mean = float(entry["scores"][dim])
                row[dim] = mean
                scores = experts.get((doc_id, system, dim))
                if scores is None or any(np.isnan(scores)):
                    raise DataError(f"{experts_path}: no score of every expert for document {doc_id}, system "
                                    f"{system}, {dim} (found {scores}); the file is incomplete, fetch it again")
                if abs(np.mean(scores) - mean) > TOLERANCE:
                    raise DataError(f"{experts_path} and {pickle_path} disagree on document {doc_id}, system "
                                    f"{system}, {dim}: the experts' scores {scores} average "
                                    f"{np.mean(scores):.3f}, the pickle says {mean:.3f}; the files do not "
                                    "belong together")
                if crowd is not None:
                    damo_experts = [float(a[dim]) for a in crowd[0]]
                    if damo_experts != scores:
                        raise DataError(f"{experts_path} and {crowd[2]} disagree on the expert scores of "
                                        f"document {doc_id}, system {system}, {dim}: {scores} vs "
                                        f"{damo_experts}; the files do not belong together")
                for k in range(N_EXPERTS):
                    row[f"{dim}_expert{k}"] = scores[k]
                for k in range(N_TURKERS):
                    row[f"{dim}_turker{k}"] = float(crowd[1][k][dim]) if crowd else np.nan
            rows.append(row)
    return pd.DataFrame(rows)
