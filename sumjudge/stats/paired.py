"""Significance between the judges of one leaderboard column, with a resolution known
before testing (definitions: docs/statistics.md, "Ranks from the tests").

- :func:`sign_flip`: the permutation test of a statistic that is a sum of per-unit
  contributions c_k, each of which a swap of the two rows negates (an accuracy's
  per-cluster sums; the sample level's per-document correlation differences). Exact
  over all ``2**K`` sign patterns when ``2**K <= exact_max``, else the normal
  approximation of the same permutation distribution, whose mean is 0 and whose
  variance is sum c_k^2 exactly: no Monte Carlo floor on the p-value.
- :func:`normal_from_null`: the normal approximation of a permutation distribution
  known only from draws (mean 0 by the swap's symmetry, variance = mean of the squared
  draws), for statistics that are not such sums (the dataset level).
- :func:`cluster_paired_accuracy`: accuracy(A) - accuracy(B), whole clusters swapped.
- :func:`pair_family`: every pair of a column, one-sided in the observed direction,
  Holm (or the configured correction) over the 2m directional hypotheses.
- :func:`smallest_adjusted_p`: what the family can reach at best, before any test.
"""
from __future__ import annotations

import itertools

import numpy as np
from scipy import stats as _st

from .correction import adjust
from .permutation import PermutationResult

EXACT_MAX = 2 ** 16   # enumerate every sign pattern up to this many (16 units)
_TOL = 1e-12


def patterns(k: int) -> np.ndarray:
    """All ``2**k`` sign patterns (+1 / -1) of ``k`` units, ``2**k x k``."""
    codes = np.arange(2 ** k, dtype=np.int64)[:, None]
    return 1.0 - 2.0 * ((codes >> np.arange(k, dtype=np.int64)) & 1)


def exact_floor(k: int, exact_max: int = EXACT_MAX) -> float:
    """The smallest one-sided p-value a test over ``k`` units can give: ``2**-k`` when it
    enumerates every pattern (the identity pattern always counts), 0 under the normal
    approximation."""
    return 2.0 ** -k if k < 63 and 2 ** k <= exact_max else 0.0


def _from_counts(observed: float, null: np.ndarray, n_units: int) -> PermutationResult:
    """The exact p-values of ``observed`` against every pattern's statistic ``null``."""
    if np.isnan(observed):
        return PermutationResult(float("nan"), float("nan"), null.size, True, n_units)
    tol = _TOL * max(1.0, abs(observed))
    hi, lo = float((null >= observed - tol).mean()), float((null <= observed + tol).mean())
    two = float((np.abs(null) >= abs(observed) - tol).mean())
    return PermutationResult(observed, two, null.size, True, n_units, hi, lo)


def normal_p(observed: float, sd: float, n_draws: int, n_units: int) -> PermutationResult:
    """The normal approximation N(0, sd^2) of a symmetric permutation distribution."""
    if np.isnan(observed) or np.isnan(sd):
        return PermutationResult(float("nan"), float("nan"), n_draws, False, n_units)
    if sd <= 0:   # every pattern gives the same (zero) statistic
        return PermutationResult(observed, 1.0, n_draws, False, n_units, 1.0, 1.0)
    z = observed / sd
    return PermutationResult(observed, float(min(1.0, 2 * _st.norm.sf(abs(z)))), n_draws, False, n_units,
                             float(_st.norm.sf(z)), float(_st.norm.cdf(z)))


def normal_from_null(observed: float, null: np.ndarray, n_units: int) -> PermutationResult:
    """:func:`normal_p` with the variance estimated from permutation draws ``null``."""
    null = np.asarray(null, dtype=float)
    null = null[~np.isnan(null)]
    sd = float(np.sqrt(np.mean(null ** 2))) if null.size else float("nan")
    return normal_p(observed, sd, null.size, n_units)


