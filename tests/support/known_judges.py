"""Judges whose truth is known, drawn on a dataset's real human labels (docs/statistics.md,
"Calibration of the verdicts"). Seeded and vectorised; shared by the calibration benchmark
(benchmarks/verdict_calibration.py) and its tests.

A :class:`Question` is what one judge answer slot is compared with: a Likert dimension (one slot
per summary) or an accuracy question (one slot per unit; per SCU for a Pyramid dataset). Every kind
answers the slots ``idx`` (indices into the question's slots, repeats allowed: a resampled
dataset) and returns :class:`Answers`: ``slots x samples`` answers (NaN: no valid answer) and the
``underlying`` answers it would have given had it never abstained (the truth is computed on those).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

NOISE = {"noise_low": (0.125, 0.1), "noise_mid": (0.25, 0.25), "noise_high": (0.5, 0.4)}  # (sd / range, flip p)
PER_SAMPLE = (0.375, 1 / 3)          # the repeated judge's noise per sample, between mid and high
NEAR = {"near85": 0.85, "near94": 0.94, "near99": 0.99}   # near-constant shares
MOSTLY_FIRST = 0.77                                        # the audit's 75-79 % first, not gated
INVALID_SHARE = 0.049                                      # just under the parse gate's 5 %
SAMPLES = 5


@dataclass(frozen=True)
class Question:
    """One dimension or accuracy question of a dataset, per answer slot."""

    name: str                            # the dimension or the gold column
    ref: np.ndarray                      # the reference: the annotators' mean (Likert) or majority label
    values: np.ndarray                   # the answers a judge may give (Likert: the scale's integers)
    unit: np.ndarray                     # slot -> unit (row of the prepared table)
    length: np.ndarray                   # slot -> words of the judged summary (pairwise: slots x 2)
    likert: bool
    model: object = None                 # a fitted latent-truth model (None: no annotators to fit)

    @property
    def mode(self) -> float:
        v, c = np.unique(self.rounded(self.ref), return_counts=True)
        return float(v[c.argmax()])

    def rounded(self, x: np.ndarray) -> np.ndarray:
        return np.clip(np.round(x), self.values[0], self.values[-1]) if self.likert else x


@dataclass(frozen=True)
class Answers:
    samples: np.ndarray          # slots x samples, NaN = invalid
    underlying: np.ndarray       # the same before any abstention

    @classmethod
    def of(cls, a: np.ndarray) -> "Answers":
        a = a[:, None] if a.ndim == 1 else a
        return cls(a, a)


@dataclass(frozen=True)
class Kind:
    name: str
    draw: Callable[[Question, np.ndarray, np.random.Generator], Answers]
    uninformative: bool = False   # carries no information about the units: the alt-test must not pass it
    pairwise_only: bool = False
    needs_model: bool = False
    doc: str = ""
    tags: tuple[str, ...] = field(default=())


# ----------------------------------------------------------------------------- answers

def _noisy(q: Question, idx, rng, level) -> np.ndarray:
    sd, p = NOISE[level] if isinstance(level, str) else level
    if q.likert:
        return q.rounded(q.ref[idx] + sd * (q.values[-1] - q.values[0]) * rng.standard_normal(len(idx)))
    return _flip(q, q.ref[idx], p, rng)


def _flip(q: Question, ref: np.ndarray, p: float, rng) -> np.ndarray:
    """``ref`` with a share ``p`` replaced by a uniformly drawn other label."""
    other = _other(q, ref, rng)
    return np.where(rng.random(len(ref)) < p, other, ref)


def _other(q: Question, x: np.ndarray, rng) -> np.ndarray:
    """A value of ``q.values`` other than ``x``, uniformly, per slot."""
    k = len(q.values)
    pos = np.searchsorted(q.values, x)
    return q.values[(pos + rng.integers(1, k, len(x))) % k]


def _random(q, idx, rng) -> np.ndarray:
    return q.values[rng.integers(0, len(q.values), len(idx))].astype(float)


def _near(q: Question, idx, rng, share: float, informative: bool) -> np.ndarray:
    """The modal answer on ``share`` of the slots; elsewhere the reference (``informative``,
    on the slots furthest from the mode) or a non-modal answer drawn from the reference's."""
    n, mode = len(idx), q.mode
    ref = q.rounded(q.ref[idx])
    k = int(round(share * n))
    if informative:
        far = np.abs(ref - mode) + rng.random(n) * 1e-3            # ties broken at random
        out = ref.copy()
        out[np.argsort(far)[:k]] = mode
        return out
    others = ref[ref != mode] if (ref != mode).any() else _other(q, np.full(n, mode), rng)
    out = rng.choice(others, n)
    out[rng.permutation(n)[:k]] = mode
    return out


