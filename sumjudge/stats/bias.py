"""Length biases of a judge or of the humans, the same function for both (the leaderboard's
bias columns; docs/statistics.md, "The judge leaderboard").

- :func:`longer_preference`: of the pairs whose two summaries differ in length by more
  than ``margin`` (relative to the shorter one, in words), the share where the choice is
  the longer summary. 0.5 is no preference.
- :func:`length_correlation`: Spearman's rho between a Likert score and the summary's
  length in words, over the units with a score.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr


def words(texts) -> np.ndarray:
    """Length in whitespace-separated words."""
    return np.array([len(str(t).split()) for t in texts], dtype=float)


@dataclass(frozen=True)
class Bias:
    value: float   # NaN where no unit qualifies
    n: int         # units it is computed over


def longer_preference(choice, len_0, len_1, margin: float = 0.2) -> Bias:
    """``choice`` is 0 or 1 (NaN: no valid choice), picking summary 0 or 1."""
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    choice, len_0, len_1 = (np.asarray(x, dtype=float) for x in (choice, len_0, len_1))
    if not (choice.shape == len_0.shape == len_1.shape):
        raise ValueError("choice and the two lengths must have the same length")
    shorter = np.minimum(len_0, len_1)
    differ = np.abs(len_0 - len_1) > margin * np.maximum(shorter, 1)
    keep = differ & ~np.isnan(choice)
    if not keep.any():
        return Bias(float("nan"), 0)
    longer = np.where(len_1 > len_0, 1.0, 0.0)
    return Bias(float(np.mean(choice[keep] == longer[keep])), int(keep.sum()))


def length_correlation(scores, lengths) -> Bias:
    scores, lengths = np.asarray(scores, dtype=float), np.asarray(lengths, dtype=float)
    if scores.shape != lengths.shape:
        raise ValueError("scores and lengths must have the same length")
    keep = ~np.isnan(scores) & ~np.isnan(lengths)
    if keep.sum() < 3 or np.ptp(scores[keep]) == 0 or np.ptp(lengths[keep]) == 0:
        return Bias(float("nan"), int(keep.sum()))
    return Bias(float(spearmanr(scores[keep], lengths[keep]).statistic), int(keep.sum()))
