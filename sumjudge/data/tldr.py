"""TL;DR pairwise comparisons (Stiennon et al. 2020), one row per human comparison.

Default subset (config key ``tldr``): batch18, both validation splits, comparisons
in which neither summary is the human reference. batch18 is the only batch
available that contains the human TL;DR (policy ``ref``), which the
reference-based metrics of Table 3 need; a pair that contains the reference
itself would score it against itself, so those pairs are dropped.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pandas as pd

from .readers import DataError, iter_jsonl, require

REFERENCE_POLICY = "ref"


def iter_comparisons(batch_files: list[str | Path], info_keys: list[str]) -> Iterator[tuple[str, int, dict]]:
    """``(where, line, record)`` of every comparison in OpenAI's batch format (the TL;DR
    batches and the CNN/DM batch, :mod:`sumjudge.data.cnndm_comparisons`): two summaries,
    a choice of 0 or 1, and ``info`` with ``info_keys``; a line that is not raises naming it."""
    for path in batch_files:
        for lineno, rec in iter_jsonl(path):
            where = f"{path}, line {lineno}"
            require(rec, ["info", "summaries", "choice", "worker", "split"], where)
            if len(rec["summaries"]) != 2 or rec["choice"] not in (0, 1):
                raise DataError(f"{where}: expected 2 summaries and choice 0 or 1")
            require(rec["info"], info_keys, where + " (info)")
            yield where, lineno, rec


def comparison_fields(rec: dict) -> dict:
    """The columns every comparison row has: both summaries (stripped) and policies, the
    choice, the worker and the split."""
    summaries = rec["summaries"]
    return {"summary_0": summaries[0]["text"].strip(), "summary_1": summaries[1]["text"].strip(),
            "policy_0": summaries[0]["policy"], "policy_1": summaries[1]["policy"],
            "choice": int(rec["choice"]), "worker": rec["worker"], "split": rec["split"]}


def prepare(batch_files: list[str | Path], splits: list[str] | None = None,
            drop_reference_pairs: bool = True, require_reference: bool = True) -> pd.DataFrame:
    rows, references = [], {}
    for path in batch_files:
        for _, lineno, rec in iter_comparisons([path], ["id", "post", "title", "subreddit"]):
            info = rec["info"]
            for s in rec["summaries"]:
                if s.get("policy") == REFERENCE_POLICY:
                    references[info["id"]] = s["text"].strip()
            rows.append({
                "post_id": info["id"], "title": info["title"], "subreddit": info["subreddit"],
                "post": info["post"], **comparison_fields(rec),
                "batch": rec.get("batch", Path(path).stem), "line": lineno,
            })
    df = pd.DataFrame(rows)
    df["reference"] = df["post_id"].map(references)
    if splits:
        df = df[df["split"].isin(splits)]
    if drop_reference_pairs:
        df = drop_pairs_with(df, REFERENCE_POLICY)
    if require_reference:
        df = df[df["reference"].notna()]
    df = df.reset_index(drop=True)
    df.insert(0, "unit_id", df["batch"] + "/" + df["line"].astype(str))
    return df.drop(columns="line")


def drop_pairs_with(df: pd.DataFrame, policy: str) -> pd.DataFrame:
    """The comparisons in which neither summary is by ``policy`` (the reference: a pair that
    contains it would score it against itself)."""
    return df[(df["policy_0"] != policy) & (df["policy_1"] != policy)]
