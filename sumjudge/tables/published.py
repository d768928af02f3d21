"""The paper's printed numbers (a copy of shared/paper/published.csv) beside ours."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..evidence.errors import TablesInputError

PUBLISHED_CSV = Path(__file__).with_name("published.csv")
KEY = ["table", "dataset", "dimension", "level", "row"]
COLUMNS = KEY + ["value"]


def read_table_csv(path: str | Path, **kw) -> pd.DataFrame:
    """Read a table CSV: only empty cells are missing (the level "n/a" is a value)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""], **kw)


def load_published(path: str | Path = PUBLISHED_CSV) -> pd.DataFrame:
    df = read_table_csv(path, dtype={"value": float})
    missing = set(COLUMNS) - set(df.columns)
    if missing:
        raise TablesInputError(f"{path}: missing columns {sorted(missing)}; restore it from git "
                               f"(git checkout -- {path}) or add the columns")
    return df


def _paper_key(df: pd.DataFrame) -> pd.Series:
    """The published row a reproduced row answers: ``paper_row`` where given, else ``row``."""
    if "paper_row" in df:
        return df["paper_row"].where(df["paper_row"].notna(), df["row"])
    return df["row"]


def attach_published(df: pd.DataFrame, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Add ``published`` and ``diff`` (ours minus published) where the paper printed a value.

    A row is matched on ``paper_row`` when the table has that column (judge rows
    answer the paper's "ChatGPT" row, a metric with a stand-in model its plain
    name), else on ``row``."""
    published = load_published() if published is None else published
    pub = published[COLUMNS].rename(columns={"value": "published", "row": "_paper"})
    out = df.drop(columns=[c for c in ("published", "diff") if c in df]).assign(_paper=_paper_key(df))
    out = out.merge(pub, on=KEY[:-1] + ["_paper"], how="left").drop(columns="_paper")
    out["diff"] = out["value"] - out["published"]
    return out


def published_vs_reproduced(tables: list[pd.DataFrame], published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every published cell beside every reproduced row that answers it.

    A cell no table reproduces is kept with an empty ``reproduced_row``; a cell
    answered by several rows (several judges) appears once per row. ``model_note``
    and ``caveat`` come with the reproduced row (where its table has them), so a
    stand-in metric or another judge than the paper's ChatGPT says so beside the
    published number."""
    published = load_published() if published is None else published
    ours = pd.concat([t for t in tables if len(t)], ignore_index=True) if tables else pd.DataFrame()
    keep = ["row", "value", "ci_low", "ci_high", "p_value", "kind", "model", "model_note", "caveat", "n_clusters"]
    if ours.empty:
        ours = pd.DataFrame(columns=KEY + keep + ["paper_row"])
    for c in keep:
        if c not in ours:
            ours[c] = np.nan
    ours = ours.assign(_paper=_paper_key(ours))[KEY[:-1] + ["_paper"] + keep]
    ours = ours.rename(columns={"row": "reproduced_row", "_paper": "row"})
    out = published[COLUMNS].rename(columns={"value": "published"}).merge(ours, on=KEY, how="left")
    out["diff"] = out["value"] - out["published"]
    # an interval from one resampling cluster (one document) has zero width: it covers nothing
    out["ci_covers_published"] = np.where(
        out["ci_low"].notna() & out["ci_high"].notna() & (pd.to_numeric(out["n_clusters"], errors="coerce") != 1),
        (out["ci_low"] <= out["published"]) & (out["published"] <= out["ci_high"]), np.nan)
    cols = KEY + ["published", "reproduced_row", "value", "diff", "ci_low", "ci_high", "ci_covers_published",
                  "p_value", "kind", "model", "model_note", "caveat", "n_clusters"]
    return out[cols]
