"""Spearman's rho over every cell of many copies of one data set that differ only in which
documents they hold (a bootstrap over documents) or in which row each document's cells
come from (a swap of documents): the dataset level of the leaderboard's intervals and
paired tests (docs/statistics.md, "One estimand per cell"), without sorting each copy.

A copy is a weighted multiset of the distinct values, sorted once: the average rank of a
value is (weight below it) + (its weight + 1) / 2, read from cumulative weights, and rho
is the weighted Pearson correlation of the average ranks. Every weight is a document's
count times that document's cells of a value, so a copy costs matrix products over
(documents x distinct values): small for Likert answers. Equal to ranking every copy
(:func:`sumjudge.stats.matrix.corr_last` on the expanded copies) to rounding (tested).
"""
from __future__ import annotations

import numpy as np


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    uniq, inv = np.unique(values, return_inverse=True)
    return inv, uniq.size


def _ranks(weights: np.ndarray) -> np.ndarray:
    """Average rank of each distinct value (columns, sorted) given its weight in each copy."""
    return np.cumsum(weights, axis=1) - (weights - 1) / 2


def _per_doc(doc: np.ndarray, group: np.ndarray, n_docs: int, n_groups: int, values=None) -> np.ndarray:
    """documents x groups: how many cells (or the sum of ``values``) of each document fall in each group."""
    out = np.zeros((n_docs, n_groups))
    np.add.at(out, (doc, group), 1.0 if values is None else values)
    return out


def _pearson(n, sx, sy, sxx, syy, sxy) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        vx, vy, cxy = sxx - sx ** 2 / n, syy - sy ** 2 / n, sxy - sx * sy / n
        r = np.clip(cxy / np.sqrt(vx * vy), -1.0, 1.0)
    tol = 1e-12 * np.maximum(n, 1) ** 3
    return np.where((n < 2) | (vx <= tol) | (vy <= tol), np.nan, r)


def resampled_spearman(x: np.ndarray, y: np.ndarray, doc: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """rho of the cells ``x``, ``y`` (no NaN; ``doc``: each cell's document, 0..D-1) in every
    copy that holds document d ``counts[b, d]`` times (B x D); NaN where a side is constant."""
    gx, nx = _codes(x)
    gy, ny = _codes(y)
    gp, npairs = _codes(gx * ny + gy)
    first = np.zeros(npairs, int)
    first[gp] = np.arange(gp.size)
    px, py = gx[first], gy[first]
    w = counts @ _per_doc(doc, gp, counts.shape[1], npairs)            # B x pairs
    wx, wy = w @ np.eye(nx)[px], w @ np.eye(ny)[py]                    # B x distinct x / y values
    rx, ry = _ranks(wx), _ranks(wy)
    n = w.sum(axis=1)
    return _pearson(n, (wx * rx).sum(1), (wy * ry).sum(1), (wx * rx ** 2).sum(1), (wy * ry ** 2).sum(1),
                    (w * rx[:, px] * ry[:, py]).sum(1))


def swapped_spearman(a: np.ndarray, b: np.ndarray, h: np.ndarray, doc: np.ndarray, swap: np.ndarray) -> np.ndarray:
    """rho(A', h) - rho(B', h) for every pattern of ``swap`` (B x D booleans: document d of A'
    holds row B's cells ``b`` and B' row A's ``a``); ``a``, ``b``, ``h``: n cells, no NaN."""
    n, n_docs = a.size, swap.shape[1]
    g, k = _codes(np.concatenate([a, b]))
    ga, gb = g[:n], g[n:]
    gh, kh = _codes(h)
    rh = _ranks(_per_doc(np.zeros(n, int), gh, 1, kh))[0][gh]
    ma, mb = _per_doc(doc, ga, n_docs, k), _per_doc(doc, gb, n_docs, k)
    ha, hb = _per_doc(doc, ga, n_docs, k, rh), _per_doc(doc, gb, n_docs, k, rh)
    s = swap.astype(float)
    out = []
    for own, other, h_own, h_other in ((ma, mb, ha, hb), (mb, ma, hb, ha)):
        w = (1 - s) @ own + s @ other                                   # B x distinct values
        r = _ranks(w)
        cross = ((1 - s) * (r @ h_own.T) + s * (r @ h_other.T)).sum(axis=1)
        out.append(_pearson(np.full(s.shape[0], float(n)), (w * r).sum(1), np.full(s.shape[0], rh.sum()),
                            (w * r ** 2).sum(1), np.full(s.shape[0], (rh ** 2).sum()), cross))
    return out[0] - out[1]
