"""Significance between judges: paired tests on identical units, Holm over the
judge pairs of a column, and rank groups (definitions: docs/statistics.md,
"The judge leaderboard").

- Accuracy columns: :func:`cluster_paired_accuracy`, a paired permutation test
  whose unit of a swap is a whole cluster (a document: a TLDR post, a REALSumm or
  QAGS summary's document), because decisions on one document are not
  independent. The statistic is accuracy(A) - accuracy(B) over the decisions
  both judges answered; exact over all ``2**K`` swap patterns when that is no
  more than the resamples, else Monte Carlo seeded from ``tables.seed``.
- Correlation columns: :func:`sumjudge.stats.permutation.paired_correlation_test`
  with the scheme of ``tables.permutation`` (documents by default).
- :func:`pair_family`: Holm (or the configured correction) over all judge pairs of one column.
- :func:`rank_groups` (deprecated: it can rank a judge above one with a higher
  value, and reads a NaN p as "not significant"; use
  :func:`sumjudge.stats.ranks.rank_judges`): the judges not significantly worse
  than the column's best share rank 1; among the rest, those not significantly
  worse than the best of them share rank 2; and so on.
"""
from __future__ import annotations

import itertools

import numpy as np

from .correction import adjust
from .permutation import PermutationResult, result_from_null, swap_patterns


def cluster_paired_accuracy(correct_a, correct_b, clusters, n_resamples: int = 1000,
                            seed: int = 0) -> PermutationResult:
    """Paired permutation test of two judges' accuracy, swapping whole clusters.

    ``correct_a``/``correct_b``: per decision 1/0 (or a share in [0, 1]), NaN = not counted;
    a decision enters only where both count it. ``clusters``: each decision's cluster key."""
    a = np.asarray(correct_a, dtype=float)
    b = np.asarray(correct_b, dtype=float)
    clusters = np.asarray(clusters)
    if not (a.shape == b.shape == clusters.shape) or a.ndim != 1:
        raise ValueError(f"expected three equal 1-d arrays, got {a.shape}, {b.shape}, {clusters.shape}")
    both = ~np.isnan(a) & ~np.isnan(b)
    a, b, clusters = a[both], b[both], clusters[both]
    n = a.size
    if n == 0:
        return PermutationResult(float("nan"), float("nan"), 0, True, 0)
    codes = np.unique(clusters, return_inverse=True)[1]
    diff = np.bincount(codes, weights=a - b)          # per-cluster sum of differences
    observed = float(diff.sum() / n)
    masks, exact = swap_patterns(diff.size, n_resamples, seed)
    null = (np.where(masks, -1.0, 1.0) @ diff) / n   # a swap negates that cluster's differences
    return result_from_null(observed, null, exact, masks.shape[0], n)


def pair_family(names: list[str], test, correction: str = "holm", one_sided: bool = True) -> list[dict]:
    """Every unordered pair of ``names`` tested by ``test(a, b) -> PermutationResult``,
    p-values adjusted over the family of the column's pairs.

    Keys: ``a``, ``b``, ``delta`` (A minus B), ``p_value`` (two-sided), ``p_adjusted``
    (two-sided, adjusted over the m pairs), ``n_units``, ``exact``; with ``one_sided``
    also ``better`` (the judge with the higher delta, None when delta is 0 or NaN),
    ``p_one_sided`` (H1: ``better`` is better; NaN without a ``better``) and
    ``p_one_sided_adjusted``: adjusted over the 2m directional hypotheses of the column
    (each pair in both directions), so that picking the direction from the data does
    not double the error rate (docs/statistics.md, "Ranks with ties")."""
    pairs = list(itertools.combinations(names, 2))
    results = [test(a, b) for a, b in pairs]
    adj = adjust([r.p_value for r in results], correction) if results else []
    rows = [{"a": a, "b": b, "delta": r.statistic, "p_value": r.p_value, "p_adjusted": float(p),
             "n_units": r.n_units, "exact": r.exact} for (a, b), r, p in zip(pairs, results, adj)]
    if not one_sided:
        return rows
    m = len(results)
    directional = adjust([r.p_greater for r in results] + [r.p_less for r in results], correction) if m else []
    for i, (row, r) in enumerate(zip(rows, results)):
        d = r.statistic
        if np.isnan(d) or d == 0:
            row.update(better=None, p_one_sided=float("nan"), p_one_sided_adjusted=float("nan"))
        elif d > 0:
            row.update(better=row["a"], p_one_sided=float(r.p_greater), p_one_sided_adjusted=float(directional[i]))
        else:
            row.update(better=row["b"], p_one_sided=float(r.p_less), p_one_sided_adjusted=float(directional[m + i]))
    return rows


def rank_groups(values: dict[str, float], pairs: list[dict], alpha: float = 0.05) -> dict[str, int]:
    """Rank group per judge (1 = best) from its value (higher is better) and the adjusted
    pair tests. A judge without a value (NaN) gets no group (absent from the result)."""
    sig = {}
    for r in pairs:
        s = bool(not np.isnan(r["p_adjusted"]) and r["p_adjusted"] < alpha)
        sig[(r["a"], r["b"])] = sig[(r["b"], r["a"])] = s
    left = sorted((k for k, v in values.items() if v is not None and not np.isnan(v)),
                  key=lambda k: (-values[k], k))
    groups, rank = {}, 0
    while left:
        rank += 1
        best = left[0]
        members = [k for k in left if k == best or not sig.get((best, k), False)]
        for k in members:
            groups[k] = rank
        left = [k for k in left if k not in members]
    return groups


def separable(pairs: list[dict], alpha: float = 0.05) -> int:
    """How many judge pairs differ at level ``alpha`` after the correction."""
    return int(sum(1 for r in pairs if not np.isnan(r["p_adjusted"]) and r["p_adjusted"] < alpha))
