"""HELM news pairs (Zhang et al. 2023, "Benchmarking Large Language Models for News
Summarization"): a freelance writer's summary against text-davinci-002's, with ties.

One row per unit (article, writer): 112 units over 76 articles, judged by up to 6
named evaluators (87 units by all 6) on two questions, ``overall`` and
``informative``. Each label is 0 (summary 0 better), 1 (summary 1 better) or
:data:`TIE` (2, the file's ``"Equally Good"``), relative to the unit's order:

- order: which summary is shown first is fixed per unit by its id
  (:func:`writer_first`: the parity of a sha256), so that about half the units show
  the writer first; ``policy_0``/``policy_1`` say who wrote which (``writer`` or
  ``text-davinci-002``), ``writer_position`` where the writer's summary is;
- per evaluator: ``overall_<name>``, ``informative_<name>`` (NaN where that evaluator
  did not judge the unit; ``<name>``: the first 8 characters of the evaluator's id, the
  registry's ``annotators``, named persons), ``n_evaluators``;
- ``overall``, ``informative``: the evaluators' plurality label (NaN where two labels
  tie for the most votes).

Every count the dataset's PROVENANCE.md states is checked before the table is
returned (:data:`EXPECTED`).
"""
from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import BUILTIN
from .readers import DataError, check_counts, read_json

TIE = 2
QUESTIONS = {"overall": "overall_writer_better", "informative": "informative_writer_better"}
FIELDS = ["article_id", "writer_id", "evaluator_id", "article_text", "writer_summary",
          "text-davinci-002_summary", *QUESTIONS.values()]
MODEL = "text-davinci-002"
TIE_ANSWER = "Equally Good"
NAME_LENGTH = 8  # an evaluator's name: the first characters of its id (DatasetSpec.annotators)
# PROVENANCE.md, "Verified counts"
EXPECTED = {
    "rows": 599, "articles": 76, "writers": 6, "rows_per_writer": [160, 129, 99, 84, 67, 60],
    "writers_per_article": {1: 44, 2: 28, 3: 4}, "units": 112, "units_by_n_evaluators": {1: 12, 5: 13, 6: 87},
    "evaluators": 6, "pairs_per_evaluator": [100, 100, 100, 100, 100, 99],
    "labels_overall": {"false": 239, "tie": 117, "true": 243},
    "labels_informative": {"false": 250, "tie": 132, "true": 217},
    "opposite_answers": 0, "own_summaries_judged": 0, "model_summaries": 76,
}


def writer_first(unit_id: str) -> bool:
    """Whether the writer's summary is summary 0 (the even sha256 of the unit id)."""
    return int(hashlib.sha256(unit_id.encode()).hexdigest(), 16) % 2 == 0


def _label(value, where: str, key: str) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value == TIE_ANSWER:
        return "tie"
    raise DataError(f"{where}: {key} is {value!r}; expected true, false or {TIE_ANSWER!r}")


def _position_label(label: str, writer_pos: int) -> int:
    """``true`` (writer better) -> the writer's position; ``false`` -> the other; tie -> TIE."""
    if label == "tie":
        return TIE
    return writer_pos if label == "true" else 1 - writer_pos


def plurality(values) -> float:
    """The most frequent label (NaN when none, or when two labels tie for the most)."""
    got = [v for v in values if not (isinstance(v, float) and np.isnan(v))]
    if not got:
        return np.nan
    top = Counter(got).most_common()
    return np.nan if len(top) > 1 and top[0][1] == top[1][1] else float(top[0][0])


def counts(rows: pd.DataFrame) -> dict:
    """The PROVENANCE.md counts of the file's rows (one per judgment)."""
    units = rows.groupby(["article_id", "writer_id"])
    per_article = rows.groupby("article_id")["writer_id"].nunique()
    return {
        "rows": len(rows), "articles": rows["article_id"].nunique(), "writers": rows["writer_id"].nunique(),
        "rows_per_writer": sorted(Counter(rows["writer_id"]).values(), reverse=True),
        "writers_per_article": dict(sorted(Counter(per_article).items())),
        "units": units.ngroups,
        "units_by_n_evaluators": dict(sorted(Counter(units["evaluator_id"].nunique()).items())),
        "evaluators": rows["evaluator_id"].nunique(),
        "pairs_per_evaluator": sorted(Counter(rows["evaluator_id"]).values(), reverse=True),
        **{f"labels_{q}": dict(sorted(Counter(rows[q]).items())) for q in QUESTIONS},
        "opposite_answers": int(((rows["overall"] == "true") & (rows["informative"] == "false")
                                 | (rows["overall"] == "false") & (rows["informative"] == "true")).sum()),
        "own_summaries_judged": int((rows["evaluator_id"] == rows["writer_id"]).sum()),
        "model_summaries": rows["model_summary"].nunique(),
    }


