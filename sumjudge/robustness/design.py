"""The subset design: a family's quantiles at a few times the cost of one prompt
(definitions: docs/robustness.md, "The subset design").

**Assignment** (:mod:`.assignment`). Documents are sorted by a stratification key known
before any request (the pipeline's: the article's length); each document gets ``k``
prompts (``k = prompts_per_document``; a fractional ``k`` such as 2.5 alternates the floor
and the ceiling), dealt from seeded random permutations of the prompts, the least used so
far first, a fresh permutation when the current one runs out (so every prompt scores at
most once per block of consecutive documents, the prompts' counts differ by at most one,
every prompt's documents spread over the key's whole range, and the random deals connect
every pair of prompts through shared documents). The requests are ``k`` times those of one
prompt over the dataset.

**Estimator** (every level, from one fitted model and one set of simulated copies). It borrows strength at the level of the summaries, as PromptEval (Maia Polo et al. 2024)
does, with a one-factor model of every prompt's scores beside the human score:

    y_pds = alpha_p + gamma_p h_ds + beta_p z_ds + e_pds,   z_ds ~ N(0, 1),  e_pds ~ N(0, sigma_p^2)

(``h``: the human score; ``z``: the judge's view of summary ``(d, s)`` that the prompts
share beyond it; ``alpha_p`` and the sizes of ``gamma_p``, ``beta_p``, ``sigma_p`` are each
prompt's bias, scale use and noise), fitted by EM on the valid scored replies
(:func:`factor_fit`). :func:`complete_grids` then completes every prompt's grid
``IMPUTATIONS`` times: scored cells observed; unscored cells simulated (``z`` drawn from
its posterior given the prompts that did score the summary, one draw per copy shared by
every prompt; fresh noise ``e``; scores on a grid, such as a Likert scale, put back on it,
rounded within the range the prompt used, with the rounding's share ``step^2 / 12`` taken
out of ``sigma_p^2`` first (Sheppard's correction); each unit invalid at the prompt's
observed invalid rate). Each level is read off those copies (:func:`level_estimates`):

- sample: a scored cell keeps its observed per-document correlation, an unscored cell
  ``(p, d)`` gets the mean over the copies of its correlation (:func:`expected_correlations`);
  prompt ``p``'s estimate is the mean over documents of its cells;
- system and dataset: each copy's correlation at the level, computed as the full grid
  computes it (:func:`grid_levels`: ``stats.matrix.levels_stack``, invalid units first
  scored per the estimand and the level by ``spread.scored_matrix``), averaged over the
  copies (these levels are not additive over documents, so they need the whole grid).

The estimates carry the noise of the fitted parameters, which widens their spread, and
lack the noise of the unscored cells' own replies (averaged over the copies), which
narrows it; so before taking quantiles, per level, they are moved towards or away from their
mean (constrained Bayes, Louis 1984): ``r~_p = m + lam (r^_p - m)`` with
``lam^2 = max(0, V - mean_p(s2_p) + K) / V``, ``V`` the estimates' variance, ``s2_p`` the
delete-a-group jackknife variance (``JACKKNIFE_GROUPS`` interleaved groups of documents,
the model refitted without each) of ``r^_p - mean_q r^_q``, and ``K`` what of it the full
grid's own correlations keep: at the sample level ``sigma^2 / D`` (``sigma^2``: the residual
variance of the scored cells' correlations after prompt and document effects,
:func:`additive_fit`); at the system and dataset levels the same jackknife variance
computed on ``NOISE_COPIES`` completed copies themselves, no refit (:func:`grid_noise`).
``lam`` above 1 (``K`` larger than ``s2``) spreads the estimates out.

:func:`additive_fit` is the estimator this one replaced (per-document correlations
``c_pd = mu + a_p + b_d + e``, blind to a prompt-by-document interaction on unscored
cells); ``benchmarks/prompt_family_design.py --estimator additive`` measures it.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..stats.matrix import LEVELS, _pairwise, corr_last, levels_stack
from .assignment import assign, requests_ratio  # noqa: F401 (the design's assignment, re-exported)
from .spread import SpreadSettings, family_quantiles, scored_matrix

JACKKNIFE_GROUPS = 10  # delete-a-group jackknife of the estimates' noise
MIN_VALID = 4  # valid scored replies a prompt needs to be modelled
IMPUTATIONS = 100  # simulated copies of an unscored cell, averaged into its expected correlation
GRID_LEVELS = ("system", "dataset")  # the levels read off the completed grids
NOISE_COPIES = 20  # completed copies on which the full grid's own jackknife variance is estimated


def document_correlations(scores: np.ndarray, human: np.ndarray, scale, settings: SpreadSettings) -> np.ndarray:
    """``... x D``: each matrix's correlation with the reference on each document (over its
    systems; an undefined one counts as 0 or NaN per ``settings.undefined``, as in the
    sample level). ``scores``: ``... x D x S``, any leading axes (prompts, imputations)."""
    s = settings
    x = np.asarray(scores, float)
    if s.estimand == "scored":  # invalid units scored as the leaderboard scores them (sample level)
        x = scored_matrix(x, human, scale, s.method, "sample")
    r = corr_last(*_pairwise(x, np.broadcast_to(human, x.shape)), s.method)[0]
    return np.where(np.isnan(r), 0.0, r) if s.undefined == "zero" else r


@dataclass(frozen=True)
class FactorFit:
    """The fitted one-factor model (module docstring): per prompt ``alpha``, ``gamma``,
    ``beta``, ``sigma2``; per summary (``D x S``) the posterior mean ``z_mean`` and variance
    ``z_var`` of ``z`` given the scored replies; ``iterations`` of EM."""
    alpha: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    sigma2: np.ndarray
    z_mean: np.ndarray
    z_var: np.ndarray
    iterations: int


def _observed(scores, human) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores with 0 where unobserved, human with 0 where missing, the observed mask: a
    score and a human score both present), the form :func:`_posterior` and the EM read."""
    y, h = np.asarray(scores, float), np.asarray(human, float)
    obs = ~np.isnan(y) & ~np.isnan(h)[None]
    return np.where(obs, y, 0.0), np.where(np.isnan(h), 0.0, h), obs


