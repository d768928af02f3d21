"""The paper's printed numbers (a copy of shared/paper/published.csv) beside ours."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

PUBLISHED_CSV = Path(__file__).with_name("published.csv")
KEY = ["table", "dataset", "dimension", "level", "row"]
COLUMNS = KEY + ["value"]


def load_published(path: str | Path = PUBLISHED_CSV) -> pd.DataFrame:
    df = pd.read_csv(path, dtype={"value": float})
    missing = set(COLUMNS) - set(df.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    return df


def attach_published(df: pd.DataFrame, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Add ``published`` and ``diff`` (ours minus published) where the paper printed a value."""
    published = load_published() if published is None else published
    pub = published[COLUMNS].rename(columns={"value": "published"})
    out = df.merge(pub, on=KEY, how="left")
    out["diff"] = out["value"] - out["published"]
    return out
