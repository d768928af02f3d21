"""A judge asked ``samples > 1`` times per unit (definitions: docs/statistics.md, "The judge leaderboard"
and "Repeats: one aggregation per unit").

- :func:`aggregate_samples`: one answer per unit from a judge's samples (Likert: the
  mean of the valid samples; labels: the majority label, a tie going to the tied label
  that came first in sample order). The caller feeds this one answer per unit to the
  value, the interval, the paired tests, leave-one-out, the gates and the alt-test.
- :func:`cluster_interval` / :func:`correlation_interval`: the plain interval of the
  aggregated answers, resampling clusters (documents) only. The within-unit noise is
  already in each unit's aggregate, so it is not drawn a second time; a single-sample
  judge gets exactly the interval of a judge without repeats.

Kept for the old leaderboard (``sumjudge/tables/leaderboard.py``) until it goes:

- :func:`two_stage_bootstrap`: intervals that carry both sources of noise: first the
  clusters (documents) are drawn with replacement, then, within each drawn unit, the
  judge's samples are drawn with replacement; the statistic is the mean over the drawn
  units of the mean over the drawn samples (a unit's NaN samples are left out).
- :func:`two_stage_correlation`: the same two stages for a correlation cell: documents
  (rows of the D x S matrices) drawn with replacement, then, for every drawn cell, one of
  the judge's samples drawn at random; the sample, system and dataset levels of each
  resampled pair of matrices (:func:`sumjudge.stats.matrix.levels_stack`).
- :func:`sample_variance`: the judge's own sample-to-sample variance: per unit with at
  least two valid samples the variance of its labels (n - 1 in the denominator), averaged
  over those units.
"""
from __future__ import annotations

import numpy as np

from .bootstrap import BootBoth, ClusterBootstrap, Interval, boot_both_levels, cluster_codes, percentile_interval
from .matrix import LEVELS, levels_stack

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


def cluster_interval(values, clusters, n_resamples: int = 1000, seed: int = 0,
                     confidence: float = 0.95) -> Interval:
    """Percentile interval of the mean of per-unit ``values`` (one aggregated value per
    unit, NaN = not counted), resampling whole clusters with replacement: the plain
    accuracy interval of the tables (:class:`sumjudge.stats.bootstrap.ClusterBootstrap`,
    same seed, same draws)."""
    values = np.asarray(values, dtype=float)
    codes, k = cluster_codes(clusters)
    if values.shape != codes.shape:
        raise ValueError(f"{values.size} values but {codes.size} cluster keys")
    if k == 0:
        return percentile_interval([np.nan], confidence)
    plan = ClusterBootstrap.draw(k, n_resamples, seed)
    return percentile_interval(plan.mean(values, codes), confidence)


def correlation_interval(judge, human, n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
                         method: str = "spearman", undefined: str = "zero",
                         scheme: str = "documents") -> dict[str, Interval]:
    """One interval per level of the correlation between the judge's aggregated scores
    and ``human`` (D x S). ``judge``: ``samples x D x S`` (aggregated here by the mean)
    or ``D x S`` (already one answer per cell). Resamples documents (``tables.bootstrap``
    scheme) as the tables do; never the samples."""
    j, h = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    if j.ndim == 3:
        j = aggregate_samples(j.reshape(j.shape[0], -1).T, "mean").reshape(j.shape[1:])
    if j.shape != h.shape or j.ndim != 2:
        raise ValueError(f"judge must be samples x D x S or D x S with D x S = {h.shape}, got {np.shape(judge)}")
    plan = BootBoth.draw(h.shape[0], h.shape[1], n_resamples, seed, scheme)
    boot = boot_both_levels(j, h, plan, method, undefined)
    return {lv: percentile_interval(boot[lv], confidence) for lv in LEVELS}


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


def two_stage_correlation(judge, human, n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
                          method: str = "spearman", undefined: str = "zero") -> dict[str, Interval]:
    """``judge``: ``samples x D x S`` (NaN = invalid or absent), ``human``: ``D x S``.
    Returns one interval per level (``sample``, ``system``, ``dataset``)."""
    j, h = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    if j.ndim != 3 or j.shape[1:] != h.shape:
        raise ValueError(f"judge must be samples x D x S with D x S = {h.shape}, got {j.shape}")
    r, d, s = j.shape
    rng = np.random.default_rng(seed)
    out = {lv: np.full(n_resamples, np.nan) for lv in ("sample", "system", "dataset")}
    step = 100
    for start in range(0, n_resamples, step):
        b = min(step, n_resamples - start)
        rows = rng.integers(0, d, (b, d))                       # stage 1: documents
        pick = rng.integers(0, r, (b, d, s))                    # stage 2: a sample per drawn cell
        xs = j[pick, rows[:, :, None], np.arange(s)[None, None, :]]
        ys = h[rows]
        lv = levels_stack(xs, ys, method, undefined)
        for k in out:
            out[k][start:start + b] = lv[k]
    return {k: percentile_interval(v, confidence) for k, v in out.items()}


def sample_variance(values) -> tuple[float, int]:
    """(mean per-unit variance over samples, units that entered) of a ``units x samples`` array."""
    v = np.asarray(values, dtype=float)
    ok = (~np.isnan(v)).sum(axis=1) >= 2
    if not ok.any():
        return float("nan"), 0
    return float(np.nanmean(np.nanvar(v[ok], axis=1, ddof=1))), int(ok.sum())