def _longer(q: Question, idx, rng) -> np.ndarray:
    """Answers rising with the judged summary's length (pairwise: the longer summary)."""
    n = len(idx)
    if q.length.ndim == 2:
        a, b = q.length[idx, 0], q.length[idx, 1]
        return np.where(a == b, rng.integers(0, 2, n), (b > a).astype(int)).astype(float)
    order = np.argsort(q.length[idx] + rng.random(n) * 1e-3)       # shortest first, ties at random
    out = np.empty(n)
    out[order] = np.sort(q.rounded(q.ref[idx]))                     # the reference's answers, by length
    return out


def _first(q, idx, rng, share: float) -> np.ndarray:
    return np.where(rng.random(len(idx)) < share, 0.0, _other(q, np.zeros(len(idx)), rng))


def _invalid(q: Question, idx, rng) -> Answers:
    """``noise_mid``, abstaining on the 4.9 % of units furthest from the reference (a Pyramid
    unit: the share of its SCUs answered wrong)."""
    a = _noisy(q, idx, rng, "noise_mid")
    units, slot_unit = np.unique(q.unit[idx], return_inverse=True)
    err = np.bincount(slot_unit, np.abs(a - q.ref[idx])) / np.bincount(slot_unit)
    worst = np.argsort(-(err + rng.random(len(units)) * 1e-6))[:int(INVALID_SHARE * len(units))]
    out = np.where(np.isin(slot_unit, worst), np.nan, a)
    return Answers(out[:, None], a[:, None])


def _repeats(q, idx, rng) -> Answers:
    return Answers.of(np.stack([_noisy(q, idx, rng, PER_SAMPLE) for _ in range(SAMPLES)], axis=1))


def _peer(q: Question, idx, rng) -> np.ndarray:
    return q.model.peer(idx, rng)     # the models are fitted per slot


def _plain(f, **kw) -> Callable:
    return lambda q, idx, rng: Answers.of(np.asarray(f(q, idx, rng, **kw), dtype=float))


KINDS: dict[str, Kind] = {k.name: k for k in [
    Kind("reference", _plain(lambda q, idx, rng: q.ref[idx]), doc="the annotators' mean (Likert) or majority"),
    Kind("peer", _plain(_peer), needs_model=True, doc="one more annotator, from the latent-truth model"),
    *[Kind(n, _plain(_noisy, level=n), doc=f"reference + N(0, ({sd:g} x range)^2), rounded / {p:g} relabelled")
      for n, (sd, p) in NOISE.items()],
    Kind("random", _plain(_random), True, doc="uniform over the answers"),
    Kind("shuffled", _plain(lambda q, idx, rng: rng.permutation(q.ref[idx])), True,
         doc="the reference permuted over the units (same answers, no information)"),
    Kind("constant", _plain(lambda q, idx, rng: np.full(len(idx), q.mode)), True, doc="the modal answer"),
    *[Kind(n, _plain(_near, share=s, informative=False), True, doc=f"the mode on {s:.0%}, else random")
      for n, s in NEAR.items()],
    *[Kind(n + "i", _plain(_near, share=s, informative=True), doc=f"the mode on {s:.0%}, else the reference")
      for n, s in NEAR.items()],
    Kind("first", _plain(_first, share=1.0), True, pairwise_only=True, doc="always the first summary"),
    Kind("mostly_first", _plain(_first, share=MOSTLY_FIRST), True, pairwise_only=True,
         doc=f"the first summary {MOSTLY_FIRST:.0%}, else another answer at random"),
    Kind("longer", _plain(_longer), doc="answers rising with length (pairwise: the longer summary)"),
    Kind("invalid", _invalid, doc=f"noise_mid, abstaining on the {INVALID_SHARE:.1%} of units it gets most wrong"),
    Kind("repeats", _repeats, doc=f"{SAMPLES} samples, each reference + N(0, ({PER_SAMPLE[0]:g} x range)^2) "
                                  f"rounded / {PER_SAMPLE[1]:.2f} relabelled"),
]}


def kinds_for(q: Question, pairwise: bool, names=None) -> list[str]:
    """The kinds that apply to ``q`` (position bias: pairwise only; the peer: fitted annotators)."""
    return [n for n, k in KINDS.items() if (names is None or n in names)
            and (pairwise or not k.pairwise_only) and (q.model is not None or not k.needs_model)]
