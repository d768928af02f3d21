"""The pooled interval of the savings stage (``savings.interval: pooled``; docs/statistics.md,
"How many human labels a judge replaces", "The interval").

On skewed Likert data (most summaries at the top of the scale, a few documents far below) a
draw of labelled documents that misses the low ones has a mean too high and a variance near 0,
and a t interval built from those labels alone cannot cover. This interval borrows what the
labels of one draw show about the *other* columns of the same pool (the systems of a measure,
labelled on the same documents; separately, their differences) and uses the values' known bounds:

- **classical** (humans alone): a Wilson-type interval for a bounded mean. The variance of a
  column's values is modelled as ``phi B(mu)`` with ``B(mu) = (high - mu)(mu - low)`` the
  Bhatia-Davis bound at the mean ``mu``, and the interval is every ``mu`` with
  ``(mean - mu)^2 <= q^2 fpc phi B(mu) / n`` (closed form, :func:`wilson`). The dispersion ``phi``
  is the column's own, ``s^2 / B(mean)``, shrunk toward the pool's ``sum s^2 / sum B(mean)``: the
  pool weighs ``prior`` documents, the column ``e - 1``, ``e`` being its labelled documents whose
  value differs from their most common value (:func:`departures`); a column whose labels are all
  equal takes the pool's dispersion, so its interval never has zero width unless the whole pool's
  labels are constant (then ``phi = 1``, the bound itself);
- a **difference** between two systems gets a symmetric interval, its variance ``phi S`` with
  ``S = (sqrt(B_a) + sqrt(B_b))^2`` from the two systems' bounds (:func:`_difference_scale`),
  ``phi`` shrunk toward the pool of the measure's differences in the same way;
- **PPI++**: ppi_py's estimate, and the classical interval's two arms scaled by the square root of
  PPI++'s variance ratio (its residual variance over the classical one, as the t intervals
  estimate them), shrunk on the log scale toward the pool's mean ratio, ``e`` counting the
  labelled documents whose (human, judge) pair differs from the most common pair. A ratio of 1 or
  more (or a lambda of 0) falls back to the classical interval and estimate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CHUNK_CELLS = 4_000_000   # draws x labelled documents x columns sorted at once


@dataclass(frozen=True)
class Pools:
    """Per column: the pool it borrows from, and the bounds of its values (NaN: unbounded)."""

    group: np.ndarray          # ints: columns with the same group pool their dispersions
    low: np.ndarray
    high: np.ndarray
    prior: float = 3.0         # documents the pooled values weigh (savings.prior_documents)
    pair: np.ndarray | None = None   # K x 2: a difference's two columns (-1, -1: not a difference)

    @classmethod
    def single(cls, k: int, low: float = np.nan, high: float = np.nan, prior: float = 3.0) -> "Pools":
        """``k`` columns in one pool with the same bounds."""
        return cls(np.zeros(k, int), np.full(k, float(low)), np.full(k, float(high)), prior)

    @property
    def differences(self) -> np.ndarray:
        return np.zeros(len(self.group), bool) if self.pair is None else self.pair[:, 0] >= 0


def departures(labelled: np.ndarray, valid: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per draw and column: the labelled valid documents whose value is not the most common one
    among them (``values`` complex: a pair of values counts as one)."""
    labelled = np.asarray(labelled, bool)
    width = int(labelled.sum(1).max()) if len(labelled) else 0
    idx = np.argsort(~labelled, axis=1, kind="stable")[:, :width]        # each draw's labelled documents first
    inside = np.take_along_axis(labelled, idx, axis=1)
    step = max(1, _CHUNK_CELLS // max(1, width * values.shape[1]))
    return np.concatenate([_departures(idx[i:i + step], inside[i:i + step], valid, values)
                           for i in range(0, len(idx), step)])


def _departures(idx, inside, valid, values) -> np.ndarray:
    ok = inside[:, :, None] & valid[idx]
    v = np.sort(np.where(ok, values[idx], np.nan), axis=1)             # NaN (not labelled) sorts last
    same = v[:, 1:] == v[:, :-1]
    count = np.cumsum(same, axis=1)
    run = count - np.maximum.accumulate(np.where(same, 0, count), axis=1)   # equal neighbours ending here
    longest = run.max(axis=1) + 1 if run.shape[1] else np.ones(ok.shape[::2], int)
    return ok.sum(1) - np.where(ok.any(1), longest, 0)


def spread(mean, low, high) -> np.ndarray:
    """The Bhatia-Davis bound ``(high - mean)(mean - low)`` on the variance of values in
    ``[low, high]`` with that mean (0 outside); 1 where a column is unbounded."""
    with np.errstate(invalid="ignore"):
        bound = np.maximum((high - mean) * (mean - low), 0.0)
    return np.where(np.isnan(low) | np.isnan(high), 1.0, bound)


def wilson(center, c, low, high) -> tuple[np.ndarray, np.ndarray]:
    """Every ``mu`` with ``(center - mu)^2 <= c B(mu)`` (:func:`spread`): the roots
    ``(center + c (low + high)/2 +- sqrt(c B(center) + c^2 (high - low)^2 / 4)) / (1 + c)``;
    ``center +- sqrt(c)`` for an unbounded column."""
    bounded = ~(np.isnan(low) | np.isnan(high))
    lo, hi = np.where(bounded, low, 0.0), np.where(bounded, high, 0.0)
    with np.errstate(invalid="ignore"):
        mid = center + c * (lo + hi) / 2
        disc = np.sqrt(np.maximum(c * (hi - center) * (center - lo) + c * c * (hi - lo) ** 2 / 4, 0.0))
        root = np.sqrt(c)
    return (np.where(bounded, (mid - disc) / (1 + c), center - root),
            np.where(bounded, (mid + disc) / (1 + c), center + root))


def _pool(num, den, ok, group) -> np.ndarray:
    """Per draw: each group's sum of ``num`` over its sum of ``den`` (columns where ``ok``), on its columns."""
    onehot = np.eye(int(group.max()) + 1)[group]
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((np.where(ok, num, 0.0) @ onehot) / (np.where(ok, den, 0.0) @ onehot))[:, group]


def _shrink(own, pooled, departed, prior: float, log: bool = False) -> np.ndarray:
    """``(prior pooled + w own) / (prior + w)``, ``w = departed - 1`` (at least 0); with ``log``
    the same of their logarithms (a weighted geometric mean)."""
    w = np.maximum(departed - 1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        if log:
            out = np.exp((prior * np.log(pooled) + w * np.log(np.maximum(np.nan_to_num(own), 1e-12))) / (prior + w))
        else:
            out = (prior * pooled + w * np.nan_to_num(own)) / (prior + w)
    return np.where(prior + w > 0, out, pooled)


def _dispersion(s2, scale, departed, group, prior) -> np.ndarray:
    """``s2 / scale`` shrunk toward its pool's ``sum s2 / sum scale`` (1 where no column of the pool
    shows any spread)."""
    pooled = _pool(s2, scale, np.isfinite(s2) & np.isfinite(scale), group)
    pooled = np.where(np.isfinite(pooled) & (pooled > 0), pooled, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        own = np.where(scale > 0, s2 / scale, pooled)
    return _shrink(own, pooled, departed, prior)


def _difference_scale(lower, upper, pools: Pools) -> np.ndarray:
    """Per difference ``a - b``: ``(sqrt(B_a) + sqrt(B_b))^2``, the largest variance of ``a - b``
    that the two systems' Bhatia-Davis bounds allow, each bound taken at the point of the system's
    interval nearest the middle of its scale (the largest bound that interval admits)."""
    widest = spread(np.clip((pools.low + pools.high) / 2, lower, upper), pools.low, pools.high)
    a, b = pools.pair[pools.differences].T
    return (np.sqrt(widest[:, a]) + np.sqrt(widest[:, b])) ** 2


def classical(mean, s2, n, fpc, q, departed, pools: Pools) -> tuple[np.ndarray, np.ndarray]:
    """The humans-only interval (see the module's docstring) of every draw (rows) and column:
    ``s2`` the labelled values' variance (ddof 1), ``n`` their number, ``q`` the quantile,
    ``departed`` :func:`departures` of the human values. A difference's interval is symmetric:
    its variance ``phi S`` with ``S`` from :func:`_difference_scale`."""
    q, fpc = np.broadcast_to(q, mean.shape), np.broadcast_to(fpc, mean.shape)
    lower, upper = np.full(mean.shape, np.nan), np.full(mean.shape, np.nan)
    diff = pools.differences
    sys, low, high = ~diff, pools.low[~diff], pools.high[~diff]
    phi = _dispersion(s2[:, sys], spread(mean[:, sys], low, high), departed[:, sys], pools.group[sys], pools.prior)
    lower[:, sys], upper[:, sys] = wilson(mean[:, sys], q[:, sys] ** 2 * fpc[:, sys] * phi / n[:, sys], low, high)
    if diff.any():
        scale = _difference_scale(lower, upper, pools)
        phi = _dispersion(s2[:, diff], scale, departed[:, diff], pools.group[diff], pools.prior)
        half = q[:, diff] * np.sqrt(fpc[:, diff] * phi * scale / n[:, diff])
        lower[:, diff], upper[:, diff] = mean[:, diff] - half, mean[:, diff] + half
    return lower, upper


def ppi_ratio(own, lam, departed, pools: Pools) -> np.ndarray:
    """PPI++'s variance over the classical one: ``own`` (the t intervals' squared width ratio)
    shrunk toward the pool's mean ratio (each capped at 1) on the log scale (a ratio of variances
    is a scale: a well-measured small ratio is not pulled up by a pool of large ones),
    ``departed`` counting (human, judge) pairs; 1 where lambda is 0 (the estimate is the
    classical one)."""
    tuned = lam > 0
    own = np.where(tuned, own, 1.0)
    ok = ~np.isnan(own)
    pooled = _pool(np.minimum(own, 1.0), np.ones_like(own), ok, pools.group)
    return np.where(tuned, _shrink(own, pooled, departed, pools.prior, log=True), 1.0)
