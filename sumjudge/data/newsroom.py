"""Newsroom human evaluation: 60 articles x 7 systems, 3 crowd ratings each.

Texts and means come from BARTScore's ``SUM/Newsroom/data.pkl``; the three
individual ratings from JUDGE-BENCH's ``newsroom.json``, whose 420 instances are
ordered by numeric article id, then system name (see PROVENANCE.md). Raters are
anonymous, so ``*_r{k}`` is the k-th rating slot, not a fixed person.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..datasets import BUILTIN
from .readers import DataError, read_json, read_pickle, require

DIMENSIONS = BUILTIN["newsroom"].dimensions  # coherence, fluency, informativeness, relevance
N_RATINGS = 3


def prepare(pickle_path: str | Path, judgebench_path: str | Path) -> pd.DataFrame:
    data = read_pickle(pickle_path)
    instances = read_json(judgebench_path).get("instances")
    order = [(doc, system) for doc in sorted(data, key=int) for system in sorted(data[doc]["sys_summs"])]
    if not isinstance(instances, list) or len(instances) != len(order):
        raise DataError(f"{judgebench_path}: expected {len(order)} instances, found "
                        f"{len(instances) if isinstance(instances, list) else 'none'}")
    rows = []
    for k, ((doc_id, system), inst) in enumerate(zip(order, instances), start=1):
        where = f"{judgebench_path}, instance {k}"
        require(inst, ["annotations"], where)
        entry = data[doc_id]["sys_summs"][system]
        row = {
            "unit_id": f"{doc_id}/{system}",
            "doc_id": doc_id,
            "system": system,
            "article": data[doc_id]["src"],
            "summary": entry["sys_summ"],
            "reference": data[doc_id]["ref_summ"],
        }
        for dim in DIMENSIONS:
            ratings = inst["annotations"].get(dim.capitalize(), {}).get("individual_human_scores")
            if not ratings or len(ratings) != N_RATINGS:
                raise DataError(f"{where}: expected {N_RATINGS} {dim} ratings, found {ratings!r}")
            mean = float(entry["scores"][dim])
            if abs(sum(ratings) / N_RATINGS - mean) > 1e-6:
                raise DataError(f"{where}: ratings {ratings} do not average to the pickle's "
                                f"{dim} score {mean:.3f} for {doc_id}/{system}; the files do "
                                "not belong together")
            row[dim] = mean
            for j, r in enumerate(ratings):
                row[f"{dim}_r{j}"] = float(r)
        rows.append(row)
    return pd.DataFrame(rows)
