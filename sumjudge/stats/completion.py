"""Scoring a judge's invalid answers so that abstaining never pays (definitions:
docs/statistics.md, "One estimand per cell").

- :func:`worst_answers`: per unit, the end of the scale farthest from the human
  reference. At the sample and dataset levels this is the worst answer a unit can get
  (measured: of 180 judges abstaining on their 4.9 % hardest SummEval summaries, none
  gained there).
- :func:`system_completion`: at the system level one summary's answer only moves its
  system's mean, and whether a lower or a higher mean hurts depends on where the other
  systems are. So each system's invalid units take, together, the answer in [lo, hi]
  that puts the system's mean at the rank position lowering the system-level
  correlation most, system after system, until no system's position lowers it further
  (a descent from the worst answers).
"""
from __future__ import annotations

import numpy as np

from .matrix import corr_last, tie_safe


def worst_answers(reference, lo: float, hi: float) -> np.ndarray:
    ref = np.asarray(reference, dtype=float)
    return np.where(np.isnan(ref), np.nan, np.where(ref >= (lo + hi) / 2, lo, hi))


def _candidates(lo_mean: float, hi_mean: float, others: np.ndarray) -> np.ndarray:
    """Every rank position a mean in [lo_mean, hi_mean] can take among ``others``: the ends,
    the other means inside (a tie) and the midpoints between consecutive ones."""
    inside = np.unique(others[(others > lo_mean) & (others < hi_mean)])
    points = np.concatenate([[lo_mean], inside, [hi_mean]])
    return np.unique(np.concatenate([points, (points[1:] + points[:-1]) / 2]))


def _descend(m: np.ndarray, mh: np.ndarray, ranges: dict[int, tuple[float, float]], method: str,
             max_passes: int) -> np.ndarray:
    """System means ``m`` moved, one system of ``ranges`` (its reachable interval) at a time,
    to the rank position with the lowest correlation with ``mh``, until none moves."""
    m = m.copy()
    current = float(corr_last(m, mh, method)[0])
    for _ in range(max_passes):
        moved = False
        for s, (low, high) in ranges.items():
            cand = _candidates(low, high, np.delete(m, s))
            trial = np.repeat(m[None], cand.size, axis=0)
            trial[:, s] = cand
            r = corr_last(trial, np.broadcast_to(mh, trial.shape), method)[0]
            if np.isfinite(r).any() and np.nanmin(r) < current - 1e-12:
                best = int(np.nanargmin(r))
                m[s], current, moved = cand[best], float(r[best]), True
        if not moved:
            return m
    return m


def system_completion(judge: np.ndarray, invalid: np.ndarray, human: np.ndarray, lo: float, hi: float,
                      method: str = "spearman", max_passes: int = 20) -> np.ndarray:
    """``judge`` (D x S) with its ``invalid`` cells (already holding a start, e.g. the worst
    answers) set so that the system-level correlation with ``human`` is at a local minimum
    over each system's invalid answers (module docstring). Cells without a human score do
    not count and are left as they are."""
    counted = ~np.isnan(human)
    inv = invalid & counted
    cols = np.flatnonzero(counted.any(axis=0))
    if not inv.any():
        return judge
    c, i = counted[:, cols], inv[:, cols]
    base = np.where(c & ~i, judge[:, cols], 0.0).sum(axis=0)
    n, k = (c & ~i).sum(axis=0), i.sum(axis=0)
    mh = tie_safe(np.where(c, human[:, cols], 0.0).sum(axis=0) / c.sum(axis=0))
    m = tie_safe((base + np.where(i, judge[:, cols], 0.0).sum(axis=0)) / (n + k))
    ranges = {s: ((base[s] + k[s] * lo) / (n[s] + k[s]), (base[s] + k[s] * hi) / (n[s] + k[s]))
              for s in np.flatnonzero(k > 0)}
    m = _descend(m, mh, ranges, method, max_passes)
    out = judge.copy()
    fill = np.clip((m * (n + k) - base) / np.maximum(k, 1), lo, hi)
    sub = out[:, cols]
    out[:, cols] = np.where(i, fill[None, :], sub)
    return out