def _posterior(y, h, obs, alpha, gamma, beta, sigma2):
    resid = np.where(obs, y - alpha[:, None, None] - gamma[:, None, None] * h, 0.0)
    precision = 1 + (obs * (beta ** 2 / sigma2)[:, None, None]).sum(axis=0)
    mean = (obs * (beta / sigma2)[:, None, None] * resid).sum(axis=0) / precision
    return mean, 1 / precision


def factor_fit(scores, human, max_iter: int = 500, tol: float = 1e-7) -> FactorFit:
    """EM for ``y_pds = alpha_p + gamma_p h_ds + beta_p z_ds + e_pds`` on the non-NaN cells of
    ``scores`` (``P x D x S``) with ``human`` (``D x S``). E-step: each summary's ``z``
    posterior given its scored replies (normal). M-step: per prompt, the least-squares
    ``alpha, gamma, beta`` on ``(1, h, E z)`` with ``E z^2 = mean^2 + var``, and ``sigma2``
    the mean expected squared residual (floored at 1e-9 of the prompt's score variance)."""
    y, hh, obs = _observed(scores, human)
    if (obs.sum(axis=(1, 2)) < MIN_VALID).any():
        raise ValueError(f"every prompt needs at least {MIN_VALID} scored replies with a human score to fit the "
                         "design's model")
    n_p = len(y)
    floor = 1e-9 * np.array([max(np.var(y[p][obs[p]]), 1e-12) for p in range(n_p)])
    alpha, gamma = np.zeros(n_p), np.zeros(n_p)
    for p in range(n_p):  # start: each prompt on the human score alone, its residual split half and half
        x = np.c_[np.ones(obs[p].sum()), hh[obs[p]]]
        alpha[p], gamma[p] = np.linalg.lstsq(x, y[p][obs[p]], rcond=None)[0]
    resid = np.array([np.var(y[p][obs[p]] - alpha[p] - gamma[p] * hh[obs[p]]) for p in range(n_p)])
    beta, sigma2 = np.sqrt(resid / 2), np.maximum(resid / 2, floor)
    for it in range(1, max_iter + 1):
        mean, var = _posterior(y, hh, obs, alpha, gamma, beta, sigma2)
        old = np.r_[alpha, gamma, beta, sigma2]
        for p in range(n_p):
            o = obs[p]
            yo, ho, mo = y[p][o], hh[o], mean[o]
            xtx = np.array([[o.sum(), ho.sum(), mo.sum()], [ho.sum(), ho @ ho, ho @ mo],
                            [mo.sum(), ho @ mo, mo @ mo + var[o].sum()]])
            xty = np.array([yo.sum(), ho @ yo, mo @ yo])
            theta = np.linalg.lstsq(xtx, xty, rcond=None)[0]
            alpha[p], gamma[p], beta[p] = theta
            sigma2[p] = max((yo @ yo - 2 * theta @ xty + theta @ xtx @ theta) / o.sum(), floor[p])
        if np.max(np.abs(np.r_[alpha, gamma, beta, sigma2] - old)) < tol:
            break
    mean, var = _posterior(y, hh, obs, alpha, gamma, beta, sigma2)
    return FactorFit(alpha, gamma, beta, sigma2, mean, var, it)


