"""How a jury turns its members' answers on one unit into its own (docs/judge.md, "Juries").

Every function takes ``votes``, a ``units x members`` array in the order the config lists the
members (``judges.<jury>.jury``), NaN where a member has no valid answer (an invalid reply, an API
error, a unit it did not judge): such a member is left out of that unit's vote. A unit no member
answered validly gets NaN.

- Scores (Likert, and ``<dim>_weighted``): ``mean`` and ``median`` of the valid votes (an even number
  of votes: the mean of the two middle ones); ``majority``: the score most members gave, a tie between
  scores broken by the median of all valid votes (three members answering 2, 3, 4 give 3).
- Labels without a tie answer (binary, pairwise, each SCU of a Pyramid unit): every aggregate is the
  majority vote (the mean of 0/1 votes above or below 1/2; the median is the same decision); an even
  split goes to the *chair*, the first member in the jury's order that voted.
- Labels with a tie answer (pairwise_tie: 0, 1, 2 = tie): ``mean`` and ``median`` place the answers on
  the preference scale 0 (summary 0) < tie (1/2) < 1 (summary 1) and answer summary 0 below 1/2,
  summary 1 above, tie at exactly 1/2; ``majority``: the answer most members gave, a tie between
  answers giving the tie answer.
"""
from __future__ import annotations

import numpy as np

AGGREGATES = ("mean", "median", "majority")


def n_votes(votes: np.ndarray) -> np.ndarray:
    return (~np.isnan(votes)).sum(axis=1)


def plurality(votes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the answer most members gave, NaN where there is a tie or no vote; which answers tie for
    the most votes, units x answers) with ``answers`` the sorted distinct valid votes."""
    answers = np.unique(votes[~np.isnan(votes)])
    if answers.size == 0:
        return np.full(votes.shape[0], np.nan), np.zeros((votes.shape[0], 0), bool)
    counts = np.stack([(votes == a).sum(axis=1) for a in answers], axis=1)
    top = counts.max(axis=1, keepdims=True)
    tied = (counts == top) & (top > 0)
    single = tied.sum(axis=1) == 1
    winner = np.where(single, answers[tied.argmax(axis=1)], np.nan)
    return winner, tied


def chair(votes: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
    """The vote of the first member (in the jury's order) that voted, among ``allowed`` answers
    (units x members, True where the member's vote may decide)."""
    ok = ~np.isnan(votes) if allowed is None else allowed & ~np.isnan(votes)
    first = ok.argmax(axis=1)
    return np.where(ok.any(axis=1), votes[np.arange(votes.shape[0]), first], np.nan)


def _nan_stat(fn, votes: np.ndarray) -> np.ndarray:
    out = np.full(votes.shape[0], np.nan)
    some = n_votes(votes) > 0
    out[some] = fn(votes[some], axis=1)
    return out


def scores(votes: np.ndarray, aggregate: str) -> np.ndarray:
    """A jury's Likert score per unit (module docstring)."""
    if aggregate == "mean":
        return _nan_stat(np.nanmean, votes)
    if aggregate == "median":
        return _nan_stat(np.nanmedian, votes)
    if aggregate == "majority":
        winner, _ = plurality(votes)
        return np.where(np.isnan(winner), _nan_stat(np.nanmedian, votes), winner)
    raise ValueError(f"aggregate must be one of {AGGREGATES}, not {aggregate!r}")


def labels(votes: np.ndarray, aggregate: str, tie_answer: int | None = None) -> np.ndarray:
    """A jury's label per unit (module docstring); ``tie_answer``: the protocol's tie label, if any."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {AGGREGATES}, not {aggregate!r}")
    if tie_answer is not None:
        return _with_tie(votes, aggregate, tie_answer)
    winner, tied = plurality(votes)
    answers = np.unique(votes[~np.isnan(votes)])
    allowed = np.zeros(votes.shape, bool)
    for j, a in enumerate(answers):
        allowed |= (votes == a) & tied[:, [j]]
    return np.where(np.isnan(winner), chair(votes, allowed), winner)


def _with_tie(votes: np.ndarray, aggregate: str, tie: int) -> np.ndarray:
    if aggregate == "majority":
        winner, _ = plurality(votes)
        return np.where(np.isnan(winner) & (n_votes(votes) > 0), float(tie), winner)
    scale = np.where(votes == tie, 0.5, votes)  # summary 0 < tie < summary 1
    centre = _nan_stat(np.nanmean if aggregate == "mean" else np.nanmedian, scale)
    out = np.where(centre < 0.5, 0.0, np.where(centre > 0.5, 1.0, float(tie)))
    return np.where(np.isnan(centre), np.nan, out)


def agreement(votes: np.ndarray, answer: np.ndarray) -> np.ndarray:
    """The share of the valid votes equal to the jury's ``answer`` (NaN without votes)."""
    n = n_votes(votes)
    same = (votes == answer[:, None]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, same / np.maximum(n, 1), np.nan)