def sign_flip(contrib, exact_max: int = EXACT_MAX) -> PermutationResult:
    """Paired permutation test of ``sum(contrib)`` whose swaps negate single contributions
    (module docstring); NaN contributions are left out."""
    c = np.asarray(contrib, dtype=float)
    c = c[~np.isnan(c)]
    if c.size == 0:
        return PermutationResult(float("nan"), float("nan"), 0, True, 0)
    observed = float(c.sum())
    if 2 ** c.size <= exact_max:
        return _from_counts(observed, patterns(c.size) @ c, c.size)
    return normal_p(observed, float(np.sqrt((c ** 2).sum())), 0, c.size)


def cluster_paired_accuracy(correct_a, correct_b, clusters, exact_max: int = EXACT_MAX) -> PermutationResult:
    """Paired test of two judges' accuracy, swapping whole clusters (a document's decisions).

    ``correct_a``/``correct_b``: per decision 1/0 (or a share in [0, 1]), NaN = not counted;
    a decision enters only where both count it. ``clusters``: each decision's cluster key.
    The statistic is accuracy(A) - accuracy(B) = sum over clusters of the cluster's
    differences / n: :func:`sign_flip` of the per-cluster sums."""
    a, b = np.asarray(correct_a, dtype=float), np.asarray(correct_b, dtype=float)
    clusters = np.asarray(clusters)
    if not (a.shape == b.shape == clusters.shape) or a.ndim != 1:
        raise ValueError(f"expected three equal 1-d arrays, got {a.shape}, {b.shape}, {clusters.shape}")
    both = ~np.isnan(a) & ~np.isnan(b)
    if not both.any():
        return PermutationResult(float("nan"), float("nan"), 0, True, 0)
    codes = np.unique(clusters[both], return_inverse=True)[1]
    sums = np.bincount(codes, weights=(a - b)[both]) / both.sum()
    r = sign_flip(sums, exact_max)
    return PermutationResult(r.statistic, r.p_value, r.n_permutations, r.exact, int(both.sum()), r.p_greater,
                             r.p_less)


def pair_family(names: list[str], test, correction: str = "holm") -> list[dict]:
    """Every unordered pair of ``names`` tested by ``test(a, b) -> PermutationResult``.

    Keys: ``a``, ``b``, ``delta`` (A minus B), ``p_value`` (two-sided, raw), ``n_units``,
    ``exact``, ``better`` (the row with the higher delta; None at 0 or NaN), ``p_one_sided``
    (H1: ``better`` is better) and ``p_one_sided_adjusted``: adjusted over the 2m
    directional hypotheses of the column (each pair in both directions), so that reading
    the direction from the data does not double the error rate. Ranks, the separable
    count and the page all read ``p_one_sided_adjusted``."""
    pairs = list(itertools.combinations(names, 2))
    results = [test(a, b) for a, b in pairs]
    m = len(results)
    directional = adjust([r.p_greater for r in results] + [r.p_less for r in results], correction) if m else []
    rows = []
    for i, ((a, b), r) in enumerate(zip(pairs, results)):
        row = {"a": a, "b": b, "delta": r.statistic, "p_value": r.p_value, "n_units": r.n_units, "exact": r.exact}
        d = r.statistic
        if np.isnan(d) or d == 0:
            row.update(better=None, p_one_sided=float("nan"), p_one_sided_adjusted=float("nan"))
        elif d > 0:
            row.update(better=a, p_one_sided=float(r.p_greater), p_one_sided_adjusted=float(directional[i]))
        else:
            row.update(better=b, p_one_sided=float(r.p_less), p_one_sided_adjusted=float(directional[m + i]))
        rows.append(row)
    return rows


def smallest_adjusted_p(n_rows: int, floor: float, correction: str = "holm") -> float:
    """The smallest adjusted one-sided p a column of ``n_rows`` ranked rows can reach when
    no single p-value can be below ``floor``: the first step of Holm (or Bonferroni)
    multiplies it by the 2m directional hypotheses, BH's by 2m / 1 as well."""
    m = n_rows * (n_rows - 1) // 2
    return float(min(1.0, floor * (2 * m if correction != "none" else 1)))


def separable(pairs: list[dict], alpha: float = 0.05) -> int:
    """How many pairs have one row significantly better (the test the ranks read)."""
    return int(sum(1 for r in pairs if not np.isnan(r["p_one_sided_adjusted"]) and r["p_one_sided_adjusted"] < alpha))
