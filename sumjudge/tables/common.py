"""Shared pieces of the numeric tables: the row model, column order, repeats."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..datasets import BUILTIN

# how the tables name a dataset (the registry's label; a user's dataset: its name)
DATASET_LABELS = {n: s.label for n, s in BUILTIN.items()}

# the long form of published.csv first, then what this project adds
COLUMNS = ["table", "dataset", "dimension", "level", "row", "value", "published", "diff",
           "boot_mean", "ci_low", "ci_high", "p_value", "p_adjusted", "compared_with", "delta",
           "n_groups", "n_undefined", "n", "n_missing",
           "n_repeats", "repeat_sd", "repeat_min", "repeat_max",
           "kind", "paper_row", "source", "model", "subset"]

KINDS = ("metric", "judge", "annotator")


@dataclass
class Row:
    """One row of a table and the per-unit numbers behind it.

    ``data`` holds one frame per repeat (a metric or annotator has one), indexed
    by ``unit_id``: Likert tables a column per dimension, accuracy tables the
    prediction in column ``pred`` (NaN / None = no valid prediction)."""

    name: str
    kind: str                     # metric | judge | annotator
    paper_row: str | None         # the paper's printed name (key of the published values)
    source: str                   # where the numbers come from (file, column)
    data: list[pd.DataFrame]
    model: str | None = None
    judge: str | None = None
    variant: str | None = None
    subset: str = "all"
    units: pd.Index | None = field(default=None, repr=False)  # restrict to these units (None: all)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"row kind must be one of {KINDS}, not {self.kind!r}")
        if not self.data:
            raise ValueError(f"row {self.name!r} has no data")


def repeat_summary(values: list[float]) -> dict[str, float]:
    """Mean and spread of one cell over a judge's repeats (sd with ddof=1)."""
    v = np.asarray(values, dtype=float)
    ok = v[~np.isnan(v)]
    return {
        "value": float(ok.mean()) if ok.size else float("nan"),
        "n_repeats": int(v.size),
        "repeat_sd": float(ok.std(ddof=1)) if ok.size > 1 else float("nan"),
        "repeat_min": float(ok.min()) if ok.size else float("nan"),
        "repeat_max": float(ok.max()) if ok.size else float("nan"),
    }


def mean_over_repeats(stacks: list[np.ndarray]) -> np.ndarray:
    """Element-wise mean of repeated arrays ignoring NaN (NaN where all are NaN)."""
    arr = np.stack([np.asarray(s, dtype=float) for s in stacks])
    ok = ~np.isnan(arr)
    n = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(ok, arr, 0.0).sum(axis=0) / np.maximum(n, 1), np.nan)


def strongest(cells: pd.DataFrame, among: tuple[str, ...] = ("metric",)) -> pd.Series:
    """For every (dataset, dimension, level): the row name with the highest value
    among rows of kind ``among`` (first in row order on ties); absent if none."""
    cand = cells[cells["kind"].isin(among) & cells["value"].notna()]
    if cand.empty:
        return pd.Series(dtype=object)
    keys = ["dataset", "dimension", "level"]
    idx = cand.groupby(keys, sort=False)["value"].idxmax()
    return cand.loc[idx.to_numpy()].set_index(keys)["row"]


def finalize(df: pd.DataFrame) -> pd.DataFrame:
    """Columns in the documented order (missing ones empty)."""
    for c in COLUMNS:
        if c not in df:
            df[c] = np.nan
    extra = [c for c in df.columns if c not in COLUMNS]
    return df[COLUMNS + extra].reset_index(drop=True)


def bootstrap_clusters(scheme: str, n_docs: int, n_systems: int) -> int:
    """``n_clusters`` of a correlation cell: how many units its bootstrap draws from, under
    ``tables.bootstrap`` (docs/tables.md): the documents (``documents``), the systems
    (``systems``), or documents x systems (``both``: its interval is degenerate only when
    both are 1)."""
    return {"documents": n_docs, "systems": n_systems}.get(scheme, n_docs * n_systems)


# what one resampling cluster is, by the ``bootstrap`` column (correlations: the scheme;
# accuracies: "clusters (<cluster column>)")
CLUSTER_WORDS = {"documents": "document", "both": "document", "systems": "system",
                 "clusters (doc_id)": "document", "clusters (post_id)": "post"}


def one_cluster(cell) -> str | None:
    """``n/a (1 document)`` (or ``1 system``, ``1 post``) where the cell's interval was
    bootstrapped from a single cluster, so every resample is the same value and the
    interval has zero width; None otherwise (docs/tables.md, "No degenerate statistic")."""
    n = pd.to_numeric(pd.Series([cell.get("n_clusters")]), errors="coerce").iloc[0]
    if n != 1:
        return None
    scheme = str(cell.get("bootstrap", ""))
    word = CLUSTER_WORDS.get(scheme) or (scheme[len("clusters ("):-1] if scheme.startswith("clusters (")
                                         else "cluster")
    return f"n/a (1 {word})"