def _known(fit: FactorFit, modelled: np.ndarray, asked: np.ndarray, human: np.ndarray) -> FactorFit:
    """``fit``'s parameters of the modelled prompts, ``z``'s posterior given their scored replies."""
    a, g, b, v = fit.alpha[modelled], fit.gamma[modelled], fit.beta[modelled], fit.sigma2[modelled]
    mean, var = _posterior(*_observed(asked[modelled], human), a, g, b, v)
    return FactorFit(a, g, b, v, mean, var, 0)


def _grid_step(seen: np.ndarray) -> float:
    """The step of the grid a prompt's scores lie on (1 for a 1-5 Likert scale, 0.25 for means
    of four replies): the smallest gap between its distinct values, when every gap is a whole
    multiple of it; 0 when they lie on no grid (continuous scores) or take one value."""
    support = np.unique(seen[~np.isnan(seen)])
    if len(support) < 2:
        return 0.0
    gaps = np.diff(support)
    step = float(gaps.min())
    return step if np.allclose(gaps / step, np.round(gaps / step), atol=1e-6) else 0.0


@dataclass(frozen=True)
class Completed:
    """One prompt's grid completed for the levels: ``grid`` (``n x len(docs) x S``) holds its
    scores on the rows ``docs`` of the human matrix; ``n`` is ``draws`` simulated copies for a
    modelled prompt with unscored documents (its scored rows the same observed ones in every
    copy), 1 otherwise (every document scored, or a prompt not modelled: its own documents
    only). ``simulated``: which of ``docs`` were simulated."""
    grid: np.ndarray
    docs: np.ndarray
    simulated: np.ndarray


def complete_grids(scores, human, mask, settings: SpreadSettings | None = None,
                   draws: int = IMPUTATIONS, known: FactorFit | None = None) -> list[Completed]:
    """Per prompt, its grid completed by the model (module docstring), seeded by
    ``settings.seed``: unscored cells simulated (``z`` drawn once per copy from its posterior
    and shared by every prompt, as the full grid's prompts share the summary; fresh noise;
    put back on the prompt's grid; invalid at its observed rate), scored cells observed. A
    prompt with fewer than ``MIN_VALID`` valid scored replies, or a single value in all of
    them (a parse collapse, a constant answer), is not modelled: it keeps its own documents.
    ``known``: the model's parameters (every prompt's) taken as known instead of fitted,
    ``z``'s posterior still from the scored replies (the design benchmark's floor on a
    judge's full grid)."""
    s = settings or SpreadSettings()
    scores, human, mask = np.asarray(scores, float), np.asarray(human, float), np.asarray(mask, bool)
    asked = np.where(mask[:, :, None], scores, np.nan)
    valid = ~np.isnan(asked) & ~np.isnan(human)[None]
    modelled = np.array([v.sum() >= MIN_VALID and np.ptp(a[v]) > 0 for a, v in zip(asked, valid)])
    own = [Completed(scores[p][mask[p]][None], np.flatnonzero(mask[p]), np.zeros(mask[p].sum(), bool))
           for p in range(len(mask))]
    if not modelled.any() or mask[modelled].all():
        return own
    fit = factor_fit(asked[modelled], human) if known is None else _known(known, modelled, asked, human)
    rng = np.random.default_rng(s.seed)
    z = fit.z_mean + np.sqrt(fit.z_var) * rng.standard_normal((draws, *human.shape))
    counted = ~np.isnan(human)
    out = list(own)
    for i, p in enumerate(np.flatnonzero(modelled)):  # i: the prompt's place in the fit
        if mask[p].all():
            continue
        docs = ~mask[p]
        invalid = float(np.isnan(scores[p][mask[p]][counted[mask[p]]]).mean())
        shape = (draws, docs.sum(), human.shape[1])
        seen = scores[p][mask[p]]
        step = _grid_step(seen)
        noise2 = max(fit.sigma2[i] - step ** 2 / 12, 0.0)  # Sheppard: the rounding's share of the noise
        sim = (fit.alpha[i] + fit.gamma[i] * human[docs] + fit.beta[i] * z[:, docs]
               + np.sqrt(noise2) * rng.standard_normal(shape))
        if step > 0:  # onto the prompt's grid, within the range of values it gave
            lo = np.nanmin(seen)
            sim = np.clip(lo + step * np.round((sim - lo) / step), lo, np.nanmax(seen))
        sim[rng.random(shape) < invalid] = np.nan
        grid = np.repeat(scores[p][None], draws, axis=0)
        grid[:, docs] = sim
        out[p] = Completed(grid, np.arange(len(docs)), docs)
    return out


