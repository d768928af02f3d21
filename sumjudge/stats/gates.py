"""Validity gates of one judge in one column (definitions: docs/statistics.md,
"Gates before verdicts"). A judge that a gate flags takes no rank and no alt-test
verdict there (the caller's job; :func:`alt_test_allowed` says whether and why).

- :func:`dispersion_gate` (scores, any scale): the judge's answers spread much less than
  the humans' own on the same units. With sd_J the standard deviation of the judge's
  valid answers, every sample's answer counted (so that averaging samples cannot make a
  near-constant judge look varied), and sd_H the smallest of any single annotator's
  with at least ``min_units`` labels and of the reference's (so a judge equal to the
  reference or to an annotator is never flagged unless constant):

      flagged  <=>  sd_J = 0   or   sd_J < ratio * sd_H

  A ratio of standard deviations does not depend on the scale (1-5 or 0-100).
- :func:`near_constant` (labels): the judge's answers are much less varied than the
  humans' own on the same units. With s_J the judge's modal share (share of its valid
  answers equal to its most frequent answer) and s_H the largest modal share of
  any single annotator with at least ``min_units`` (30) labels (each on the units it
  labelled), or of the reference when there are no per-annotator labels (also counted
  when given beside them):

      flagged  <=>  s_J = 1                                  (a constant judge)
                or  s_J > threshold  and  1 - s_J < ratio * (1 - s_H)

  so a judge is flagged when its non-modal share is under ``ratio`` (0.5) times the
  humans' and its modal share above ``threshold`` (``tables.near_constant``, 0.8).
  A judge equal to the reference (or to any annotator) has s_J <= s_H, so it is
  never flagged unless it is constant.
- :func:`parse_gate`: the share of the dataset's units (not the rows present:
  a file that covers half the units has a parse rate of at most 0.5) with a valid
  answer must be at least ``threshold``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

_TOL = 1e-12  # shares are ratios of counts: equal within rounding is equal


@dataclass(frozen=True)
class Gate:
    flagged: bool
    judge: float                # the judge's modal share (labels) or standard deviation (scores)
    human: float                # the most concentrated human's share / the smallest human SD
    reason: str = ""            # why flagged (empty when not)
    measure: str = "modal share"

    def to_params(self) -> dict[str, float]:
        """Plain values: what the table rules pass as their param ``gate``."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: dict[str, float]) -> "NearConstantGate":
        return cls(**params)


