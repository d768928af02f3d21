"""How many independent votes a jury's members are worth (docs/statistics.md, "Juries").

A member's *error* on a unit is the part of its answer the human reference does not explain, at the
level of the column:

- Likert, ``dataset`` level: the residual of the member's scores regressed (least squares, with an
  intercept) on the human scores, over the summaries every member and the human scored;
- ``system`` level: the same on the system means (each over those summaries);
- ``sample`` level: the same after centring the member's and the human scores within each document
  (the pooled within-document regression: only how a document's summaries are ordered counts);
- accuracy columns: 1 - the member's correctness on each decision every member answered (1 wrong,
  0 right, 1/2 for a half-right tie).

``r_bar`` is the mean Pearson correlation of the errors over the member pairs whose correlation is
defined (neither side constant), and the *effective number of independent votes* is

    n_eff = k / (1 + (k - 1) * r_bar)

(Kish's design effect for k equally correlated votes): k members that err independently are worth k
votes (r_bar 0), copies of one judge one vote (r_bar 1). A residual rather than a difference, so a
member that uses the scale differently (every score one point higher, or twice as spread) does not err
by that alone.

**Caveat: a noisy reference.** The human reference is itself an estimate (SummEval: the mean of three
experts). Its noise, and through the attenuated slope part of the true score, is in every member's
error alike, so r_bar is biased upwards and n_eff downwards: three members erring independently
against a reference with as much noise as each of them show r_bar about 0.45, not 0
(tests/jury/test_jury_independence.py). Read n_eff as a conservative count, comparable between juries
on the same reference, not as an absolute number.
"""
from __future__ import annotations

import itertools

import numpy as np


def residuals(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares residuals of ``x`` on ``y`` (1-d, no NaN); NaN where ``y`` is constant."""
    yc = y - y.mean()
    syy = float(yc @ yc)
    if x.size < 3 or syy == 0:
        return np.full(x.shape, np.nan)
    slope = float(yc @ (x - x.mean())) / syy
    return (x - x.mean()) - slope * yc


def likert_errors(members: list[np.ndarray], y: np.ndarray, level: str) -> np.ndarray:
    """members x points: each member's errors at ``level`` (D x S matrices, NaN = missing)."""
    valid = ~np.isnan(y)
    for x in members:
        valid &= ~np.isnan(x)
    if level == "system":
        keep = valid.any(axis=0)

        def mean(m):
            return np.where(valid, m, 0).sum(axis=0)[keep] / valid.sum(axis=0)[keep]

        return np.stack([residuals(mean(x), mean(y)) for x in members])
    if level == "sample":
        def centred(m):
            cnt = np.maximum(valid.sum(axis=1, keepdims=True), 1)
            return (m - np.where(valid, m, 0).sum(axis=1, keepdims=True) / cnt)[valid]
        return np.stack([residuals(centred(x), centred(y)) for x in members])
    if level == "dataset":
        return np.stack([residuals(x[valid], y[valid]) for x in members])
    raise ValueError(f"level must be sample, system or dataset, not {level!r}")


def accuracy_errors(correct: list[np.ndarray]) -> np.ndarray:
    """members x decisions: 1 - correctness on the decisions every member answered."""
    c = np.stack(correct)
    both = ~np.isnan(c).any(axis=0)
    return 1.0 - c[:, both]


def mean_error_correlation(errors: np.ndarray) -> tuple[float, int]:
    """(r_bar, member pairs it averages): the mean Pearson correlation of the rows of ``errors``
    over the pairs where it is defined; NaN with no such pair."""
    values = []
    for a, b in itertools.combinations(range(errors.shape[0]), 2):
        ea, eb = errors[a], errors[b]
        ok = ~np.isnan(ea) & ~np.isnan(eb)
        if ok.sum() >= 3 and np.ptp(ea[ok]) > 0 and np.ptp(eb[ok]) > 0:
            values.append(float(np.corrcoef(ea[ok], eb[ok])[0, 1]))
    return (float(np.mean(values)) if values else float("nan")), len(values)


def effective_votes(k: int, r_bar: float) -> float:
    """k / (1 + (k - 1) r_bar); NaN where r_bar is undefined or the denominator is not positive."""
    denominator = 1 + (k - 1) * r_bar
    return float(k / denominator) if np.isfinite(r_bar) and denominator > 0 else float("nan")
