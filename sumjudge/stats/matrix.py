"""Correlation levels on document x system matrices, for many resamples at once.

The bootstrap and the permutation test evaluate the same three correlation
levels (docs/statistics.md) on hundreds of resampled or permuted copies of the
data. Doing that through :mod:`sumjudge.stats.correlation` (one pandas groupby
per copy) is far too slow, so here a Likert dataset is a ``D x S`` matrix
(documents x systems, NaN where a score is missing) and a batch of copies is a
``B x D x S`` stack, which may repeat documents (rows) and systems (columns).

:func:`levels_stack` returns, for every copy, exactly what
:func:`sumjudge.stats.correlation.correlation_levels` returns for the value:

- sample:  correlate each row (a document over its systems), then average the
           rows; a row with no valid pair is left out, a row with an undefined
           correlation counts as 0 (``undefined="zero"``) or is left out (``"skip"``);
- system:  correlate the column means (each over the rows where both sides are valid);
- dataset: correlate all cells.

Only cells where both sides are valid enter (pairwise deletion). Spearman is
Pearson on average ranks; Kendall is tau-b. The tests check that the unresampled
stack gives the values of ``correlation_levels`` to 1e-12.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _st
from scipy.stats import rankdata

LEVELS = ("sample", "system", "dataset")

# largest batch, in cells, evaluated in one go (bounds the memory to ~100 MB)
_CHUNK_CELLS = 2_000_000
# system means are rounded to this many decimals before ranking: summed in another order, equal
# means (4.7777777777777786 and ...779, averages of thirds) would otherwise break a tie by rounding noise
MEAN_DECIMALS = 10


def tie_safe(means: np.ndarray) -> np.ndarray:
    """Means rounded to :data:`MEAN_DECIMALS`, so that equal means rank as ties whatever the
    order they were summed in."""
    return np.round(means, MEAN_DECIMALS)


def likert_matrix(df: pd.DataFrame, column: str, docs, systems, doc: str = "doc_id",
                  system: str = "system") -> np.ndarray:
    """``column`` of a tidy table as a ``len(docs) x len(systems)`` matrix (NaN where absent)."""
    if df.duplicated([doc, system]).any():
        first = df.loc[df.duplicated([doc, system]), [doc, system]].iloc[0].tolist()
        raise ValueError(f"more than one row for (doc, system) {first}")
    wide = df.pivot(index=doc, columns=system, values=column)
    return wide.reindex(index=list(docs), columns=list(systems)).to_numpy(dtype=float)


def _pairwise(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NaN in both wherever either is NaN."""
    bad = np.isnan(x) | np.isnan(y)
    return np.where(bad, np.nan, x), np.where(bad, np.nan, y)


