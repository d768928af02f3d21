"""TL;DR pairwise comparisons (Stiennon et al. 2020), one row per human comparison.

Default subset (config key ``tldr``): batch18, both validation splits, comparisons
in which neither summary is the human reference. batch18 is the only batch
available that contains the human TL;DR (policy ``ref``), which the
reference-based metrics of Table 3 need; a pair that contains the reference
itself would score it against itself, so those pairs are dropped.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .readers import DataError, iter_jsonl, require

REFERENCE_POLICY = "ref"


def prepare(batch_files: list[str | Path], splits: list[str] | None = None,
            drop_reference_pairs: bool = True, require_reference: bool = True) -> pd.DataFrame:
    rows, references = [], {}
    for path in batch_files:
        for lineno, rec in iter_jsonl(path):
            where = f"{path}, line {lineno}"
            require(rec, ["info", "summaries", "choice", "worker", "split"], where)
            summaries = rec["summaries"]
            if len(summaries) != 2 or rec["choice"] not in (0, 1):
                raise DataError(f"{where}: expected 2 summaries and choice 0 or 1")
            info = rec["info"]
            require(info, ["id", "post", "title", "subreddit"], where + " (info)")
            for s in summaries:
                if s.get("policy") == REFERENCE_POLICY:
                    references[info["id"]] = s["text"].strip()
            rows.append({
                "post_id": info["id"], "title": info["title"], "subreddit": info["subreddit"],
                "post": info["post"],
                "summary_0": summaries[0]["text"].strip(), "summary_1": summaries[1]["text"].strip(),
                "policy_0": summaries[0]["policy"], "policy_1": summaries[1]["policy"],
                "choice": int(rec["choice"]), "worker": rec["worker"], "split": rec["split"],
                "batch": rec.get("batch", Path(path).stem), "line": lineno,
            })
    df = pd.DataFrame(rows)
    df["reference"] = df["post_id"].map(references)
    if splits:
        df = df[df["split"].isin(splits)]
    if drop_reference_pairs:
        df = df[(df["policy_0"] != REFERENCE_POLICY) & (df["policy_1"] != REFERENCE_POLICY)]
    if require_reference:
        df = df[df["reference"].notna()]
    df = df.reset_index(drop=True)
    df.insert(0, "unit_id", df["batch"] + "/" + df["line"].astype(str))
    return df.drop(columns="line")