def _one_text(rows: pd.DataFrame, key, column: str, what: str, path) -> None:
    n = rows.groupby(key)[column].nunique()
    if (n > 1).any():
        raise DataError(f"{path}: {what} {n[n > 1].index[0]} has {int(n.max())} different {column} values; "
                        "one expected")


def prepare(results_path: str | Path, verify_counts: bool = True) -> pd.DataFrame:
    """The units of ``pairwise_evaluation_results.json`` (``verify_counts``: against PROVENANCE.md)."""
    data = read_json(results_path)
    if not isinstance(data, list):
        raise DataError(f"{results_path}: expected one JSON array of judgments, found {type(data).__name__}")
    recs = []
    for i, rec in enumerate(data):
        where = f"{results_path}, judgment {i}"
        if not isinstance(rec, dict):
            raise DataError(f"{where}: expected a JSON object")
        missing = [k for k in FIELDS if k not in rec]
        if missing:
            raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
        recs.append({"article_id": rec["article_id"], "writer_id": rec["writer_id"],
                     "evaluator_id": rec["evaluator_id"], "article": rec["article_text"],
                     "writer_summary": rec["writer_summary"], "model_summary": rec["text-davinci-002_summary"],
                     **{q: _label(rec[key], where, key) for q, key in QUESTIONS.items()}})
    if not recs:
        raise DataError(f"{results_path}: no judgments in the file")
    rows = pd.DataFrame(recs)
    _one_text(rows, "article_id", "article", "article", results_path)
    _one_text(rows, "article_id", "model_summary", "article", results_path)
    _one_text(rows, ["article_id", "writer_id"], "writer_summary", "unit", results_path)
    dup = rows.duplicated(["article_id", "writer_id", "evaluator_id"])
    if dup.any():
        r = rows[dup].iloc[0]
        raise DataError(f"{results_path}: evaluator {r['evaluator_id']} judges unit {r['article_id']}/"
                        f"{r['writer_id']} twice; one judgment per evaluator and unit expected")
    names = BUILTIN["helm_news"].annotators.names  # each evaluator's id, by its first 8 characters
    ids = sorted(set(rows["evaluator_id"]))
    unknown = [e for e in ids if e[:NAME_LENGTH] not in names]
    if unknown:
        raise DataError(f"{results_path}: evaluator(s) {', '.join(unknown)} are not among the dataset's declared "
                        f"annotators ({', '.join(names)}; sumjudge/datasets.py, helm_news)")
    if len({e[:NAME_LENGTH] for e in ids}) != len(ids):
        raise DataError(f"{results_path}: two evaluator ids share their first {NAME_LENGTH} characters; "
                        "the annotators' names would not tell them apart")
    name_of = {e: e[:NAME_LENGTH] for e in ids}
    if verify_counts:
        check_counts(results_path, counts(rows), EXPECTED, "helm_news/PROVENANCE.md")
    units = []
    for (article_id, writer_id), g in rows.groupby(["article_id", "writer_id"], sort=True):
        unit_id = f"{article_id}/{writer_id}"
        first = g.iloc[0]
        wpos = 0 if writer_first(unit_id) else 1
        texts = {wpos: first["writer_summary"], 1 - wpos: first["model_summary"]}
        unit = {"unit_id": unit_id, "doc_id": article_id, "writer_id": writer_id, "article": first["article"],
                "summary_0": texts[0], "summary_1": texts[1],
                "policy_0": "writer" if wpos == 0 else MODEL, "policy_1": "writer" if wpos == 1 else MODEL,
                "writer_position": wpos}
        for q in QUESTIONS:
            labels = dict.fromkeys(names, np.nan)
            for e, lab in zip(g["evaluator_id"], g[q]):
                labels[name_of[e]] = float(_position_label(lab, wpos))
            unit[q] = plurality(list(labels.values()))
            unit.update({f"{q}_{n}": v for n, v in labels.items()})
        unit["n_evaluators"] = len(g)
        units.append(unit)
    df = pd.DataFrame(units)
    cols = ["unit_id", "doc_id", "writer_id", "article", "summary_0", "summary_1", "policy_0", "policy_1",
            "writer_position", *QUESTIONS, *[f"{q}_{n}" for q in QUESTIONS for n in names],
            "n_evaluators"]
    return df[cols]
