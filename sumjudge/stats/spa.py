"""Soft Pairwise Accuracy (SPA; Thompson, Mathur, Deutsch and Lo, WMT24 metrics task):
how well a judge's confidence that system i beats system j matches the humans'
(definitions: docs/statistics.md, "Soft Pairwise Accuracy").

For every pair of systems (i, j), a paired permutation test over documents of the sum
of per-document score differences gives p(i > j) = share of sign patterns whose
permuted sum is at least the observed one (no +1: the definition of
google-research/mt-metrics-eval's ``pce.py``, whose one draw of patterns is shared by
every pair and by both sides). SPA = 1 - mean over the pairs of |p_human - p_judge|;
1 when the judge is exactly as sure as the humans about every pair.

Where a document lacks a score of either system, its difference is 0 (a swap cannot
change it); a pair with no common document gives p = 1 on both sides' account.
"""
from __future__ import annotations

import numpy as np


def sign_draws(n_docs: int, n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """``n_resamples x n_docs`` random signs (+1 / -1), seeded: one draw for every pair."""
    return np.where(np.random.default_rng(seed).random((n_resamples, n_docs)) < 0.5, -1.0, 1.0)


def pairwise_p(scores, signs: np.ndarray) -> np.ndarray:
    """S x S matrix: entry (i, j), i < j, is p(system i better than system j) from
    ``scores`` (documents x systems, NaN = absent) under the sign patterns ``signs``
    (R x documents); the rest NaN."""
    m = np.asarray(scores, dtype=float)
    s = m.shape[1]
    out = np.full((s, s), np.nan)
    for i in range(s):
        for j in range(i + 1, s):
            d = np.nan_to_num(m[:, i] - m[:, j], nan=0.0)
            observed = d.sum()
            out[i, j] = float((signs @ d >= observed - 1e-12 * max(1.0, abs(observed))).mean())
    return out


def soft_pairwise_accuracy(human_p: np.ndarray, judge_p: np.ndarray) -> float:
    """1 - mean |p_human - p_judge| over the upper triangle's system pairs (NaN: fewer than 2 systems)."""
    iu = np.triu_indices(np.asarray(human_p).shape[0], 1)
    if iu[0].size == 0:
        return float("nan")
    return float(1.0 - np.mean(np.abs(np.asarray(human_p)[iu] - np.asarray(judge_p)[iu])))


def spa(judge, human, n_resamples: int = 1000, seed: int = 0) -> float:
    """SPA of a judge's documents x systems scores against the humans' (same shape)."""
    judge, human = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    signs = sign_draws(human.shape[0], n_resamples, seed)
    judge = np.where(np.isnan(human), np.nan, judge)
    return soft_pairwise_accuracy(pairwise_p(human, signs), pairwise_p(judge, signs))
