"""Paired permutation tests: is row A (the judge) better than row B (the strongest
other row) by more than chance? Definitions: docs/statistics.md.

Under the null hypothesis the two rows are exchangeable on every unit, so each
unit's pair of scores may be swapped. The test statistic is the difference of
the column's statistic (a correlation level, an accuracy) between the two rows;
its null distribution comes from random swap patterns (Monte Carlo, seeded), or
from all ``2**n`` patterns when that is no more than the configured number of
resamples (then the p-value is exact). p-values are two-sided:

    exact:        p = #{patterns with |delta| >= |observed|} / 2**n
    Monte Carlo:  p = (1 + #{resamples with |delta| >= |observed|}) / (1 + R)

Equal differences (within 1e-12) count as "at least as extreme", so identical
rows give p = 1.

For correlations the unit of a swap is a scheme (``tables.permutation``):

- ``summaries``: each summary (cell of the documents x systems matrix) is
  swapped on its own (the test in Deutsch et al.'s experiment code);
- ``documents``: a whole document (row) is swapped, all its summaries at once
  (nlpstats' Perm-Inputs);
- ``systems``: a whole system (column) is swapped (nlpstats' Perm-Systems);
- ``both``: a system swap and a document swap are drawn independently; a cell
  is swapped when exactly one of them is (nlpstats' Perm-Both: swap rows,
  then columns).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np
from scipy import stats as _st

from .matrix import LEVELS, levels_stack

_TOL = 1e-12


@dataclass(frozen=True)
class PermutationResult:
    statistic: float   # observed difference, row A minus row B
    p_value: float     # two-sided
    n_permutations: int
    exact: bool
    n_units: int       # units (cells, decisions) that entered the paired comparison
    p_greater: float = float("nan")  # one-sided, H1: A better than B (statistic > 0)
    p_less: float = float("nan")     # one-sided, H1: B better than A (statistic < 0)

    def as_dict(self) -> dict:
        return asdict(self)


PERMUTATION_SCHEMES = ("summaries", "documents", "systems", "both")


def swap_patterns(n: int, n_resamples: int = 1000, seed: int = 0) -> tuple[np.ndarray, bool]:
    """Boolean swap masks of shape (R, n) and whether they are all ``2**n`` patterns."""
    if n < 0x3F and 2 ** n <= n_resamples:
        codes = np.arange(2 ** n, dtype=np.int64)[:, None]
        return ((codes >> np.arange(n, dtype=np.int64)) & 1).astype(bool), True
    rng = np.random.default_rng(seed)
    return rng.random((n_resamples, n)) < 0.5, False


def p_from_null(observed: float, null: np.ndarray, exact: bool) -> float:
    """Two-sided p-value of ``observed`` against its permutation distribution ``null``."""
    if np.isnan(observed):
        return float("nan")
    null = np.asarray(null, dtype=float)
    null = null[~np.isnan(null)]
    if null.size == 0:
        return float("nan")
    extreme = int((np.abs(null) >= abs(observed) - _TOL * max(1.0, abs(observed))).sum())
    return extreme / null.size if exact else (1 + extreme) / (1 + null.size)


def one_sided_from_null(observed: float, null: np.ndarray, exact: bool) -> tuple[float, float]:
    """(p_greater, p_less): one-sided p-values of ``observed`` against the same ``null``.

    p_greater counts the patterns with a difference at least as large as observed
    (H1: A better), p_less those at most as large (H1: B better); equal within 1e-12
    counts, so identical rows give 1 and 1."""
    if np.isnan(observed):
        return float("nan"), float("nan")
    null = np.asarray(null, dtype=float)
    null = null[~np.isnan(null)]
    if null.size == 0:
        return float("nan"), float("nan")
    tol = _TOL * max(1.0, abs(observed))
    hi = int((null >= observed - tol).sum())
    lo = int((null <= observed + tol).sum())
    if exact:
        return hi / null.size, lo / null.size
    return (1 + hi) / (1 + null.size), (1 + lo) / (1 + null.size)


def result_from_null(observed: float, null: np.ndarray, exact: bool, n_permutations: int,
                     n_units: int) -> "PermutationResult":
    """A :class:`PermutationResult` with the two-sided and both one-sided p-values."""
    g, le = one_sided_from_null(observed, null, exact)
    return PermutationResult(observed, p_from_null(observed, null, exact), n_permutations, exact, n_units, g, le)


def paired_permutation_test(a, b, statistic: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]],
                            n_resamples: int = 1000, seed: int = 0) -> dict[str, PermutationResult]:
    """Generic paired test over the ``n`` units of 1-d arrays ``a`` and ``b``.

    ``statistic(A, B)`` gets stacks of shape (R, n) and returns named arrays of
    shape (R,): the difference(s) of interest between the rows."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"expected two equal 1-d arrays, got {a.shape} and {b.shape}")
    observed = {k: float(np.asarray(v).reshape(-1)[0]) for k, v in statistic(a[None], b[None]).items()}
    masks, exact = swap_patterns(a.size, n_resamples, seed)
    nulls = null_distributions(statistic, a, b, masks, list(observed))
    return {k: result_from_null(obs, nulls[k], exact, masks.shape[0], a.size) for k, obs in observed.items()}


