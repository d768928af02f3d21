"""Accuracy of decisions against human labels, and intervals for rates.

A prediction is compared with the human label decision by decision. A missing
prediction (an invalid judge reply) is never turned into a label: with
``invalid="drop"`` (default) the decision is left out of that row's accuracy;
with ``invalid="wrong"`` it counts as a wrong decision. A metric's tie on TLDR
(-1) is a prediction that matches no human choice, i.e. wrong.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as _st

INVALID_HANDLING = ("drop", "wrong")
TIE_SCORING = ("exact", "half", "decided")  # a tie answer (protocol pairwise_tie; docs/statistics.md)


@dataclass(frozen=True)
class AccuracyResult:
    value: float     # share of counted decisions that are right (nan if none counted)
    n: int           # decisions counted
    n_missing: int   # decisions without a prediction (dropped, or counted wrong)

    def as_dict(self) -> dict:
        return asdict(self)


def correctness(pred, gold, invalid: str = "drop") -> np.ndarray:
    """Per decision: 1.0 right, 0.0 wrong, NaN not counted (missing prediction under "drop")."""
    if invalid not in INVALID_HANDLING:
        raise ValueError(f"invalid must be one of {INVALID_HANDLING}, not {invalid!r}")
    pred = np.asarray(pred, dtype=float)
    gold = np.asarray(gold, dtype=float)
    if pred.shape != gold.shape:
        raise ValueError(f"predictions and labels differ in shape: {pred.shape} vs {gold.shape}")
    if np.isnan(gold).any():
        raise ValueError("human labels must not be missing")
    out = (pred == gold).astype(float)
    missing = np.isnan(pred)
    out[missing] = np.nan if invalid == "drop" else 0.0
    return out


def accuracy(pred, gold, invalid: str = "drop") -> AccuracyResult:
    c = correctness(pred, gold, invalid)
    counted = ~np.isnan(c)
    value = float(c[counted].mean()) if counted.any() else float("nan")
    return AccuracyResult(value, int(counted.sum()), int(np.isnan(np.asarray(pred, dtype=float)).sum()))


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for a proportion k/n."""
    if n == 0:
        return float("nan"), float("nan")
    alpha = 1 - confidence
    low = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return low, high


def score_ties(correct, pred, gold, tie, rule: str = "exact") -> np.ndarray:
    """Per-decision correctness of a protocol with a tie answer (label ``tie``), by ``rule``
    (docs/statistics.md, "Pairwise with a tie"):

    - ``exact``: a tie is a third answer, right only against a human tie (three-way accuracy);
    - ``half``: a tie against a preference, or a preference against a human tie, is half right
      (the expected score of a coin flip between the two summaries);
    - ``decided``: decisions whose human label is a tie are left out (NaN); a tie answer on a
      decided pair is wrong (two-way accuracy on the pairs the human decided).

    ``correct``: :func:`correctness` of the same decisions (NaN = not counted, kept)."""
    if rule not in TIE_SCORING:
        raise ValueError(f"tie scoring must be one of {TIE_SCORING}, not {rule!r}")
    out = np.asarray(correct, dtype=float).copy()
    pred = np.asarray(pred, dtype=float)
    gold = np.asarray(gold, dtype=float)
    counted = ~np.isnan(out)
    if rule == "half":
        one_tie = counted & ((pred == tie) != (gold == tie))
        out[one_tie] = 0.5
    elif rule == "decided":
        out[gold == tie] = np.nan
    return out
