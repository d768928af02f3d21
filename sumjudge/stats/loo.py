"""Leave-one-out (LOO) human rows: how well does one annotator agree with the others?

The paper's Table 6 correlates each SummEval expert with the mean of all three
experts, a mean that contains the annotator being scored; that inflates the human
"ceiling". Here each annotator ``a`` is scored against a reference built from the
*other* annotators only, with the same level and statistic as the judges
(definitions: docs/statistics.md, "The judge leaderboard"):

- Likert: reference = mean of the other annotators' scores (NaN where none of
  them scored the summary); the annotator's own scores are correlated with it at
  the sample, system and dataset level (:func:`sumjudge.stats.matrix.levels_stack`).
- Labels (binary, Pyramid SCU presence; pairwise choices): reference = the
  majority label of the other annotators; a tie among them leaves the decision
  out (counted). Accuracy = share of decisions where the annotator's label equals
  the reference.

A judge is scored against the same references: once per split ``a`` (on the
units that annotator ``a`` labelled), and the values are averaged over splits.
So judge and humans are measured on one ruler.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .matrix import LEVELS, levels_stack


@dataclass(frozen=True)
class LooLikert:
    """Per level: each annotator's value against the others' mean, and each judge's average over splits."""

    annotators: dict[str, list[float]]          # level -> value per annotator
    judges: dict[str, dict[str, float]]         # judge -> level -> mean over splits
    judge_splits: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # judge -> level -> per split
    n_cells: list[int] = field(default_factory=list)  # per annotator: summaries with own and reference score


def others_mean(ratings: np.ndarray, a: int) -> np.ndarray:
    """Mean over every annotator but ``a`` of an ``A x D x S`` stack (NaN where none scored)."""
    ratings = np.asarray(ratings, dtype=float)
    rest = np.delete(ratings, a, axis=0)
    valid = ~np.isnan(rest)
    cnt = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, np.where(valid, rest, 0.0).sum(axis=0) / np.maximum(cnt, 1), np.nan)


def loo_likert(ratings, judges: dict[str, np.ndarray] | None = None, method: str = "spearman",
               undefined: str = "zero") -> LooLikert:
    """LOO rows of one Likert dimension.

    ``ratings``: ``A x D x S`` (annotators x documents x systems, NaN = not rated);
    ``judges``: name -> ``D x S`` judge scores. Needs at least two annotators."""
    ratings = np.asarray(ratings, dtype=float)
    if ratings.ndim != 3 or ratings.shape[0] < 2:
        raise ValueError(f"need an A x D x S stack with A >= 2 annotators, got shape {ratings.shape}")
    judges = judges or {}
    for name, m in judges.items():
        if np.shape(m) != ratings.shape[1:]:
            raise ValueError(f"judge {name!r}: scores of shape {np.shape(m)} do not fit {ratings.shape[1:]}")
    ann = {lv: [] for lv in LEVELS}
    splits = {j: {lv: [] for lv in LEVELS} for j in judges}
    n_cells = []
    for a in range(ratings.shape[0]):
        ref = others_mean(ratings, a)
        own = ratings[a]
        n_cells.append(int((~np.isnan(own) & ~np.isnan(ref)).sum()))
        res = levels_stack(own, ref, method, undefined)
        for lv in LEVELS:
            ann[lv].append(float(res[lv]))
        # the judge on the units annotator a scored (identical units), against a's reference
        mask = ~np.isnan(own)
        for j, m in judges.items():
            jr = levels_stack(np.where(mask, np.asarray(m, dtype=float), np.nan), ref, method, undefined)
            for lv in LEVELS:
                splits[j][lv].append(float(jr[lv]))
    means = {j: {lv: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for lv, v in d.items()}
             for j, d in splits.items()}
    return LooLikert(ann, means, splits, n_cells)


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
