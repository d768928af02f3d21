"""Paired tests of two rows' correlation with the humans at the sample, system and
dataset level, for the leaderboard (definitions: docs/statistics.md, "Ranks from the
tests"). The swaps are those of ``tables.permutation`` (each row z-scored over the
common cells first, as :func:`sumjudge.stats.permutation.paired_correlation_test`);
what differs is how the p-value is read, so that its resolution is known before testing:

- sample level, documents swapped, ``undefined: zero``: the statistic is the mean over
  documents of corr(A_d, H_d) - corr(B_d, H_d), and a document's swap negates its term:
  :func:`sumjudge.stats.paired.sign_flip` (exact for 16 documents or fewer, else the
  normal approximation with the exact variance);
- system level, systems swapped: every one of the ``2**S`` patterns of the system-level
  statistic (16 systems: 65,536) when ``2**S <= exact_max``, else draws and the normal
  approximation;
- anything else (the dataset level; other schemes): ``n_resamples`` draws of the swaps
  (exact when every pattern fits), the normal approximation of their distribution.
"""
from __future__ import annotations

import numpy as np

from .matrix import LEVELS, _pearson_last, corr_last, levels_stack, rank_last, tie_safe
from .paired import EXACT_MAX, _from_counts, exact_floor, normal_from_null, patterns, sign_flip
from .permutation import PermutationResult, cell_swap_masks, level_schemes, null_distributions, standardize
from .ranked import swapped_spearman


