"""PPI++ means for many columns and many labelled subsets at once (docs/statistics.md,
"How many human labels a judge replaces").

A column is one estimand over ``D`` documents: a human value ``y`` and a judge's value
``h`` per document (``valid``: both present). A draw labels ``n`` of the documents with
humans and leaves the judge on the other ``N``. Per draw and column this module computes
what ``ppi_py.ppi_mean_ci`` computes with ``lam=None`` (PPI++: Angelopoulos, Duchi and Zrnic
2023), for all draws and columns in a few array operations instead of one library call each:

- the tuned ``lam`` (ppi_py's ``_calc_lam_glm`` for a mean: the labelled covariance over
  ``(1 + n/N)`` times the variance of ``h`` over all documents, clipped to [0, 1]);
- the point estimate ``mean_L(y) + lam (mean_U(h) - mean_L(h))`` (``ppi_mean_pointestimate``);
- its variance, in one of two forms:

  * ``finite=False``: the library's, ``lam^2 var_U(h)/N + var_L(y - lam h)/n`` (population
    variances), which treats both sets as draws from an infinite population;
  * ``finite=True``: the variance of the same estimator when the ``n`` labelled documents are
    drawn without replacement from the ``D`` at hand and the target is their full-data mean,
    ``(1 - n/D) s^2_L(y - kappa h) / n`` with ``kappa = lam D/N``, estimated from the labelled
    residuals with ddof 2 under the t interval (one coefficient was tuned on them; ddof 1 under
    the normal one). With ``lam = 0`` it is the classical finite-population variance
    ``(1 - n/D) s^2_L(y) / n`` (ddof 1);

- the interval, ``interval``: ``"t"``: estimate +- ``t`` (``n - 2`` degrees of freedom for PPI++,
  ``n - 1`` for the classical) times the standard error; ``"normal"``: the normal quantile;
  ``"pooled"`` (:mod:`.pooled`): a Wilson-type interval for a bounded mean whose dispersion is
  borrowed across the columns of a pool, PPI++'s arms the classical ones scaled by its shrunk
  variance ratio. The classical interval is the same with ``lam = 0``. The configured interval is
  reported on every draw, also where it comes out wider than the classical one: choosing the
  narrower of the two per draw costs coverage (docs/statistics.md, "Labels saved that cannot be
  gamed").

``library_half`` is always the library's normal half-width, so a draw can be checked
against ``ppi_py`` whatever the interval chosen.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from . import estimators as _est
from . import pooled as _pooled
from .pooled import Pools

INTERVALS = ("pooled", "t", "normal")
ESTIMATORS = ("ppi++", "stratified", "crossfit")


@dataclass(frozen=True)
class Draws:
    """Per draw (rows) and column (columns); NaN where a column has too few documents."""

    estimate: np.ndarray          # PPI++ point estimate (the classical one where the draw falls back)
    classical: np.ndarray         # mean of the labelled human values
    lower: np.ndarray             # PPI++ interval (the chosen one)
    upper: np.ndarray
    lower_classical: np.ndarray   # classical interval (the chosen one)
    upper_classical: np.ndarray
    lam: np.ndarray               # the tuned lambda (ppi_py's)
    wider: np.ndarray             # 1 where the PPI interval came out wider than the classical one (reported as it is)
    saved_width: np.ndarray       # human labels saved per 100 the widths claim (:func:`labels_saved` of their squares)
    constant: np.ndarray          # 1 where the labelled human values are all equal (classical width 0)
    library_estimate: np.ndarray  # the tuned lambda's estimate, before any fall-back (ppi_py's)
    library_half: np.ndarray      # ppi_py's own (normal, infinite-population) PPI++ half-width
    neff_ratio: np.ndarray        # n_eff / n from the labelled documents' correlation (:func:`neff_ratio`)
    lam_ppi: np.ndarray           # PPI++'s tuned lambda (``lam`` is the configured estimator's)
    se_ppi: np.ndarray            # PPI++'s standard error (the t interval's; the max-t band's, :mod:`.simultaneous`)
    n: np.ndarray                 # labelled documents with a valid value
    N: np.ndarray                 # unlabelled documents with a valid value

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower

    @property
    def width_classical(self) -> np.ndarray:
        return self.upper_classical - self.lower_classical


def labelled_sets(n_docs: int, n: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples x n_docs`` booleans: each row labels ``n`` documents drawn without replacement."""
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((resamples, n_docs)), axis=1)[:, :n]
    out = np.zeros((resamples, n_docs), dtype=bool)
    np.put_along_axis(out, order, True, axis=1)
    return out