def null_distributions(statistic: Callable, a: np.ndarray, b: np.ndarray, masks: np.ndarray,
                       keys: list[str]) -> dict[str, np.ndarray]:
    """``statistic`` under every swap pattern in ``masks`` (True: swap a and b there),
    in chunks of about 2M cells so memory stays bounded; one array per key."""
    nulls: dict[str, list[np.ndarray]] = {k: [] for k in keys}
    step = max(1, 2_000_000 // max(1, a.size))
    for i in range(0, masks.shape[0], step):
        m = masks[i:i + step]
        res = statistic(np.where(m, b, a), np.where(m, a, b))
        for k in keys:
            nulls[k].append(np.asarray(res[k], dtype=float))
    return {k: np.concatenate(v) for k, v in nulls.items()}


def sign_test_p(n_plus: int, n_minus: int) -> float:
    """Exact two-sided p-value of the paired permutation test when every unit's
    difference is -1, 0 or +1 (e.g. right/wrong decisions): under the null each
    of the m = n_plus + n_minus discordant units is +1 or -1 with probability 1/2,
    so the sum is 2K - m with K ~ Binomial(m, 1/2) (McNemar's exact test)."""
    m = n_plus + n_minus
    dev = abs(n_plus - n_minus)
    if m == 0 or dev == 0:
        return 1.0
    lo = (m - dev) // 2
    hi = (m + dev) // 2
    return float(min(1.0, _st.binom.cdf(lo, m, 0.5) + _st.binom.sf(hi - 1, m, 0.5)))


def sign_test_one_sided(n_plus: int, n_minus: int) -> tuple[float, float]:
    """(p_greater, p_less) of the exact sign test: P(K >= n_plus) and P(K <= n_plus),
    K ~ Binomial(n_plus + n_minus, 1/2); 1 and 1 with no discordant unit."""
    m = n_plus + n_minus
    if m == 0:
        return 1.0, 1.0
    return float(_st.binom.sf(n_plus - 1, m, 0.5)), float(_st.binom.cdf(n_plus, m, 0.5))


def paired_accuracy_test(correct_a, correct_b, n_resamples: int = 1000, seed: int = 0) -> PermutationResult:
    """Paired test of two rows' accuracy over the same decisions.

    ``correct_a``/``correct_b``: per-decision correctness in [0, 1] (a repeated
    judge gives the share of its repeats that were right); NaN = not counted,
    and a decision enters only where both rows count it. With 0/1 correctness
    the permutation distribution is the binomial of :func:`sign_test_p`
    (exact); otherwise swaps are enumerated or sampled."""
    a = np.asarray(correct_a, dtype=float)
    b = np.asarray(correct_b, dtype=float)
    both = ~np.isnan(a) & ~np.isnan(b)
    a, b = a[both], b[both]
    if a.size == 0:
        return PermutationResult(float("nan"), float("nan"), 0, True, 0)
    d = a - b
    observed = float(d.mean())
    if np.isin(d, (-1.0, 0.0, 1.0)).all():
        n_plus, n_minus = int((d > 0).sum()), int((d < 0).sum())
        return PermutationResult(observed, sign_test_p(n_plus, n_minus), 2 ** min(n_plus + n_minus, 62),
                                 True, a.size, *sign_test_one_sided(n_plus, n_minus))
    nonzero = d[d != 0]
    res = paired_permutation_test(nonzero, np.zeros_like(nonzero),
                                  lambda x, y: {"d": (x - y).sum(axis=1) / a.size}, n_resamples, seed)["d"]
    return PermutationResult(observed, res.p_value, res.n_permutations, res.exact, a.size, res.p_greater, res.p_less)


def standardize(x: np.ndarray) -> np.ndarray:
    """z-scores over the non-NaN entries (centred only when constant)."""
    x = np.asarray(x, dtype=float)
    mu = np.nanmean(x)
    sd = np.nanstd(x)
    return (x - mu) / sd if sd > 0 else x - mu


def cell_swap_masks(cells: np.ndarray, scheme: str, n_resamples: int = 1000,
                    seed: int = 0) -> tuple[np.ndarray, bool]:
    """Swap masks over the ``True`` cells of a D x S matrix under ``scheme``.

    Returns ``(masks, exact)``: masks of shape (R, number of True cells), in
    ``np.flatnonzero(cells)`` order, and whether they are every pattern of the
    scheme's units (then each pattern appears once and p is exact). The units
    are the cells (``summaries``), the documents with a cell (``documents``),
    the systems with a cell (``systems``), or both together (``both``: one bit
    per document and one per system, a cell swapped when they differ)."""
    if scheme not in PERMUTATION_SCHEMES:
        raise ValueError(f"permutation scheme must be one of {PERMUTATION_SCHEMES}, not {scheme!r} "
                         "(config tables.permutation)")
    cells = np.asarray(cells, dtype=bool)
    rows, cols = np.nonzero(cells)
    if scheme == "summaries":
        return swap_patterns(rows.size, n_resamples, seed)
    doc_ids = np.unique(rows, return_inverse=True)[1]
    sys_ids = np.unique(cols, return_inverse=True)[1]
    n_docs = int(doc_ids.max()) + 1 if rows.size else 0
    n_sys = int(sys_ids.max()) + 1 if rows.size else 0
    if scheme == "documents":
        units, exact = swap_patterns(n_docs, n_resamples, seed)
        return units[:, doc_ids], exact
    if scheme == "systems":
        units, exact = swap_patterns(n_sys, n_resamples, seed)
        return units[:, sys_ids], exact
    units, exact = swap_patterns(n_docs + n_sys, n_resamples, seed)
    return units[:, doc_ids] ^ units[:, n_docs + sys_ids], exact


def level_schemes(scheme) -> dict[str, str]:
    """``tables.permutation`` as {level: scheme}: one name for every level, or a mapping by level."""
    if isinstance(scheme, str):
        mapping = {lv: scheme for lv in LEVELS}
    else:
        mapping = dict(scheme)
        missing = [lv for lv in LEVELS if lv not in mapping]
        unknown = [k for k in mapping if k not in LEVELS]
        if missing or unknown:
            raise ValueError(f"tables.permutation by level needs exactly the keys {list(LEVELS)}; "
                             f"missing {missing}, unknown {unknown}")
    for lv, sch in mapping.items():
        if sch not in PERMUTATION_SCHEMES:
            raise ValueError(f"tables.permutation[{lv}] must be one of {PERMUTATION_SCHEMES}, not {sch!r}")
    return {lv: mapping[lv] for lv in LEVELS}


def paired_correlation_test(x, z, y, n_resamples: int = 1000, seed: int = 0, method: str = "spearman",
                            undefined: str = "zero", scheme="summaries") -> dict[str, PermutationResult]:
    """Paired test of two rows' correlation with the human scores at every level.

    ``x`` (row A), ``z`` (row B) and ``y`` (human) are D x S matrices. Only
    cells where all three are present enter. Each row is standardised (z-score
    over those cells) so that swapped cells are on a common scale (as in
    Deutsch et al. 2021). ``scheme`` (one name, or a mapping level -> name)
    decides what one swap exchanges between A and B: one summary, one document,
    one system, or a system and a document (:func:`cell_swap_masks`). The
    statistic per level is corr(A, human) - corr(B, human)."""
    x, z, y = (np.asarray(v, dtype=float) for v in (x, z, y))
    if not (x.shape == z.shape == y.shape) or x.ndim != 2:
        raise ValueError(f"expected three equal D x S matrices, got {x.shape}, {z.shape}, {y.shape}")
    schemes = level_schemes(scheme)
    cells = ~np.isnan(x) & ~np.isnan(z) & ~np.isnan(y)
    if not cells.any():
        nan = PermutationResult(float("nan"), float("nan"), 0, True, 0)
        return {lv: nan for lv in LEVELS}
    xs = standardize(np.where(cells, x, np.nan))
    zs = standardize(np.where(cells, z, np.nan))
    ys = np.where(cells, y, np.nan)
    flat = np.flatnonzero(cells)
    a, b = xs.ravel()[flat], zs.ravel()[flat]

    def expand(values: np.ndarray) -> np.ndarray:
        full = np.full((values.shape[0], x.size), np.nan)
        full[:, flat] = values
        return full.reshape((values.shape[0],) + x.shape)

    def statistic(sa: np.ndarray, sb: np.ndarray) -> dict[str, np.ndarray]:
        hum = np.broadcast_to(ys, (sa.shape[0],) + ys.shape)
        la = levels_stack(expand(sa), hum, method, undefined)
        lb = levels_stack(expand(sb), hum, method, undefined)
        return {lv: la[lv] - lb[lv] for lv in LEVELS}

    observed = statistic(a[None], b[None])
    out: dict[str, PermutationResult] = {}
    for sch in dict.fromkeys(schemes.values()):
        levels = [lv for lv in LEVELS if schemes[lv] == sch]
        masks, exact = cell_swap_masks(cells, sch, n_resamples, seed)
        nulls = null_distributions(statistic, a, b, masks, levels)
        for lv in levels:
            obs = float(np.asarray(observed[lv]).reshape(-1)[0])
            out[lv] = result_from_null(obs, nulls[lv], exact, masks.shape[0], a.size)
    return {lv: out[lv] for lv in LEVELS}