def _cells(completed: list[Completed], scores, human, mask, scale, s: SpreadSettings) -> np.ndarray:
    """``P x D`` per-document correlations: observed on scored cells, the mean over the
    copies on simulated ones (NaN: a document the prompt has no row for)."""
    out = np.where(mask, document_correlations(scores, human, scale, s), np.nan)
    for p, c in enumerate(completed):
        if c.simulated.any():
            docs = c.docs[c.simulated]
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a document undefined in every copy ("skip")
                out[p, docs] = np.nanmean(document_correlations(c.grid[:, c.simulated], human[docs], scale, s), axis=0)
    return out


def expected_correlations(scores, human, mask, scale, settings: SpreadSettings | None = None,
                          draws: int = IMPUTATIONS) -> np.ndarray:
    """``P x D``: the observed per-document correlation where ``mask`` is set, the model's
    expected one elsewhere (the mean over :func:`complete_grids`' copies; module docstring).
    A prompt that is not modelled keeps NaN on its unscored cells, so its estimate is the
    mean over its own documents."""
    s = settings or SpreadSettings()
    scores, human, mask = np.asarray(scores, float), np.asarray(human, float), np.asarray(mask, bool)
    return _cells(complete_grids(scores, human, mask, s, draws), scores, human, mask, scale, s)


def grid_levels(grid: np.ndarray, human: np.ndarray, scale, s: SpreadSettings) -> dict[str, np.ndarray]:
    """The system and dataset level of every copy of an ``n x D x S`` grid, as the full grid
    computes them (:func:`sumjudge.stats.matrix.levels_stack`; under the ``scored`` estimand
    invalid units first scored per level by :func:`.spread.scored_matrix`)."""
    h = np.broadcast_to(human, grid.shape)
    if s.estimand == "valid" or not (np.isnan(grid) & ~np.isnan(h)).any():
        return levels_stack(grid, h, s.method, s.undefined, levels=GRID_LEVELS)
    system = np.stack([scored_matrix(g, human, scale, s.method, "system") for g in grid])
    dataset = scored_matrix(grid, human, scale, s.method, "dataset")
    return {**levels_stack(system, h, s.method, s.undefined, levels=("system",)),
            **levels_stack(dataset, h, s.method, s.undefined, levels=("dataset",))}


