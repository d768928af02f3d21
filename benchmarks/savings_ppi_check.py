"""The savings stage's vectorised PPI++ against ppi_py, draw by draw: the largest difference and
the time of both.

On SummEval's expert means (every system and dimension: 64 columns of 100 documents) with a judge
equal to them plus N(0, 0.5) noise, ``--draws`` draws label ``--n`` documents each; the stage's
:func:`sumjudge.savings.ppi.ppi_means` computes every draw and column at once, then ppi_py's
``ppi_mean_ci`` (lambda tuned by the library) and ``ppi_mean_pointestimate`` are called once per
draw and column on the same documents. Prints the largest difference of the estimate and of the
interval's bounds, the largest difference of lambda from the library's ``_calc_lam_glm``, and both
times (on 2 shared cores).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/savings_ppi_check.py --mirror ../shared/data

``--draws 20`` is its smallest run (the smoke test's).
"""
from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

import numpy as np
import yaml

from sumjudge.datasets import BUILTIN
from sumjudge.savings.measures import measures
from sumjudge.savings.ppi import labelled_sets, ppi_means


def columns(mirror: str) -> np.ndarray:
    from sumjudge.data.prepare import locate, prepare_dataset, source_files

    opts = yaml.safe_load(Path("config.yaml").read_text())
    data = prepare_dataset("summeval", locate(source_files("summeval", opts), mirror), opts)
    return np.concatenate([m.human for m in measures(BUILTIN["summeval"], data)], axis=1)


def library(y, h, draws, confidence):
    """ppi_py on every draw and column: (estimates, lower, upper, lambdas)."""
    import ppi_py
    from ppi_py.ppi import _calc_lam_glm

    est, lo, hi, lam = (np.empty((len(draws), y.shape[1])) for _ in range(4))
    for r, lab in enumerate(draws):
        for k in range(y.shape[1]):
            Y, Yh, Yu = y[lab, k], h[lab, k], h[~lab, k]
            est[r, k] = ppi_py.ppi_mean_pointestimate(Y, Yh, Yu)[0]
            a, b = ppi_py.ppi_mean_ci(Y, Yh, Yu, alpha=1 - confidence)
            lo[r, k], hi[r, k] = a[0], b[0]
            th = Yu.mean() + (Y - Yh).mean()
            lam[r, k] = _calc_lam_glm((Y - th)[:, None], (Yh - th)[:, None], (Yu - th)[:, None], np.eye(1),
                                      clip=True)
    return est, lo, hi, lam


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", default="../shared/data")
    ap.add_argument("--draws", type=int, default=500)
    ap.add_argument("--n", type=int, default=25)
    args = ap.parse_args()
    y = columns(args.mirror)
    h = y + np.random.default_rng(1).normal(0, 0.5, y.shape)
    draws = labelled_sets(len(y), args.n, args.draws, 36)
    importlib.import_module("ppi_py")  # import it first: its import, about 2 s, is not the library's time

    t0 = time.perf_counter()
    d = ppi_means(y, h, np.ones_like(y, bool), draws, 0.9, "normal", False)
    mine = time.perf_counter() - t0
    t0 = time.perf_counter()
    est, lo, hi, lam = library(y, h, draws, 0.9)
    theirs = time.perf_counter() - t0
    diff = max(np.abs(est - d.library_estimate).max(), np.abs(lo - (d.library_estimate - d.library_half)).max(),
               np.abs(hi - (d.library_estimate + d.library_half)).max())
    cells = args.draws * y.shape[1]
    print(f"PPI++ on {cells} draw x column cells (SummEval, {y.shape[1]} columns, n = {args.n} of {len(y)}):")
    print(f"  largest difference from ppi_py (estimate, interval bounds): {diff:.2e}")
    print(f"  largest difference of lambda from ppi_py's tuning: {np.abs(lam - d.lam).max():.2e}")
    print(f"  vectorised: {mine:.3f} s; ppi_py, one call per cell: {theirs:.1f} s ({theirs / mine:.0f} x)")


if __name__ == "__main__":
    main()
