"""A judge asked ``samples > 1`` times per unit (definitions: docs/statistics.md, "The judge leaderboard").

- :func:`two_stage_bootstrap`: intervals that carry both sources of noise: first the
  clusters (documents) are drawn with replacement, then, within each drawn unit, the
  judge's samples are drawn with replacement; the statistic is the mean over the drawn
  units of the mean over the drawn samples (a unit's NaN samples are left out).
- :func:`sample_variance`: the judge's own sample-to-sample variance: per unit with at
  least two valid samples the variance of its labels (n - 1 in the denominator), averaged
  over those units.
"""
from __future__ import annotations

import numpy as np

from .bootstrap import Interval, percentile_interval


def two_stage_bootstrap(values, clusters, n_resamples: int = 1000, seed: int = 0,
                        confidence: float = 0.95) -> tuple[Interval, np.ndarray]:
    """``values``: ``units x samples`` (e.g. 1/0 correctness per sample; NaN = invalid);
    ``clusters``: each unit's cluster key. Returns the interval and the resampled means."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise ValueError(f"values must be units x samples, got shape {v.shape}")
    codes = np.unique(np.asarray(clusters), return_inverse=True)[1]
    k, (n, r) = codes.max() + 1 if codes.size else 0, v.shape
    members = [np.flatnonzero(codes == c) for c in range(k)]
    rng = np.random.default_rng(seed)
    out = np.full(n_resamples, np.nan)
    for b in range(n_resamples):
        units = np.concatenate([members[c] for c in rng.integers(0, k, k)]) if k else np.array([], int)
        draws = v[units[:, None], rng.integers(0, r, (units.size, r))]
        ok = ~np.isnan(draws)
        cnt = ok.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            unit_means = np.where(cnt > 0, np.where(ok, draws, 0).sum(axis=1) / np.maximum(cnt, 1), np.nan)
        if np.isfinite(unit_means).any():
            out[b] = np.nanmean(unit_means)
    return percentile_interval(out, confidence), out


def sample_variance(values) -> tuple[float, int]:
    """(mean per-unit variance over samples, units that entered) of a ``units x samples`` array."""
    v = np.asarray(values, dtype=float)
    ok = (~np.isnan(v)).sum(axis=1) >= 2
    if not ok.any():
        return float("nan"), 0
    return float(np.nanmean(np.nanvar(v[ok], axis=1, ddof=1))), int(ok.sum())
