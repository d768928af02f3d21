"""Latent-truth models fitted to a dataset's annotators, from which an annotator-quality judge
that is none of them is drawn (docs/statistics.md, "Calibration of the verdicts").

- Scores (:func:`fit_likert`): annotator ``a`` gives unit ``u`` the score
  ``x_ua = mu_u + b_a + e_ua``, ``e_ua ~ N(0, s_a^2)`` (rounding and the scale's ends ignored
  in the fit). Biases by alternating means (centred, sum 0); noise variances from the
  residuals' expected squares, ``E r_ua^2 = s_a^2 (1 - 2/A_u) + sum_{k in u} s_k^2 / A_u^2``,
  solved by least squares; a normal prior on ``mu`` from the spread of the unit means. A new
  judge draws ``mu_u`` from its posterior given the annotators' scores, adds an unbiased
  typical annotator's noise (root mean square of the ``s_a``), rounds and clips to the scale:
  the posterior predictive of one more annotator.
- Labels (:func:`fit_dawid_skene`): Dawid and Skene (1979): a latent class per unit, a class
  prior and one confusion matrix per annotator (``shared``: one for all, when the annotators are
  anonymous votes), fitted by EM from the majority vote, confusion counts smoothed by
  ``alpha``. A new judge draws the class from its posterior and a label from the annotators'
  mean confusion matrix (weighted by how many labels each gave).
- A simulated panel (:meth:`LikertModel.panel`, :meth:`DawidSkene.panel`): the leak-free positive control. One latent
  score per unit drawn from its posterior, then from that same draw fresh annotators (each with
  its fitted bias and noise, labelling exactly the units the real one labelled) and a judge that
  is one more unbiased typical annotator. The judge is compared with the simulated annotators,
  never with the real labels the posterior conditions on: given the latent score the judge and
  the panel are independent, as a real annotator and the others are.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LikertModel:
    bias: np.ndarray        # per annotator
    noise: np.ndarray       # per annotator, the sd s_a
    mean: np.ndarray        # per unit, the latent score's posterior mean
    sd: np.ndarray          # ... and posterior sd
    scale: tuple[float, float]
    columns: np.ndarray | None = None   # the fitted annotators' columns in the labels given (None: all)

    @property
    def typical_noise(self) -> float:
        return float(np.sqrt(np.mean(self.noise ** 2)))

    def peer(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One annotator-quality score for each unit of ``idx`` (unit indices, repeats allowed)."""
        mu = self.mean[idx] + self.sd[idx] * rng.standard_normal(len(idx))
        x = mu + self.typical_noise * rng.standard_normal(len(idx))
        return np.clip(np.round(x), *self.scale)

    def panel(self, idx: np.ndarray, labelled: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(annotators, judge) simulated on the units ``idx`` (unit indices, repeats allowed):
        ``labelled`` (len(idx) x the fitted annotators, bool) says which annotator labels which
        unit, the real pattern of missing labels; the only thing of the real labels read here.
        One latent score per slot from its posterior; annotator ``a``'s score ``mu + b_a + s_a
        e``, the judge's ``mu + s e`` (``s``: :attr:`typical_noise`, no bias); rounded, clipped."""
        mu = self.mean[idx] + self.sd[idx] * rng.standard_normal(len(idx))
        x = mu[:, None] + self.bias + self.noise * rng.standard_normal((len(idx), len(self.bias)))
        judge = mu + self.typical_noise * rng.standard_normal(len(idx))
        lab = np.where(labelled, np.clip(np.round(x), *self.scale), np.nan)
        return lab, np.clip(np.round(judge), *self.scale)


def _biases(x: np.ndarray, rounds: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """(unit means net of bias, annotator biases) by alternating means."""
    b = np.zeros(x.shape[1])
    for _ in range(rounds):
        mu = np.nanmean(x - b, axis=1)
        b = np.nanmean(x - mu[:, None], axis=0)
        b -= b.mean()
    return np.nanmean(x - b, axis=1), b


def _noise(x: np.ndarray, mu: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-annotator noise variances from the residuals (module docstring)."""
    obs = ~np.isnan(x)
    many = obs.sum(axis=1) >= 2                       # a unit with one label has no residual
    obs, r = obs[many], (x - mu[:, None] - b)[many]
    n_u = obs.sum(axis=1).astype(float)[:, None]
    own = obs * (1 - 2 / n_u)                          # coefficient of s_a^2 in E r_ua^2
    cross = obs / n_u ** 2                             # ... of s_k^2, for every k on the unit
    count = obs.sum(axis=0)
    m = np.einsum("ua,uk->ak", obs.astype(float), cross) / count[:, None] + np.diag(own.sum(axis=0) / count)
    target = np.nansum(np.where(obs, r, np.nan) ** 2, axis=0) / count
    return np.clip(np.linalg.lstsq(m, target, rcond=None)[0], 1e-6, None)


def fit_likert(labels, scale: tuple[float, float]) -> LikertModel:
    """The score model of ``labels`` (units x annotators, NaN = not scored; module docstring)."""
    x = np.asarray(labels, dtype=float)
    columns = np.flatnonzero((~np.isnan(x)).any(axis=0))
    x = x[:, columns]                                  # an empty annotator column (DialSummEval) says nothing
    obs = ~np.isnan(x)
    seen = obs.any(axis=1)                             # a unit nobody scored keeps the prior
    mu, b = _biases(x[seen])
    var = _noise(x[seen], mu, b)
    mean_noise = (obs[seen] * var).sum(axis=1) / obs[seen].sum(axis=1) ** 2   # what the noise adds to mu_u
    m0, tau2 = float(mu.mean()), max(float(mu.var() - mean_noise.mean()), 1e-6)
    precision = 1 / tau2 + (obs / var).sum(axis=1)
    post = (m0 / tau2 + np.where(obs, (x - b) / var, 0.0).sum(axis=1)) / precision
    return LikertModel(b, np.sqrt(var), post, 1 / np.sqrt(precision), (float(scale[0]), float(scale[1])),
                       columns)


@dataclass(frozen=True)
class DawidSkene:
    prior: np.ndarray        # K, the classes' shares
    confusion: np.ndarray    # A x K x K: P(label l | class j) per annotator (one row: shared)
    posterior: np.ndarray    # N x K
    weights: np.ndarray      # A, labels given (the typical annotator's weights)

    @property
    def typical(self) -> np.ndarray:
        return np.einsum("a,ajl->jl", self.weights / self.weights.sum(), self.confusion)

    def peer(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One annotator-quality label (0..K-1) for each unit of ``idx``."""
        z = _categorical(self.posterior[idx], rng)
        return _categorical(self.typical[z], rng).astype(float)

    def panel(self, idx: np.ndarray, labelled: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(annotators, judge) simulated on the units ``idx``, as :meth:`LikertModel.panel`: one
        latent class per slot from its posterior; annotator ``a`` labels the units ``labelled``
        says it labelled, from its own confusion row; the judge from the typical one."""
        z = _categorical(self.posterior[idx], rng)
        conf = self.confusion if len(self.confusion) == labelled.shape[1] else np.repeat(
            self.confusion, labelled.shape[1], axis=0)                 # shared: one matrix for every slot
        lab = np.stack([_categorical(conf[a, z], rng) for a in range(labelled.shape[1])], axis=1).astype(float)
        judge = _categorical(self.typical[z], rng).astype(float)
        return np.where(labelled, lab, np.nan), judge


def _categorical(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of the probability rows ``p``."""
    return (rng.random(p.shape[0])[:, None] > np.cumsum(p, axis=1)[:, :-1]).sum(axis=1)


def _triples(labels: np.ndarray, shared: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(unit, annotator, label) of every label given; ``shared``: one annotator for all."""
    x = np.asarray(labels, dtype=float)
    u, a = np.nonzero(~np.isnan(x))
    return u, (np.zeros_like(a) if shared else a), x[u, a].astype(int), 1 if shared else x.shape[1]


def fit_dawid_skene(labels, k: int, shared: bool = False, alpha: float = 1.0, iters: int = 500,
                    tol: float = 1e-6) -> DawidSkene:
    """EM for ``labels`` (units x annotators, classes 0..k-1, NaN = not labelled; module docstring)."""
    u, a, lab, n_a = _triples(labels, shared)
    n = np.shape(labels)[0]
    t = np.full((n, k), 1e-3)
    np.add.at(t, (u, lab), 1.0)                        # majority vote, softened
    t /= t.sum(axis=1, keepdims=True)
    for _ in range(iters):
        counts = np.full((n_a, k, k), alpha / k)
        np.add.at(counts, (a, slice(None), lab), t[u])
        conf = counts / counts.sum(axis=2, keepdims=True)
        log_t = np.tile(np.log(t.mean(axis=0)), (n, 1))
        np.add.at(log_t, u, np.log(conf[a, :, lab]))
        new = np.exp(log_t - log_t.max(axis=1, keepdims=True))
        new /= new.sum(axis=1, keepdims=True)
        done = np.abs(new - t).max() < tol
        t = new
        if done:
            break
    return DawidSkene(t.mean(axis=0), conf, t, np.bincount(a, minlength=n_a).astype(float))
