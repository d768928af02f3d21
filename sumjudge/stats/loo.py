"""Leave-one-out (LOO) references: how well does one annotator agree with the others?

The paper's Table 6 correlates each SummEval expert with the mean of all three
experts, a mean that contains the annotator being scored; that inflates the human
"ceiling". Here each annotator ``a`` is scored against a reference built from the
*other* annotators only (definitions: docs/statistics.md, "Close to the humans"):

- Likert: reference = mean of the other annotators' scores (:func:`others_mean`; NaN
  where none of them scored the summary);
- labels (binary, Pyramid SCU presence; pairwise choices): reference = the majority
  label of the other annotators (:func:`majority`); a tie among them leaves the
  decision out (counted). :func:`loo_labels` scores every annotator and judge so;
- anonymous votes: :func:`loo_exchangeable`, from the counts alone.

The leaderboard's leave-one-out values, their intervals and the closeness verdict
are :mod:`sumjudge.stats.closeness`'s, on these references.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def others_mean(ratings: np.ndarray, a: int) -> np.ndarray:
    """Mean over every annotator but ``a`` of an ``A x D x S`` stack (NaN where none scored)."""
    ratings = np.asarray(ratings, dtype=float)
    rest = np.delete(ratings, a, axis=0)
    valid = ~np.isnan(rest)
    cnt = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, np.where(valid, rest, 0.0).sum(axis=0) / np.maximum(cnt, 1), np.nan)


def majority(labels: np.ndarray) -> np.ndarray:
    """Row-wise majority label of an ``N x K`` array (NaN = no label); NaN on a tie or no label."""
    labels = np.asarray(labels, dtype=float)
    out = np.full(labels.shape[0], np.nan)
    values = np.unique(labels[~np.isnan(labels)])
    if values.size == 0:
        return out
    counts = np.stack([(labels == v).sum(axis=1) for v in values], axis=1)  # N x V
    top = counts.max(axis=1)
    winners = (counts == top[:, None]).sum(axis=1)
    ok = (top > 0) & (winners == 1)
    out[ok] = values[counts[ok].argmax(axis=1)]
    return out


@dataclass(frozen=True)
class LooLabels:
    annotators: list[float]              # accuracy of each annotator against the others' majority
    n: list[int]                         # decisions counted per annotator
    n_ties: list[int]                    # decisions left out because the others tied
    judges: dict[str, float]             # judge -> mean accuracy over splits
    judge_splits: dict[str, list[float]] = field(default_factory=dict)


def loo_labels(votes, judges: dict[str, np.ndarray] | None = None, tie: float | None = None,
               ties: str = "exact") -> LooLabels:
    """LOO rows of a labelled protocol. ``votes``: ``N x A`` labels (NaN = this
    annotator did not label the unit); ``judges``: name -> ``N`` predictions (NaN = invalid reply).

    ``tie``: the label of a tie answer (a protocol with one: ``pairwise_tie``, HELM news); the
    annotator's (or judge's) label is then scored against the others' majority by ``ties``
    (``tables.pairwise_ties``: exact | half | decided, :func:`sumjudge.stats.accuracy.score_ties`),
    the majority playing the human label. Without ``tie``: right when equal."""
    votes = np.asarray(votes, dtype=float)
    if votes.ndim != 2 or votes.shape[1] < 2:
        raise ValueError(f"need an N x A label array with A >= 2 annotators, got shape {votes.shape}")
    judges = {j: np.asarray(p, dtype=float) for j, p in (judges or {}).items()}
    for j, p in judges.items():
        if p.shape != (votes.shape[0],):
            raise ValueError(f"judge {j!r}: {p.shape[0] if p.ndim else 0} predictions for {votes.shape[0]} units")
    tie_label = tie
    acc, ns, n_tied = [], [], []
    splits = {j: [] for j in judges}
    for a in range(votes.shape[1]):
        ref = majority(np.delete(votes, a, axis=1))
        own = votes[:, a]
        labelled = ~np.isnan(own)
        tied = labelled & np.isnan(ref) & (~np.isnan(np.delete(votes, a, axis=1))).any(axis=1)
        use = labelled & ~np.isnan(ref)
        if tie_label is not None and ties == "decided":
            use = use & (ref != tie_label)
        ns.append(int(use.sum()))
        n_tied.append(int(tied.sum()))
        acc.append(_score(own, ref, use, tie_label, ties))
        for j, p in judges.items():
            splits[j].append(_score(p, ref, use & ~np.isnan(p), tie_label, ties))
    means = {j: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for j, v in splits.items()}
    return LooLabels(acc, ns, n_tied, means, splits)


def _score(pred: np.ndarray, ref: np.ndarray, use: np.ndarray, tie: float | None, ties: str) -> float:
    """Mean correctness of ``pred`` against ``ref`` on ``use`` (a tie label scored by ``ties``)."""
    if not use.any():
        return float("nan")
    p, r = pred[use], ref[use]
    c = (p == r).astype(float)
    if tie is not None:
        from .accuracy import score_ties

        c = score_ties(c, p, r, tie, ties)
    return float(np.nanmean(c)) if np.isfinite(c).any() else float("nan")


def votes_from_counts(n_yes, n_votes) -> np.ndarray:
    """An ``N x max(n_votes)`` 0/1 vote array from anonymous counts (REALSumm's SCU votes):
    ``n_yes`` ones, then zeros, NaN beyond a unit's own number of votes. The voters are
    not identified, so only statistics averaged over the vote positions are meaningful."""
    n_yes = np.asarray(n_yes, dtype=int)
    n_votes = np.asarray(n_votes, dtype=int)
    if (n_yes < 0).any() or (n_yes > n_votes).any():
        raise ValueError("every unit needs 0 <= yes votes <= votes")
    width = int(n_votes.max()) if n_votes.size else 0
    pos = np.arange(width)[None, :]
    out = np.where(pos < n_yes[:, None], 1.0, 0.0)
    return np.where(pos < n_votes[:, None], out, np.nan)


# ---------------------------------------------------------------- anonymous votes, order-free

LOO_TIES = ("drop", "half")
LOO_INVALID = ("wrong", "drop")


@dataclass(frozen=True)
class LooExchangeable:
    """The leave-one-out row of anonymous votes (:func:`loo_exchangeable`)."""

    human: float                 # expected accuracy of a random left-out voter
    judge: float                 # the judge against the same references (NaN without a judge)
    human_same_units: float      # the human value on the judge's units (= human unless invalid="drop")
    n_units: int                 # units with at least two votes (and, for the judge under "drop", an answer)
    n_decisions: float           # expected decisions counted (left-out voters whose others did not tie)
    n_tied: float                # expected decisions whose others tied (left out under "drop")
    n_invalid: int = 0           # units with a judge but no valid answer


def _branch_ref(others_yes: np.ndarray, others_n: np.ndarray) -> np.ndarray:
    """Majority of the other voters: 1, 0, or NaN on a tie (or no other voter)."""
    twice = 2 * others_yes
    return np.where(others_n < 1, np.nan, np.where(twice > others_n, 1.0, np.where(twice < others_n, 0.0, np.nan)))


def loo_exchangeable(n_yes, n_votes, judge_pred=None, tie: str = "drop", invalid: str = "wrong") -> LooExchangeable:
    """Leave-one-out row of anonymous binary votes (REALSumm's SCU votes, any slots
    without a person behind them), from the counts alone, so the order of the votes
    never matters (docs/statistics.md, "Anonymous annotators").

    On a unit with k yes of n votes, the left-out voter is drawn at random: a yes
    voter with probability k/n (the others: k-1 yes of n-1), a no voter with (n-k)/n
    (the others: k yes of n-1). The reference is the others' majority; a tie among
    the others is left out (``tie="drop"``, as :func:`loo_labels`) or scores 1/2
    (``half``). Human value = sum over units and branches of P(branch) x right /
    sum of P(branch) over the counted branches. The judge's answer (1/0, NaN = no
    valid answer) is scored against the same references with the same weights; an
    invalid answer is wrong (``invalid="wrong"``: identical units) or leaves the unit
    out for the judge and for ``human_same_units`` (``drop``)."""
    if tie not in LOO_TIES:
        raise ValueError(f"loo tie rule must be one of {LOO_TIES}, not {tie!r}")
    if invalid not in LOO_INVALID:
        raise ValueError(f"loo invalid rule must be one of {LOO_INVALID}, not {invalid!r}")
    k = np.asarray(n_yes, dtype=float)
    n = np.asarray(n_votes, dtype=float)
    if k.shape != n.shape or k.ndim != 1 or (k < 0).any() or (k > n).any():
        raise ValueError("n_yes and n_votes must be equal 1-d counts with 0 <= yes votes <= votes")
    keep = n >= 2
    k, n = k[keep], n[keep]
    pred = None
    if judge_pred is not None:
        pred = np.asarray(judge_pred, dtype=float)
        if pred.shape != keep.shape:
            raise ValueError(f"judge_pred: {pred.size} answers for {keep.size} units")
        pred = pred[keep]
    # branch 1: a yes voter left out; branch 0: a no voter left out
    branches = [(k / n, _branch_ref(k - 1, n - 1), 1.0), ((n - k) / n, _branch_ref(k, n - 1), 0.0)]
    bad = np.isnan(pred) if pred is not None else np.zeros(k.shape, bool)
    judged = ~bad if (pred is not None and invalid == "drop") else np.ones(k.shape, bool)
    num_h = den = tied = num_j = num_hs = den_s = 0.0
    for p, ref, own in branches:
        is_tie = np.isnan(ref)
        w = np.where(is_tie, 0.0 if tie == "drop" else p, p)
        tied += float((p * is_tie).sum())
        right_h = np.where(is_tie, 0.5, (ref == own).astype(float))
        num_h += float((w * right_h).sum())
        den += float(w.sum())
        if pred is not None:
            right_j = np.where(is_tie, np.where(bad, 0.0, 0.5), (pred == ref).astype(float))
            num_j += float((w * right_j * judged).sum())
            num_hs += float((w * right_h * judged).sum())
            den_s += float((w * judged).sum())
    human = num_h / den if den > 0 else float("nan")
    if pred is None:
        return LooExchangeable(human, float("nan"), human, int(k.size), den, tied)
    judge = num_j / den_s if den_s > 0 else float("nan")
    same = num_hs / den_s if den_s > 0 else float("nan")
    return LooExchangeable(human, judge, same, int(judged.sum()), den_s, tied, int(bad.sum()))


def counts_from_votes(votes) -> tuple[np.ndarray, np.ndarray]:
    """(yes votes, votes) per unit of an ``N x K`` 0/1 vote array (NaN = no vote)."""
    v = np.asarray(votes, dtype=float)
    return np.nansum(v, axis=1).astype(int), (~np.isnan(v)).sum(axis=1).astype(int)