def _mean(values: np.ndarray, axis=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all NaN: NaN
        return np.nanmean(values, axis=axis)


def level_estimates(scores, human, mask, scale, settings: SpreadSettings | None = None,
                    draws: int = IMPUTATIONS) -> tuple[dict[str, np.ndarray], list[Completed]]:
    """Each prompt's estimated full-grid correlation at every level, from one pass of
    :func:`complete_grids`: sample, the mean over documents of :func:`expected_correlations`
    (defined documents only under ``undefined: skip``); system and dataset, the mean over the
    completed copies of the level's correlation (:func:`grid_levels`; copies where it is
    undefined left out). Also returns the completed grids."""
    s = settings or SpreadSettings()
    scores, human, mask = np.asarray(scores, float), np.asarray(human, float), np.asarray(mask, bool)
    completed = complete_grids(scores, human, mask, s, draws)
    return completed_levels(completed, scores, human, mask, scale, s), completed


def completed_levels(completed: list[Completed], scores, human, mask, scale, s: SpreadSettings) -> dict[str, np.ndarray]:
    """Each prompt's correlation at every level read off completed grids, however they were
    completed (:func:`level_estimates`; the design benchmark's oracle completes them with the
    stand-in's true model)."""
    out = {"sample": _mean(_cells(completed, scores, human, mask, scale, s), axis=1)}
    per = [grid_levels(c.grid, human[c.docs], scale, s) for c in completed]
    for lv in GRID_LEVELS:
        out[lv] = np.array([_mean(v[lv]) for v in per])
    return out


def prompt_estimates(scores, human, mask, scale, settings: SpreadSettings) -> np.ndarray:
    """Each prompt's estimated full-grid sample-level correlation: the mean over documents of
    :func:`expected_correlations` (defined documents only under ``undefined: skip``)."""
    return _mean(expected_correlations(scores, human, mask, scale, settings), axis=1)


def _jackknife(reps: np.ndarray) -> np.ndarray:
    """Delete-a-group jackknife variance over axis 0 of replicates of ``r_p - mean_q r_q``."""
    g = len(reps)
    return (g - 1) / g * ((reps - _mean(reps, axis=0)) ** 2).sum(axis=0)


def jackknife_variance(scores, human, mask, scale, settings: SpreadSettings,
                       groups: int = JACKKNIFE_GROUPS) -> dict[str, np.ndarray]:
    """Per level and prompt: the delete-a-group jackknife variance of its estimate less the
    family's mean estimate (documents in ``groups`` interleaved groups, the model refitted
    without each; the mean taken out, as a shift shared by every prompt moves no quantile's
    place among the prompts)."""
    n_d = mask.shape[1]
    groups = min(groups, n_d)  # fewer documents than groups: delete one document at a time
    reps = {lv: [] for lv in LEVELS}
    for g in range(groups):
        keep = np.arange(n_d) % groups != g
        est, _ = level_estimates(scores[:, keep], human[keep], mask[:, keep], scale, settings)
        for lv in LEVELS:
            reps[lv].append(est[lv] - _mean(est[lv]))
    return {lv: _jackknife(np.array(r)) for lv, r in reps.items()}


def grid_noise(completed: list[Completed], human, scale, settings: SpreadSettings,
               groups: int = JACKKNIFE_GROUPS, copies: int = NOISE_COPIES) -> dict[str, float]:
    """At the system and dataset levels: what of the jackknife variance the full grid's own
    correlations keep, estimated on the completed grids: per copy (the first ``copies``),
    the same delete-a-group jackknife variance of ``r_p - mean_q r_q`` with ``r_p`` the
    level's correlation of prompt ``p``'s completed grid (no refit: the copy stands for a
    full grid), averaged over the prompts and the copies."""
    draws = min(max(len(c.grid) for c in completed), copies)
    groups = min(groups, len(human))
    reps = {lv: np.full((groups, len(completed), draws), np.nan) for lv in GRID_LEVELS}
    for g in range(groups):
        for p, c in enumerate(completed):
            keep = c.docs % groups != g
            got = grid_levels(c.grid[:draws, keep], human[c.docs[keep]], scale, settings)
            for lv in reps:
                reps[lv][g, p] = got[lv]  # one copy (nothing simulated): the same in every copy
    return {lv: float(_mean(_jackknife(r - _mean(r, axis=1)[:, None]))) for lv, r in reps.items()}


def estimate(scores, human, mask, scale: tuple[float, float], settings: SpreadSettings | None = None) -> list[dict]:
    """Per level: the family's quantiles from a subset design (module docstring).

    ``scores``: ``P x D x S``, read only where ``mask`` (``P x D``) is set (NaN there:
    an invalid reply)."""
    s = settings or SpreadSettings()
    scores, human, mask = np.asarray(scores, float), np.asarray(human, float), np.asarray(mask, bool)
    est, completed = level_estimates(scores, human, mask, scale, s)
    var = jackknife_variance(scores, human, mask, scale, s)
    kept = {"sample": _sample_noise(scores, human, mask, scale, s, var["sample"]), **grid_noise(completed, human, scale, s)}
    return [{"level": lv, **_shrunk_quantiles(est[lv], float(_mean(var[lv])) - kept[lv], s),
             "requests_ratio": requests_ratio(mask)} for lv in LEVELS]


def _sample_noise(scores, human, mask, scale, s: SpreadSettings, jackknife: np.ndarray) -> float:
    """``K`` at the sample level: ``sigma^2 / D`` (:func:`additive_fit`); where the scored cells
    leave it no degrees of freedom (as few scored cells as prompts and documents, e.g. 3
    documents, each template on one), the jackknife variance itself, so nothing is shrunk."""
    try:
        return additive_fit(document_correlations(scores, human, scale, s), mask)[2] / mask.shape[1]
    except ValueError:
        return float(_mean(jackknife))


def _shrunk_quantiles(est: np.ndarray, excess_noise: float, s: SpreadSettings) -> dict:
    """Constrained Bayes (Louis 1984): ``r~ = m + lam (r^ - m)``, ``lam^2 = max(0, V - excess) / V``;
    an unknown excess (NaN: no jackknife replicate kept every prompt modelled, e.g. 3
    documents with each template on one) leaves the estimates as they are (``shrink`` NaN)."""
    est = np.asarray(est, float)
    mean, var = float(_mean(est)), float(np.nanvar(est, ddof=1))
    if np.isnan(excess_noise):
        lam = np.nan
    else:
        lam = float(np.sqrt(max(0.0, var - excess_noise) / var)) if var > 0 else 0.0
    q = family_quantiles(est if np.isnan(lam) else mean + lam * (est - mean), s.quantiles)
    raw = family_quantiles(est, s.quantiles)
    return {**{f"q{round(k * 100):02d}": float(v) for k, v in zip(s.quantiles, q)}, "shrink": lam,
            "unshrunk": {f"q{round(k * 100):02d}": float(v) for k, v in zip(s.quantiles, raw)}}


def additive_fit(cells: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The replaced estimator (module docstring): least squares of ``c_pd = mu + a_p + b_d``
    on the cells of ``mask`` (NaN cells left out): per prompt ``mu + a_p + mean_d b_d`` and
    its variance, and the residual variance."""
    n_p, n_d = mask.shape
    pp, dd = np.nonzero(mask & ~np.isnan(cells))
    x = np.zeros((len(pp), 1 + n_p + n_d))
    x[:, 0] = 1
    x[np.arange(len(pp)), 1 + pp] = 1
    x[np.arange(len(pp)), 1 + n_p + dd] = 1
    y = cells[pp, dd]
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    resid = y - x @ beta
    df = len(y) - (n_p + n_d - 1)
    if df < 1:
        raise ValueError(f"{len(y)} scored cells leave no degrees of freedom for {n_p} prompts and {n_d} documents; "
                         "score more documents per prompt")
    sigma2 = float(resid @ resid / df)
    lin = np.zeros((n_p, 1 + n_p + n_d))
    lin[:, 0] = 1
    lin[np.arange(n_p), 1 + np.arange(n_p)] = 1
    lin[:, 1 + n_p:] = 1 / n_d
    var = sigma2 * np.einsum("ij,jk,ik->i", lin, np.linalg.pinv(x.T @ x), lin)
    return lin @ beta, var, sigma2


def estimate_additive(scores, human, mask, scale: tuple[float, float], settings: SpreadSettings | None = None) -> dict:
    """The replaced estimator's sample-level quantiles (for the benchmark's before/after):
    :func:`additive_fit`, then constrained Bayes with ``excess = mean(var) - sigma^2 / D``."""
    s = settings or SpreadSettings()
    mask = np.asarray(mask, bool)
    est, var, sigma2 = additive_fit(document_correlations(scores, human, scale, s), mask)
    return {**_shrunk_quantiles(est, float(np.mean(var)) - sigma2 / mask.shape[1], s),
            "requests_ratio": requests_ratio(mask)}
