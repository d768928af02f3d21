"""Simulated prompt grids with known truth (tests/robustness, benchmarks/prompt_family_design.py).

A stand-in judge: every unit has a latent quality ``t`` (the human score is ``t`` plus
annotator noise, rounded to 1-5) and a judge-side opinion ``u`` shared by every prompt;
prompt ``p`` scores ``round(clip(3 + w_p * t + (1 - w_p) * u + sd * noise))`` where
``w_p`` (its weight on the truth) is the prompt effect and the noise is fresh per prompt
and unit (sampling noise). ``bias`` and ``stretch`` make prompts differ in how they use the
scale too: prompt ``p`` scores ``round(clip(3 + bias_p + stretch_p * (w_p t + (1 - w_p) u + sd * noise)))``
(defaults 0 and 1: the plain stand-in). ``invalid`` gives each prompt's rate of missing replies."""
from __future__ import annotations

import numpy as np


def grid(n_prompts=10, n_docs=60, n_systems=16, weights=None, noise=0.6, invalid=None, seed=0, bias=None, stretch=None):
    """(scores P x D x S, human D x S, the prompts' weights)."""
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
    return scores, human, w