def _pearson_last(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson along the last axis over the non-NaN entries (NaN at the same places).

    Returns (r, n): r is NaN where fewer than 2 entries or either side is constant."""
    valid = ~np.isnan(x)
    n = valid.sum(axis=-1)
    safe_n = np.maximum(n, 1)
    xs = np.where(valid, x, 0.0)
    ys = np.where(valid, y, 0.0)
    dx = np.where(valid, x - (xs.sum(-1) / safe_n)[..., None], 0.0)
    dy = np.where(valid, y - (ys.sum(-1) / safe_n)[..., None], 0.0)
    sxx = (dx * dx).sum(-1)
    syy = (dy * dy).sum(-1)
    sxy = (dx * dy).sum(-1)
    # a constant side has (up to rounding) zero spread; ranks make the scale ~n^3
    tol = 1e-12 * np.maximum(n, 1).astype(float) ** 3
    undefined = (n < 2) | (sxx <= tol) | (syy <= tol)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / np.sqrt(sxx * syy)
    r = np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))
    return r, n


def rank_last(a: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis among the non-NaN entries; NaN stays NaN.

    NaN is ranked as +inf (after every finite value, so the finite values keep
    their ranks among themselves) and blanked afterwards: one vectorised call,
    where scipy's ``nan_policy="omit"`` falls back to a loop over rows."""
    missing = np.isnan(a)
    ranks = rankdata(np.where(missing, np.inf, a), axis=-1)
    return np.where(missing, np.nan, ranks)


def _spearman_last(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x, y = _pairwise(x, y)
    return _pearson_last(rank_last(x), rank_last(y))


def _kendall_last(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b along the last axis: S / sqrt(Tx * Ty) with S the sum of
    sign products over pairs and Tx, Ty the pairs not tied in x, y."""
    x, y = _pairwise(x, y)
    n = (~np.isnan(x)).sum(axis=-1)
    if x.shape[-1] <= 64:
        sx = np.nan_to_num(np.sign(x[..., :, None] - x[..., None, :]))
        sy = np.nan_to_num(np.sign(y[..., :, None] - y[..., None, :]))
        s = (sx * sy).sum(axis=(-1, -2)) / 2
        tx = np.abs(sx).sum(axis=(-1, -2)) / 2
        ty = np.abs(sy).sum(axis=(-1, -2)) / 2
        with np.errstate(invalid="ignore", divide="ignore"):
            r = s / np.sqrt(tx * ty)
        return np.where((tx == 0) | (ty == 0), np.nan, r), n
    # long rows (dataset level): scipy's O(n log n) tau-b per row
    flat_x = x.reshape(-1, x.shape[-1])
    flat_y = y.reshape(-1, y.shape[-1])
    out = np.full(flat_x.shape[0], np.nan)
    for i, (a, b) in enumerate(zip(flat_x, flat_y)):
        keep = ~np.isnan(a)
        a, b = a[keep], b[keep]
        if a.size >= 2 and np.ptp(a) > 0 and np.ptp(b) > 0:
            out[i] = _st.kendalltau(a, b, variant="b").statistic
    return out.reshape(x.shape[:-1]), n


def corr_last(x: np.ndarray, y: np.ndarray, method: str = "spearman") -> tuple[np.ndarray, np.ndarray]:
    """Correlation along the last axis with pairwise deletion; (r, number of valid pairs)."""
    if method == "spearman":
        return _spearman_last(x, y)
    if method == "kendall":
        return _kendall_last(x, y)
    raise ValueError(f"unknown correlation method {method!r}; use 'spearman' or 'kendall'")


UNDEFINED_ROWS = "sample_undefined"  # extra key of levels_stack(..., count_undefined=True)


def _levels_chunk(xs: np.ndarray, ys: np.ndarray, method: str, undefined: str,
                  count_undefined: bool = False, levels=LEVELS) -> dict[str, np.ndarray]:
    xs, ys = _pairwise(xs, ys)
    out = {}
    # sample level: one correlation per row, then the mean over rows
    if "sample" in levels or count_undefined:
        r, n = corr_last(xs, ys, method)
        present = n > 0
        if count_undefined:  # rows with a pair but no defined correlation
            out[UNDEFINED_ROWS] = (present & np.isnan(r)).sum(axis=-1).astype(float)
        if undefined == "zero":
            r = np.where(present & np.isnan(r), 0.0, r)
        use = present & ~np.isnan(r)
        k = use.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["sample"] = np.where(k > 0, np.where(use, r, 0.0).sum(axis=-1) / np.maximum(k, 1), np.nan)
    # system level: column means over the valid cells, then one correlation
    if "system" in levels:
        valid = ~np.isnan(xs)
        cnt = valid.sum(axis=-2)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx = np.where(cnt > 0, np.where(valid, xs, 0.0).sum(axis=-2) / cnt, np.nan)
            my = np.where(cnt > 0, np.where(valid, ys, 0.0).sum(axis=-2) / cnt, np.nan)
        out["system"] = corr_last(tie_safe(mx), tie_safe(my), method)[0]
    # dataset level: every cell
    if "dataset" in levels:
        shape = xs.shape[:-2] + (xs.shape[-2] * xs.shape[-1],)
        out["dataset"] = corr_last(xs.reshape(shape), ys.reshape(shape), method)[0]
    return out


def levels_stack(xs: np.ndarray, ys: np.ndarray, method: str = "spearman",
                 undefined: str = "zero", count_undefined: bool = False,
                 levels: tuple[str, ...] = LEVELS) -> dict[str, np.ndarray]:
    """Sample, system and dataset level (or those of ``levels`` only) for every matrix of a
    ``B x D x S`` stack.

    ``xs`` and ``ys`` hold the metric and the human scores (NaN where missing).
    A 2-d input is one matrix and gives arrays of shape ``()``. With
    ``count_undefined`` the result also holds, under :data:`UNDEFINED_ROWS`, the
    number of rows (documents) whose correlation was undefined in each matrix."""
    if undefined not in ("zero", "skip"):
        raise ValueError(f"undefined must be 'zero' or 'skip', not {undefined!r}")
    xs = np.asarray(xs, dtype=float)
    ys = np.asarray(ys, dtype=float)
    if xs.shape != ys.shape or xs.ndim not in (2, 3):
        raise ValueError(f"expected two equal D x S or B x D x S arrays, got {xs.shape} and {ys.shape}")
    if xs.ndim == 2:
        return {k: v[0] for k, v in levels_stack(xs[None], ys[None], method, undefined, count_undefined,
                                                 levels).items()}
    step = max(1, _CHUNK_CELLS // max(1, xs.shape[1] * xs.shape[2]))
    parts = [_levels_chunk(xs[i:i + step], ys[i:i + step], method, undefined, count_undefined, levels)
             for i in range(0, xs.shape[0], step)]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