_CHUNK_CELLS = 4_000_000   # draws x documents x columns evaluated at once (bounds the memory to ~200 MB)


def _moments(labelled: np.ndarray, y: np.ndarray, h: np.ndarray, valid: np.ndarray) -> dict:
    """Per draw and column: counts, means and (population, two-pass) variances over the labelled
    and the unlabelled documents, as numpy computes them for one draw."""
    step = max(1, _CHUNK_CELLS // max(1, y.size))
    parts = [_moments_chunk(labelled[i:i + step], y, h, valid) for i in range(0, len(labelled), step)]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _moments_chunk(labelled, y, h, valid) -> dict:
    return _est.mask_moments(labelled[:, :, None] & valid[None], ~labelled[:, :, None] & valid[None], y, h)


def _quantile(interval: str, confidence: float, df: np.ndarray) -> np.ndarray | float:
    if interval == "normal":
        return float(_st.norm.ppf((1 + confidence) / 2))
    if interval in ("t", "pooled"):
        with np.errstate(invalid="ignore"):
            return _st.t.ppf((1 + confidence) / 2, np.where(df >= 1, df, np.nan))
    raise ValueError(f"savings.interval must be one of {INTERVALS}, not {interval!r}")


def labels_saved(var_ppi, var_classical, n, m, finite: bool = True) -> np.ndarray:
    """Human labels saved per 100, ``100 (1 - n / n_eff)``, with ``n_eff`` the labelled documents
    that alone give the PPI++ variance. Without the finite-population correction
    ``n_eff = n var_classical / var_ppi``; with it ``1/n_eff = 1/D + (1/n - 1/D) var_ppi / var_classical``
    (``D`` = ``m``, the documents). Both equal Broska et al.'s ``n (n+N) / (n + (1 - rho^2) N)``
    (ppi_py's ``effective_n``) at the optimal lambda."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(var_classical > 0, var_ppi / var_classical, np.nan)
        return 100 * (1 - n / m) * (1 - ratio) if finite else 100 * (1 - ratio)


def effective_n(saved, n) -> np.ndarray:
    """The labelled documents alone that equal ``n`` with the judge, from labels saved per 100."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(saved < 100, n / (1 - np.asarray(saved, float) / 100), np.inf)


def _lambda(s: dict, h, valid) -> np.ndarray:
    """ppi_py's tuned lambda of a mean: the labelled covariance over ``(1 + n/N)`` times the
    variance (ddof 1) of the judge over all documents, clipped to [0, 1] (0 where undefined)."""
    m = valid.sum(0)
    var_all = np.array([np.var(h[valid[:, k], k], ddof=1) if m[k] > 1 else np.nan for k in range(len(m))])
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = s["cov"] / ((1 + s["n"] / s["N"]) * var_all)
    return np.clip(np.nan_to_num(lam, nan=0.0, posinf=0.0, neginf=0.0), 0, 1)


def _variances(s: dict, lam, m, finite: bool, ddof: int) -> tuple[np.ndarray, ...]:
    """(PPI++, classical, library PPI++) variances of the estimates (see the module's docstring);
    ``ddof``: of the PPI++ residuals in the finite-population form."""
    n, N, cov, var_y, var_h = s["n"], s["N"], s["cov"], s["var_y"], s["var_h"]
    with np.errstate(invalid="ignore", divide="ignore"):
        lib = lam ** 2 * s["var_hu"] / N + (var_y - 2 * lam * cov + lam ** 2 * var_h) / n
        if finite:
            kappa, fpc = lam * m / N, 1 - n / m
            ppi = fpc * (var_y - 2 * kappa * cov + kappa ** 2 * var_h) / (n - ddof)
            cl = fpc * var_y / (n - 1)
        else:
            ppi, cl = lib, var_y / n
    return tuple(np.maximum(v, 0.0) for v in (ppi, cl, lib))


def ppi_means(y, h, valid, labelled, confidence: float = 0.95, interval: str = "t",
              finite: bool = True, pools: Pools | None = None, estimator: str = "ppi++",
              stratum_share: float = _est.MIN_SHARE) -> Draws:
    """PPI intervals (``estimator``: ``ppi++``, or :mod:`.estimators`' ``stratified`` or
    ``crossfit``) and classical intervals of every column's mean for every draw.

    ``y``, ``h``, ``valid``: ``D x K`` (documents x columns); ``labelled``: ``R x D`` booleans
    (:func:`labelled_sets`); ``pools``: the pooled interval's pools and bounds (default: one
    pool, unbounded; the pooled interval is PPI++'s only). A column with fewer than 2 labelled or 1
    unlabelled valid documents in a draw (3 for the t and pooled intervals) gets NaN there. Every
    draw reports the configured interval, chosen before the data: never the narrower of two per
    draw; ``wider`` only records where it came out wider than the classical one."""
    y, h, valid = np.asarray(y, float), np.asarray(h, float), np.asarray(valid, bool)
    labelled = np.asarray(labelled, bool)
    s = _moments(labelled, y, h, valid)
    m = valid.sum(0).astype(float)
    lam = _lambda(s, h, valid)
    library_estimate = s["yl"] + lam * (s["hu"] - s["hl"])
    fitted = 1 if interval == "normal" else 2     # t, pooled: one more degree of freedom for the tuned coefficient
    v_ppi, v_cl, v_lib = _variances(s, lam, m, finite, fitted)
    q_ppi, q_cl = _quantile(interval, confidence, s["n"] - fitted), _quantile(interval, confidence, s["n"] - 1)
    if interval == "pooled":
        if estimator != "ppi++":
            raise ValueError(f"the pooled interval is PPI++'s only, not {estimator!r}'s: use interval t or normal")
        pools = pools or Pools.single(y.shape[1])
        got = _pooled_intervals(s, labelled, y, h, valid, lam, library_estimate, (q_ppi ** 2 * v_ppi, q_cl ** 2 * v_cl),
                                1 - s["n"] / m if finite else 1.0, q_cl, pools)
    elif estimator == "ppi++":
        got = _symmetric_intervals(s["yl"], library_estimate, q_ppi * np.sqrt(v_ppi), q_cl * np.sqrt(v_cl))
    else:
        est, var, df, lam = _other(estimator, y, h, valid, labelled, finite, fitted - 1, stratum_share)
        got = _symmetric_intervals(s["yl"], est, _quantile(interval, confidence, df) * np.sqrt(var),
                                   q_cl * np.sqrt(v_cl))
    estimate, lower, upper, lower_cl, upper_cl, wider = got
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(upper_cl > lower_cl, ((upper - lower) / (upper_cl - lower_cl)) ** 2, np.nan)
    out = {"estimate": estimate, "classical": s["yl"], "lower": lower, "upper": upper, "lower_classical": lower_cl,
           "upper_classical": upper_cl, "lam": lam, "wider": wider.astype(float),
           "saved_width": labels_saved(ratio, np.ones_like(ratio), s["n"], m, finite),
           "constant": (s["var_y"] <= 1e-20 * (1 + s["yl"] ** 2)).astype(float),
           "library_estimate": library_estimate, "library_half": _quantile("normal", confidence, 0) * np.sqrt(v_lib),
           "neff_ratio": neff_ratio(s), "se_ppi": np.sqrt(v_ppi), "lam_ppi": _lambda(s, h, valid)}
    bad = (s["n"] < fitted + 1) | (s["N"] < 1)
    return Draws(**{k: np.where(bad, np.nan, v) for k, v in out.items()}, n=s["n"], N=s["N"])


def _other(estimator, y, h, valid, labelled, finite, ddof_tuned, stratum_share) -> tuple[np.ndarray, ...]:
    if estimator == "stratified":
        return _est.stratified(y, h, valid, labelled, _est.strata(h, valid, stratum_share), finite, ddof_tuned)
    if estimator == "crossfit":
        return _est.crossfit(y, h, valid, labelled, finite)
    raise ValueError(f"savings.estimator must be one of {ESTIMATORS}, not {estimator!r}")


def neff_ratio(s: dict) -> np.ndarray:
    """Per draw and column: ``n_eff / n = 1 / (1 - rho^2)``, ``rho`` the correlation of the human and
    judge values on the draw's labelled documents, 0 where it is not positive (PPI++'s lambda is
    then 0): how many human labels alone one human label with the judge is worth, at the optimal
    lambda and a large unlabelled set (Broska, Howes and van Loon 2024; ppi_py's ``ppi_mean_power``
    reads the same correlation). It does not depend on ``n`` or on the dataset's size; 1 at least
    by construction (a judge whose lambda is 0 is PPI++ without it), so 1 too where the judge is
    constant on the labelled documents (rho undefined, lambda 0: the first run's 0.5B printed
    "x--"); NaN only where the human values are constant."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = s["cov"] / np.sqrt(s["var_y"] * s["var_h"])
        rho = np.where((np.asarray(s["var_h"]) == 0) & (np.asarray(s["var_y"]) > 0), 0.0, rho)
        r2 = np.minimum(np.where(rho > 0, rho, 0.0) ** 2, 1.0)
        return np.where(np.isnan(rho), np.nan, np.where(r2 < 1, 1 / (1 - r2), np.inf))


def _symmetric_intervals(mean, estimate, half, half_cl) -> tuple[np.ndarray, ...]:
    """(estimate, lower, upper, classical lower, classical upper, wider) of the t and normal intervals."""
    return estimate, estimate - half, estimate + half, mean - half_cl, mean + half_cl, half > half_cl


def _pooled_intervals(s, labelled, y, h, valid, lam, library_estimate, squared, fpc, q_cl,
                      pools: Pools) -> tuple[np.ndarray, ...]:
    """The same of the pooled interval (:mod:`.pooled`); ``squared``: the t intervals' squared
    half-widths (PPI++, classical), whose ratio is PPI++'s own variance ratio."""
    n, mean = s["n"], s["yl"]
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = s["var_y"] * n / (n - 1)
        own = np.where(squared[1] > 0, squared[0] / squared[1], 1.0)
    lower_cl, upper_cl = _pooled.classical(mean, s2, n, fpc, q_cl, _pooled.departures(labelled, valid, y), pools)
    ratio = _pooled.ppi_ratio(own, lam, _pooled.departures(labelled, valid, y + 1j * h), pools)
    arm = np.sqrt(ratio)
    estimate = library_estimate
    return (estimate, estimate - arm * (mean - lower_cl), estimate + arm * (upper_cl - mean), lower_cl, upper_cl,
            ratio > 1)


def truth(y, valid) -> np.ndarray:
    """Each column's full-data mean of the human values (what every interval should cover)."""
    valid = np.asarray(valid, bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(valid, y, 0.0).sum(0) / valid.sum(0)


def covered(lower, upper, target, scale: float = 1.0) -> np.ndarray:
    """Whether each interval holds the target (a zero-width interval only when it hits it)."""
    with np.errstate(invalid="ignore"):
        return (lower <= target + 1e-12 * scale) & (target <= upper + 1e-12 * scale)


def full_correlation(y, h, valid) -> np.ndarray:
    """Pearson correlation of human and judge values over each column's documents (ppi_py's
    "PPI correlation"); NaN where either side is constant."""
    valid = np.asarray(valid, bool)
    m = valid.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        yc = np.where(valid, y - np.where(valid, y, 0.0).sum(0) / m, 0.0)
        hc = np.where(valid, h - np.where(valid, h, 0.0).sum(0) / m, 0.0)
        return (yc * hc).sum(0) / np.sqrt((yc * yc).sum(0) * (hc * hc).sum(0))
