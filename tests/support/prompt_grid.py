"""Simulated prompt grids with known truth (tests/robustness, benchmarks/prompt_family_design.py).

A stand-in judge: every unit has a latent quality ``t`` (the human score is ``t`` plus
annotator noise, rounded to 1-5) and a judge-side opinion ``u`` shared by every prompt;
prompt ``p`` scores ``round(clip(3 + w_p * t + (1 - w_p) * u + sd * noise))`` where
``w_p`` (its weight on the truth) is the prompt effect and the noise is fresh per prompt
and unit (sampling noise). ``bias`` and ``stretch`` make prompts differ in how they use the
scale too: prompt ``p`` scores ``round(clip(3 + bias_p + stretch_p * (w_p t + (1 - w_p) u + sd * noise)))``
(defaults 0 and 1: the plain stand-in). ``invalid`` gives each prompt's rate of missing replies."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StandIn:
    """A drawn stand-in with what made it: the latent qualities ``t`` and the judge's shared
    opinion ``u`` (``D x S``), each prompt's weight, offset and stretch, and the noise SD;
    :meth:`fresh` redraws a prompt's replies with new noise (the benchmark's oracle)."""
    scores: np.ndarray
    human: np.ndarray
    t: np.ndarray
    u: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    stretch: np.ndarray
    noise: float

    def fresh(self, p: int, docs: np.ndarray, rng, draws: int) -> np.ndarray:
        """``draws x len(docs) x S``: prompt ``p``'s replies on ``docs`` with fresh noise."""
        w, t, u = self.weights[p], self.t[docs], self.u[docs]
        latent = w * t + (1 - w) * u + rng.normal(0, self.noise, (draws, *t.shape))
        return np.clip(np.round(3 + self.bias[p] + self.stretch[p] * latent), 1, 5)


def stand_in(n_prompts=10, n_docs=60, n_systems=16, weights=None, noise=0.6, invalid=None, seed=0, bias=None,
             stretch=None) -> StandIn:
    """The stand-in of :func:`grid` with its truth (same draws for the same arguments)."""
    rng = np.random.default_rng(seed)
    sys_effect = rng.normal(0, 0.5, n_systems)
    t = rng.normal(0, 1, (n_docs, n_systems)) + sys_effect
    u = rng.normal(0, 1, (n_docs, n_systems))
    human = np.clip(np.round(3 + t + rng.normal(0, 0.5, t.shape)), 1, 5)
    w = np.full(n_prompts, 0.6) if weights is None else np.asarray(weights, dtype=float)
    bias = np.zeros(len(w)) if bias is None else np.asarray(bias, dtype=float)
    stretch = np.ones(len(w)) if stretch is None else np.asarray(stretch, dtype=float)
    scores = np.stack([np.clip(np.round(3 + b + k * (wp * t + (1 - wp) * u + rng.normal(0, noise, t.shape))), 1, 5)
                       for wp, b, k in zip(w, bias, stretch)])
    if invalid is not None:
        for p, rate in enumerate(invalid):
            scores[p][rng.random(t.shape) < rate] = np.nan
    return StandIn(scores, human, t, u, w, bias, stretch, noise)


def grid(n_prompts=10, n_docs=60, n_systems=16, weights=None, noise=0.6, invalid=None, seed=0, bias=None, stretch=None):
    """(scores P x D x S, human D x S, the prompts' weights)."""
    s = stand_in(n_prompts, n_docs, n_systems, weights, noise, invalid, seed, bias, stretch)
    return s.scores, s.human, s.weights
