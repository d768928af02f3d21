"""A judge asked ``samples > 1`` times per unit (definitions: docs/statistics.md, "Repeats:
one aggregation per unit").

- :func:`aggregate_samples`: one answer per unit from a judge's samples (Likert: the mean
  of the valid samples; labels: the majority label, a tie going to the tied label that
  came first in sample order). The leaderboard feeds this one answer per unit to the
  value, the interval, the paired tests, leave-one-out and the alt-test; the within-unit
  noise is already in each unit's answer, so the interval resamples documents only.
- :func:`sample_variance`: the judge's own sample-to-sample variance: per unit with at
  least two valid samples the variance of its labels (n - 1 in the denominator),
  averaged over those units.
"""
from __future__ import annotations

import numpy as np

AGGREGATIONS = ("mean", "mode")


def aggregate_samples(m, kind: str = "mean") -> np.ndarray:
    """One answer per unit from ``m`` (units x samples, NaN = invalid sample); NaN where
    no sample is valid. ``mean``: the mean of the valid samples (Likert scores);
    ``mode``: the most frequent valid label, a tie going to the tied label seen first
    in sample order (sample 0 first), so one sample gives that sample."""
    if kind not in AGGREGATIONS:
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, not {kind!r}")
    v = np.asarray(m, dtype=float)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2:
        raise ValueError(f"samples must be units x samples, got shape {v.shape}")
    ok = ~np.isnan(v)
    cnt = ok.sum(axis=1)
    if kind == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(cnt > 0, np.where(ok, v, 0.0).sum(axis=1) / np.maximum(cnt, 1), np.nan)
    # votes[i, r] = how many valid samples of unit i equal sample r's label
    votes = np.where(ok, (v[:, :, None] == v[:, None, :]).sum(axis=2), -1)
    first = votes.argmax(axis=1)          # argmax keeps the first of equal counts: sample order
    out = v[np.arange(v.shape[0]), first]
    return np.where(cnt > 0, out, np.nan)


def sample_variance(values) -> tuple[float, int]:
    """(mean per-unit variance over samples, units that entered) of a ``units x samples`` array."""
    v = np.asarray(values, dtype=float)
    ok = (~np.isnan(v)).sum(axis=1) >= 2
    if not ok.any():
        return float("nan"), 0
    return float(np.nanmean(np.nanvar(v[ok], axis=1, ddof=1))), int(ok.sum())
