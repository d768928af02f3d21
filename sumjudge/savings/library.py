"""The savings stage's calls of ``ppi_py`` (the ``ppi-python`` package, PPI++'s authors' own
code): the check of every ledger cell's first draw against ``ppi_mean_ci`` /
``ppi_mean_pointestimate``, and the power analysis (``ppi_mean_power``).

``ppi_py`` is imported when first needed: its import takes about 2 s (numba), which neither
Snakemake's parse nor the fast tests should pay. It also switches Python's warnings off for
the whole process when imported (``warnings.simplefilter("ignore")`` in ``ppi_py/ppi.py``);
the savings job is a process of its own.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError


def _ppi():
    try:
        import ppi_py
    except ImportError:
        raise UserError("the savings stage needs the ppi-python package (import ppi_py): `pip install "
                        "ppi-python==0.2.3` (requirements.txt), or run Snakemake with --software-deployment-method "
                        "conda (envs/savings.yaml)") from None
    return ppi_py


def check_draw(y, h, valid, labelled, estimate: float, library_half: float, confidence: float) -> float:
    """The largest difference between one draw's vectorised PPI++ (``estimate``, ``library_half``)
    and ``ppi_py.ppi_mean_ci`` / ``ppi_mean_pointestimate`` on the same documents (lambda tuned
    by the library); NaN where the library's lambda is undefined (a judge constant on every
    document) or the draw has too few documents."""
    lab, unl = labelled & valid, ~labelled & valid
    if lab.sum() < 2 or unl.sum() < 1 or np.ptp(h[valid]) == 0 or np.isnan(estimate):
        return float("nan")
    p = _ppi()
    lo, hi = p.ppi_mean_ci(y[lab], h[lab], h[unl], alpha=1 - confidence)
    point = p.ppi_mean_pointestimate(y[lab], h[lab], h[unl])
    return float(max(abs(point[0] - estimate), abs(lo[0] - (estimate - library_half)),
                     abs(hi[0] - (estimate + library_half))))


RHO_TINY = 1e-9  # below it a correlation is 0 for the power analysis (its 1 - rho^2 rounds to 1)


def labels_for_same_precision(y, h, n: int, cost_ratio: float) -> float:
    """``ppi_py.ppi_mean_power``'s cheapest number of human labels that, with the judge on the
    rest of the ``len(y)`` documents, is as precise as ``n`` human labels alone (its
    ``effective_n``), a judge answer costing ``cost_ratio`` human labels; the PPI correlation
    comes from the full data. ``n`` where the correlation is not positive (PPI++'s lambda is
    clipped at 0) or undefined, or so small that ``1 - rho^2`` rounds to 1 (the library's optimal
    pair is then 0 / 0: a judge whose answers are uncorrelated with the labels to 1e-17, seen on
    the first run's jury); 2, the fewest labels PPI++ can use, for a judge correlated 1 - 1e-9 or
    more (an affine copy of the labels; the library requires a correlation strictly below 1)."""
    y, h = np.asarray(y, float), np.asarray(h, float)
    if len(y) < 3 or np.ptp(h) == 0 or np.ptp(y) == 0:
        return float(n)
    rho = np.corrcoef(y, h)[0, 1]
    if not rho > RHO_TINY:
        return float(n)
    if rho >= 1 - RHO_TINY:
        return float(min(n, 2))
    out = _ppi().ppi_mean_power(y, h, cost_Y=1.0, cost_Yhat=cost_ratio, effective_n=n, n_max=len(y))
    return float(out["n"])