def _doc_correlations(x: np.ndarray, y: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    """(per-document correlation, 0 where undefined; documents with a pair)."""
    r, n = corr_last(x, y, method)
    present = n > 0
    return np.where(present & np.isnan(r), 0.0, r), present


def sample_test(xs, zs, ys, method: str) -> PermutationResult:
    ra, present = _doc_correlations(xs, ys, method)
    rb, _ = _doc_correlations(zs, ys, method)
    r = sign_flip((ra - rb)[present] / max(int(present.sum()), 1))
    return PermutationResult(r.statistic, r.p_value, r.n_permutations, r.exact, int((~np.isnan(xs)).sum()),
                             r.p_greater, r.p_less)


def _system_means(m: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return tie_safe(np.where(ok.any(axis=0), np.where(ok, m, 0.0).sum(axis=0) / ok.sum(axis=0), np.nan))


def _fast_ranks(m: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis: one argsort, rows with ties ranked again exactly."""
    order = np.argsort(m, axis=1, kind="stable")
    r = np.empty_like(m)
    np.put_along_axis(r, order, np.broadcast_to(np.arange(1.0, m.shape[1] + 1), m.shape), axis=1)
    ties = (np.diff(np.take_along_axis(m, order, axis=1), axis=1) == 0).any(axis=1)
    if ties.any():
        r[ties] = rank_last(m[ties])
    return r


def _system_corr(m: np.ndarray, h: np.ndarray, method: str) -> np.ndarray:
    """corr of every row of ``m`` (patterns x S system means, no NaN) with ``h`` (S); Spearman
    ranks each row with one argsort, so 65,536 patterns take a fraction of a second."""
    if method != "spearman":
        return corr_last(m, np.broadcast_to(h, m.shape), method)[0]
    return _pearson_last(_fast_ranks(m), np.broadcast_to(rank_last(h), m.shape))[0]


def system_test(xs, zs, ys, method: str, n_resamples: int, seed: int,
                exact_max: int = EXACT_MAX) -> PermutationResult:
    ma, mb, mh = _system_means(xs), _system_means(zs), _system_means(ys)
    keep = ~np.isnan(ma) & ~np.isnan(mb) & ~np.isnan(mh)
    ma, mb, mh = ma[keep], mb[keep], mh[keep]
    s = ma.size
    exact = 2 ** s <= exact_max
    signs = patterns(s) if exact else np.where(np.random.default_rng(seed).random((n_resamples, s)) < 0.5, -1.0, 1.0)
    swap = signs < 0
    null = _system_corr(np.where(swap, mb, ma), mh, method) - _system_corr(np.where(swap, ma, mb), mh, method)
    observed = float(corr_last(ma, mh, method)[0] - corr_last(mb, mh, method)[0])
    n_cells = int((~np.isnan(xs)).sum())
    if exact:
        r = _from_counts(observed, np.nan_to_num(null, nan=0.0), n_cells)
        return PermutationResult(r.statistic, r.p_value, r.n_permutations, True, n_cells, r.p_greater, r.p_less)
    return normal_from_null(observed, null, n_cells)


def drawn_test(xs, zs, ys, cells, level: str, scheme: str, method: str, undefined: str, n_resamples: int,
               seed: int) -> PermutationResult:
    """One level by swap draws of ``scheme``; the normal approximation unless every pattern fits."""
    flat = np.flatnonzero(cells)
    a, b = xs.ravel()[flat], zs.ravel()[flat]

    def expand(v: np.ndarray) -> np.ndarray:
        full = np.full((v.shape[0], xs.size), np.nan)
        full[:, flat] = v
        return full.reshape((v.shape[0],) + xs.shape)

    def statistic(sa: np.ndarray, sb: np.ndarray) -> dict[str, np.ndarray]:
        if level == "dataset":     # every cell: one correlation, no need for the other levels
            h = np.broadcast_to(ys.ravel()[flat], sa.shape)
            return {level: corr_last(sa, h, method)[0] - corr_last(sb, h, method)[0]}
        hum = np.broadcast_to(ys, (sa.shape[0],) + ys.shape)
        return {level: levels_stack(expand(sa), hum, method, undefined)[level]
                - levels_stack(expand(sb), hum, method, undefined)[level]}

    observed = float(np.asarray(statistic(a[None], b[None])[level]).reshape(-1)[0])
    masks, exact = cell_swap_masks(cells, scheme, n_resamples, seed)
    if level == "dataset" and scheme == "documents" and method == "spearman":   # sorted once (stats.ranked)
        rows = np.nonzero(cells)[0]
        doc = np.unique(rows, return_inverse=True)[1]
        first = np.unique(doc, return_index=True)[1]
        null = swapped_spearman(a, b, ys.ravel()[flat], doc, masks[:, first])
    else:
        null = null_distributions(statistic, a, b, masks, [level])[level]
    if exact:
        return _from_counts(observed, null, a.size)
    return normal_from_null(observed, null, a.size)


def level_tests(x, z, y, n_resamples: int = 1000, seed: int = 0, method: str = "spearman",
                undefined: str = "zero", scheme="documents", levels=LEVELS) -> dict[str, PermutationResult]:
    """Row A (``x``) against row B (``z``) with the humans ``y`` (D x S matrices) at each of
    ``levels``; only cells where all three are present enter (module docstring)."""
    x, z, y = (np.asarray(v, dtype=float) for v in (x, z, y))
    if not (x.shape == z.shape == y.shape) or x.ndim != 2:
        raise ValueError(f"expected three equal D x S matrices, got {x.shape}, {z.shape}, {y.shape}")
    schemes = level_schemes(scheme)
    cells = ~np.isnan(x) & ~np.isnan(z) & ~np.isnan(y)
    if not cells.any():
        return {lv: PermutationResult(float("nan"), float("nan"), 0, True, 0) for lv in levels}
    xs, zs = standardize(np.where(cells, x, np.nan)), standardize(np.where(cells, z, np.nan))
    ys = np.where(cells, y, np.nan)
    out = {}
    for lv in levels:
        if lv == "sample" and schemes[lv] == "documents" and undefined == "zero":
            out[lv] = sample_test(xs, zs, ys, method)
        elif lv == "system" and schemes[lv] == "systems":
            out[lv] = system_test(xs, zs, ys, method, n_resamples, seed)
        else:
            out[lv] = drawn_test(xs, zs, ys, cells, lv, schemes[lv], method, undefined, n_resamples, seed)
    return out


def floor_p(cells, level: str, scheme="documents", undefined: str = "zero", n_resamples: int = 1000,
            exact_max: int = EXACT_MAX) -> tuple[float, int, str]:
    """(smallest one-sided p, units, their name) of :func:`level_tests` at ``level``, known
    before testing from the cells alone: ``2**-units`` where every swap pattern is
    enumerated (the identity pattern always counts), 0 under the normal approximation."""
    rows, cols = np.nonzero(np.asarray(cells, dtype=bool))
    sch = level_schemes(scheme)[level]
    docs, systems = int(np.unique(rows).size), int(np.unique(cols).size)
    units = {"documents": (docs, "documents"), "systems": (systems, "systems"),
             "summaries": (int(rows.size), "summaries"), "both": (docs + systems, "documents and systems")}[sch]
    fast = (level == "sample" and sch == "documents" and undefined == "zero") or (level == "system"
                                                                                 and sch == "systems")
    cap = exact_max if fast else n_resamples
    return exact_floor(units[0], cap), units[0], units[1]
