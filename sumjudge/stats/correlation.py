"""Correlation at the three levels the paper names (definitions: docs/statistics.md).

- sample:  per document, correlate metric and human scores over that document's
           system summaries; average the per-document correlations.
- system:  average each system's scores over documents; correlate the system means.
- dataset: one correlation over all summaries.

A correlation is undefined when either side is constant (or fewer than 2 pairs).
At sample level such a document either counts as 0 (``undefined="zero"``, the
default: it reproduces the paper's ROUGE rows) or is left out (``"skip"``).
Rows where the metric or the human score is missing are dropped first. Every
result says how many groups entered and how many were undefined.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st

from .matrix import MEAN_DECIMALS

LEVELS = ("sample", "system", "dataset")
METHODS = ("spearman", "kendall")
UNDEFINED = ("zero", "skip")  # a document whose sample-level correlation is undefined: counts as 0 | left out


@dataclass(frozen=True)
class CorrelationResult:
    level: str
    value: float        # nan when no group had a defined correlation
    n_groups: int       # documents (sample), systems (system) or summaries (dataset)
    n_undefined: int    # groups whose correlation was undefined
    n_pairs: int        # (metric, human) pairs that entered

    def as_dict(self) -> dict:
        return asdict(self)


def _is_constant(a: np.ndarray) -> bool:
    return a.size < 2 or bool(np.all(a == a[0]))


def correlate(x, y, method: str = "spearman") -> float:
    """Spearman's rho or Kendall's tau-b; nan when either input is constant."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"x and y differ in length: {x.size} vs {y.size}")
    if _is_constant(x) or _is_constant(y):
        return float("nan")
    if method == "spearman":
        return float(_st.spearmanr(x, y).statistic)
    if method == "kendall":
        return float(_st.kendalltau(x, y, variant="b").statistic)
    raise ValueError(f"unknown correlation method {method!r}; use one of {METHODS}")


def sample_level(df: pd.DataFrame, metric: str, human: str, doc: str = "doc_id",
                 method: str = "spearman", undefined: str = "zero") -> CorrelationResult:
    if undefined not in UNDEFINED:
        raise ValueError(f"undefined must be one of {UNDEFINED}, not {undefined!r}")
    data = df[[doc, metric, human]].dropna()
    values, n_undef = [], 0
    for _, g in data.groupby(doc, sort=True):
        c = correlate(g[metric], g[human], method)
        if np.isnan(c):
            n_undef += 1
            if undefined == "skip":
                continue
            c = 0.0
        values.append(c)
    value = float(np.mean(values)) if values else float("nan")
    return CorrelationResult("sample", value, data[doc].nunique(), n_undef, len(data))


def system_level(df: pd.DataFrame, metric: str, human: str, system: str = "system",
                 method: str = "spearman") -> CorrelationResult:
    data = df[[system, metric, human]].dropna()
    means = data.groupby(system, sort=True)[[metric, human]].mean().round(MEAN_DECIMALS)   # ties stay ties
    c = correlate(means[metric], means[human], method)
    return CorrelationResult("system", c, len(means), int(np.isnan(c)), len(data))


def dataset_level(df: pd.DataFrame, metric: str, human: str,
                  method: str = "spearman") -> CorrelationResult:
    data = df[[metric, human]].dropna()
    c = correlate(data[metric], data[human], method)
    return CorrelationResult("dataset", c, len(data), int(np.isnan(c)), len(data))


def correlation_levels(df: pd.DataFrame, metric: str, human: str, *, doc: str = "doc_id",
                       system: str = "system", method: str = "spearman",
                       undefined: str = "zero") -> dict[str, CorrelationResult]:
    """All three levels for one (metric, human) column pair of a tidy table."""
    return {
        "sample": sample_level(df, metric, human, doc, method, undefined),
        "system": system_level(df, metric, human, system, method),
        "dataset": dataset_level(df, metric, human, method),
    }
