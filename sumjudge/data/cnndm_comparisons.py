"""CNN/DM human comparisons (Stiennon et al. 2020, transfer to news): one row per summary pair.

OpenAI's ``cnndm0.json`` has the TL;DR batches' line format (one comparison per line,
read by :func:`sumjudge.data.tldr.iter_comparisons`), with a news article in ``info``.
Of its 437 comparisons, 168 pairs were labelled by both of its two workers and 101 by
one, so a unit here is the *pair* (article, two summaries; 269 of them), with one
choice column per worker (``choice_<worker id>``, NaN where that worker did not label
the pair; the ids: the registry's ``annotators``, workers) and:

- ``choice``: the workers' majority (the single label, or the two equal labels; NaN
  where the two disagree), ``n_labels`` (1 or 2);
- ``reference``: the article's CNN/DM highlights (the summary of policy ``ref``).

Every count the dataset's PROVENANCE.md states is checked on the whole file before
anything is filtered (:data:`EXPECTED`). ``drop_reference_pairs`` (config
``cnndm_comparisons``, default true as TL;DR's) then leaves out the pairs in which one
summary is the reference itself, which the reference-based metrics would score
against itself (docs/data.md).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import BUILTIN
from .readers import DataError, check_counts
from .tldr import REFERENCE_POLICY, comparison_fields, drop_pairs_with, iter_comparisons

INFO_KEYS = ["id", "site", "title", "article"]
# PROVENANCE.md, "Verified counts"
EXPECTED = {
    "comparisons": 437, "articles": 45, "summaries": 180, "pairs": 269, "pairs_by_both_workers": 168,
    "pairs_both_agree": 132, "single_labelled_pairs": 101,
    "policies": ["pretrain_6b_t.7", "ref", "sup4_6b_ppo_rm4_6b_kl14", "sup4_6b_t0.7"],
    "rows_per_worker": {"M3icahkfAtC9CJrtKgQ7qvyZ5SD8wC": 171, "gMlGeJl1vsMERrbmC7W717zpVevUh8": 266},
    "articles_per_worker": {"M3icahkfAtC9CJrtKgQ7qvyZ5SD8wC": 30, "gMlGeJl1vsMERrbmC7W717zpVevUh8": 45},
    "choices": {0: 201, 1: 236}, "splits": ["valid2"], "sites": {"cnn": 12, "dailymail": 425},
    "confidence_disagrees_with_choice": 0,
}


def _confidence(rec: dict) -> float:
    value = (rec.get("extra") or {}).get("confidence")
    return float(value) if value is not None else np.nan


def counts(comparisons: pd.DataFrame, pairs: pd.DataFrame) -> dict:
    """The PROVENANCE.md counts of one file: ``comparisons`` one row per line,
    ``pairs`` the prepared pairs (before any filter)."""
    labelled = pairs["n_labels"]
    both = pairs[labelled == 2]
    w0, w1 = (c for c in pairs.columns if c.startswith("choice_"))
    conf = comparisons["confidence"]
    disagree = ((conf <= 4) & (comparisons["choice"] != 0)) | ((conf >= 6) & (comparisons["choice"] != 1))
    return {
        "comparisons": len(comparisons), "articles": comparisons["doc_id"].nunique(),
        "summaries": len(set(zip(comparisons["doc_id"], comparisons["summary_0"]))
                         | set(zip(comparisons["doc_id"], comparisons["summary_1"]))),
        "pairs": len(pairs), "pairs_by_both_workers": len(both),
        "pairs_both_agree": int((both[w0] == both[w1]).sum()),
        "single_labelled_pairs": int((labelled == 1).sum()),
        "policies": sorted(set(comparisons["policy_0"]) | set(comparisons["policy_1"])),
        "rows_per_worker": dict(sorted(Counter(comparisons["worker"]).items())),
        "articles_per_worker": {w: g["doc_id"].nunique() for w, g in sorted(comparisons.groupby("worker"))},
        "choices": dict(sorted(Counter(comparisons["choice"]).items())),
        "splits": sorted(comparisons["split"].unique()),
        "sites": dict(sorted(Counter(comparisons["site"]).items())),
        "confidence_disagrees_with_choice": int(disagree.sum()),
    }


def _pairs(comparisons: pd.DataFrame, workers: list[str], path) -> pd.DataFrame:
    """One row per (article, summary pair), its first comparison's order; a later comparison
    that shows the pair the other way round has its choice flipped to that order."""
    out: dict[tuple, dict] = {}
    for rec in comparisons.to_dict("records"):
        key = (rec["doc_id"], frozenset((rec["policy_0"], rec["policy_1"])))
        if rec["policy_0"] == rec["policy_1"]:
            raise DataError(f"{rec['where']}: both summaries are by policy {rec['policy_0']!r}; "
                            "a comparison needs two different summaries")
        pair = out.get(key)
        if pair is None:
            pair = out[key] = {
                "unit_id": f"{rec['doc_id']}/{rec['policy_0']}-vs-{rec['policy_1']}",
                "doc_id": rec["doc_id"], "site": rec["site"], "title": rec["title"], "article": rec["article"],
                "summary_0": rec["summary_0"], "summary_1": rec["summary_1"],
                "policy_0": rec["policy_0"], "policy_1": rec["policy_1"],
                **{f"choice_{w}": np.nan for w in workers},
                **{f"confidence_{w}": np.nan for w in workers},
                "split": rec["split"], "batch": rec["batch"], "lines": []}
        flipped = rec["policy_0"] != pair["policy_0"]
        choice = 1 - rec["choice"] if flipped else rec["choice"]
        conf = 10 - rec["confidence"] if flipped else rec["confidence"]
        w = rec["worker"]
        if not np.isnan(pair[f"choice_{w}"]):
            raise DataError(f"{path}: worker {w} labels the pair {pair['unit_id']} twice "
                            f"(lines {pair['lines'][0]} and {rec['line']}); the file is not the pinned one")
        pair[f"choice_{w}"] = float(choice)
        pair[f"confidence_{w}"] = conf
        pair["lines"].append(rec["line"])
    df = pd.DataFrame(list(out.values()))
    votes = df[[f"choice_{w}" for w in workers]]
    df["n_labels"] = votes.notna().sum(axis=1)
    agree = votes.nunique(axis=1) == 1
    df.insert(df.columns.get_loc(f"choice_{workers[0]}"), "choice", votes.max(axis=1).where(agree))
    df["lines"] = df["lines"].map(lambda ls: ";".join(map(str, ls)))
    return df


def prepare(batch_path: str | Path, drop_reference_pairs: bool = True, verify_counts: bool = True) -> pd.DataFrame:
    """The pairs of ``batch_path`` (``verify_counts``: against PROVENANCE.md, on the whole file)."""
    rows, references = [], {}
    for where, lineno, rec in iter_comparisons([batch_path], INFO_KEYS):
        info = rec["info"]
        for s in rec["summaries"]:
            if s.get("policy") == REFERENCE_POLICY:
                references[info["id"]] = s["text"].strip()
        rows.append({"doc_id": info["id"], "site": info["site"], "title": info["title"],
                     "article": info["article"], **comparison_fields(rec), "confidence": _confidence(rec),
                     "batch": rec.get("batch", Path(batch_path).stem), "line": lineno, "where": where})
    if not rows:
        raise DataError(f"{batch_path}: no comparisons in the file")
    comparisons = pd.DataFrame(rows)
    for doc, texts in comparisons.groupby("doc_id")["article"]:
        if texts.nunique() != 1:
            raise DataError(f"{batch_path}: article {doc} has {texts.nunique()} different texts; "
                            "one text per article id expected")
    declared = BUILTIN["cnndm_comparisons"].annotators.names  # the workers' ids
    unknown = sorted(set(comparisons["worker"]) - set(declared))
    if unknown:
        raise DataError(f"{batch_path}: worker(s) {', '.join(unknown)} are not among the dataset's declared "
                        f"annotators ({', '.join(declared)}; sumjudge/datasets.py)")
    pairs = _pairs(comparisons, list(declared), batch_path)
    if verify_counts:
        check_counts(batch_path, counts(comparisons, pairs), EXPECTED, "cnndm_comparisons/PROVENANCE.md")
    pairs.insert(pairs.columns.get_loc("choice"), "reference", pairs["doc_id"].map(references))
    if drop_reference_pairs:
        pairs = drop_pairs_with(pairs, REFERENCE_POLICY)
    return pairs.reset_index(drop=True)