@dataclass(frozen=True)
class ParseGate:
    flagged: bool
    parse_rate: float           # valid answers / the dataset's units
    n_valid: int
    n_units: int
    reason: str = ""

    def to_params(self) -> dict[str, float]:
        """Plain values: what the table rules pass as their param ``gate``."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: dict[str, float]) -> "NearConstantGate":
        return cls(**params)


def modal_share(labels) -> float:
    """Share of the non-NaN ``labels`` equal to the most frequent one (NaN if none).

    Values are compared after rounding to 9 decimals, so a mean of integer scores
    (4.666...) counts as one value."""
    x = np.asarray(labels, dtype=float).ravel()
    x = np.round(x[~np.isnan(x)], 9)
    if x.size == 0:
        return float("nan")
    return float(np.unique(x, return_counts=True)[1].max() / x.size)


def near_constant(judge_labels, annotator_labels, threshold: float = 0.8, ratio: float = 0.5,
                  reference=None, min_units: int = 30) -> Gate:
    """The near-constant gate of one judge in one column (module docstring).

    ``judge_labels``: N answers (NaN = no valid answer); ``annotator_labels``: N x A
    per-annotator labels (NaN = not labelled), or N reference labels (1-d) when the
    dataset has no per-annotator labels; ``reference``: N reference labels, counted
    beside the annotators (optional). An annotator with fewer than ``min_units`` labels
    (a crowd worker who saw a few units: its share says little) is not counted; a 1-d
    reference always is."""
    judge = np.asarray(judge_labels, dtype=float)
    humans = np.asarray(annotator_labels, dtype=float)
    humans = humans[:, None] if humans.ndim == 1 else humans
    if humans.shape[0] != judge.shape[0]:
        raise ValueError(f"near_constant: {judge.shape[0]} judge answers but {humans.shape[0]} rows of "
                         "annotator labels; pass the column's units in the same order")
    counted = (~np.isnan(humans)).sum(axis=0)
    shares = [modal_share(humans[:, a]) for a in range(humans.shape[1])
              if counted[a] >= min_units or np.ndim(annotator_labels) == 1]
    if reference is not None:
        shares.append(modal_share(reference))
    shares = [s for s in shares if not np.isnan(s)]
    s_h = max(shares) if shares else float("nan")
    s_j = modal_share(judge)
    if np.isnan(s_j):
        return Gate(False, s_j, s_h, "")
    if s_j >= 1.0:
        return Gate(True, s_j, s_h, "near-constant: one answer for every unit")
    if np.isnan(s_h):
        return Gate(False, s_j, s_h, "")
    if s_j > threshold + _TOL and (1 - s_j) < ratio * (1 - s_h) - _TOL:
        return Gate(True, s_j, s_h, f"near-constant: modal share {s_j:.3f} above {threshold:g}, and its other "
                    f"answers ({1 - s_j:.3f}) under {ratio:g} x the humans' ({1 - s_h:.3f})")
    return Gate(False, s_j, s_h, "")


def dispersion_gate(judge_answers, annotator_labels, ratio: float = 0.25, reference=None,
                    min_units: int = 30) -> Gate:
    """The near-constant gate of a scored column (module docstring). ``judge_answers``: N
    answers or N x samples (every valid sample counts); ``annotator_labels``: N x A (NaN =
    not labelled) or N reference labels; ``reference``: N labels counted beside them."""
    judge = np.asarray(judge_answers, dtype=float).ravel()
    judge = judge[~np.isnan(judge)]
    humans = np.asarray(annotator_labels, dtype=float)
    humans = humans[:, None] if humans.ndim == 1 else humans
    cols = [humans[:, a] for a in range(humans.shape[1])
            if (~np.isnan(humans[:, a])).sum() >= min_units or np.ndim(annotator_labels) == 1]
    cols += [np.asarray(reference, dtype=float)] if reference is not None else []
    sds = [float(np.nanstd(c)) for c in cols if (~np.isnan(c)).sum() >= 2]
    sd_h = min(sds) if sds else float("nan")
    if judge.size == 0:
        return Gate(False, float("nan"), sd_h, "", "SD")
    sd_j = float(judge.std())
    if sd_j <= _TOL:
        return Gate(True, sd_j, sd_h, "near-constant: one answer for every unit", "SD")
    if not np.isnan(sd_h) and sd_j < ratio * sd_h - _TOL:
        return Gate(True, sd_j, sd_h, f"near-constant: its answers' SD {sd_j:.3g} under {ratio:g} x the "
                    f"least dispersed human's ({sd_h:.3g})", "SD")
    return Gate(False, sd_j, sd_h, "", "SD")


@dataclass(frozen=True)
class NearConstantGate:
    """The near-constant gate's parameters, one definition for every page: the leaderboard greys
    and the tables stage flags with it (config ``tables.near_constant`` as ``threshold``,
    ``leaderboard.near_constant_ratio`` as ``ratio``, ``leaderboard.near_constant_sd_ratio`` as
    ``sd_ratio``; built by :meth:`sumjudge.leaderboard.settings.LeaderboardSettings.gate`, so it
    has no defaults of its own: the settings' are the defaults, sumjudge/settings.py)."""

    threshold: float
    ratio: float
    sd_ratio: float

    def scored(self, answers, humans, reference=None) -> Gate:
        """:func:`dispersion_gate` (a score on any scale, every sample counted)."""
        return dispersion_gate(answers, humans, self.sd_ratio, reference)

    def labels(self, answers, humans, reference=None) -> Gate:
        """:func:`near_constant` (labels)."""
        return near_constant(answers, humans, self.threshold, self.ratio, reference)

    def to_params(self) -> dict[str, float]:
        """Plain values: what the table rules pass as their param ``gate``."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: dict[str, float]) -> "NearConstantGate":
        return cls(**params)


def parse_gate(n_valid: int, n_units: int, threshold: float = 0.95) -> ParseGate:
    """Parse-rate gate: valid answers over the dataset's ``n_units`` (not the rows present)."""
    if n_units <= 0:
        return ParseGate(True, float("nan"), int(n_valid), int(n_units), "no units")
    if n_valid > n_units:
        raise ValueError(f"parse_gate: {n_valid} valid answers for {n_units} units; count each unit once "
                         "(one aggregated answer per unit)")
    rate = n_valid / n_units
    if rate < threshold:
        return ParseGate(True, rate, int(n_valid), int(n_units),
                         f"parse rate {rate:.3f} ({n_valid} of {n_units} units) under {threshold:g}")
    return ParseGate(False, rate, int(n_valid), int(n_units), "")


def alt_test_allowed(*gates) -> tuple[bool, str]:
    """(allowed, reason): the alt-test (and a rank) may run only when no gate flags the judge.

    ``gates``: any :class:`Gate` / :class:`ParseGate` (or None, ignored). The reason is
    ``"not tested: <the flagged gates' reasons>"``, empty when allowed."""
    why = [g.reason or "flagged" for g in gates if g is not None and g.flagged]
    return (False, "not tested: " + "; ".join(why)) if why else (True, "")
