"""The subset design against the full grid (docs/robustness.md, "The subset design"; a
measurement, not a test).

A stand-in judge with known prompt effects (tests/support/prompt_grid.py: each prompt's
weight on the truth drawn uniformly from ``--weights``) scores every unit with every
prompt (the full grid). The design keeps the cells of ``assign`` (each document scored by
``--per-document`` prompts) and estimates the family's 10th, 50th and 90th percentiles at
the sample level; the script prints them beside the full grid's, their largest absolute
difference per draw, the requests used over those of one prompt on every unit, and the full grid's own
sampling error of its quantiles (the width of its document-bootstrap 95 % interval / 3.92).

    .venv/bin/python benchmarks/prompt_family_design.py                  # 12 prompts, 100 docs, 10 draws
    .venv/bin/python benchmarks/prompt_family_design.py --draws 2 --docs 20 --prompts 6   # a quick smoke run
    .venv/bin/python benchmarks/prompt_family_design.py --per-document 2.5 --bias 0.5 --scale-use 0.3
    .venv/bin/python benchmarks/prompt_family_design.py --estimator additive   # the estimator it replaced
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from support.prompt_grid import grid

from sumjudge.robustness.design import assign, estimate, estimate_additive
from sumjudge.robustness.spread import SpreadSettings, spread

KEYS = ("q10", "q50", "q90")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompts", type=int, default=12)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--systems", type=int, default=16)
    ap.add_argument("--per-document", type=float, default=2, help="prompts per document (2.5: 2 and 3 alternately)")
    ap.add_argument("--estimator", choices=("summary", "additive"), default="summary",
                    help="summary: the one-factor model of the scores (the pipeline's); additive: the one it replaced")
    ap.add_argument("--bias", type=float, default=0.0,
                    help="SD of the prompts' offsets on the scale (prompts differing in bias, not only weight)")
    ap.add_argument("--scale-use", type=float, default=0.0,
                    help="SD of the log of the prompts' stretch of the scale (prompts differing in scale use)")
    ap.add_argument("--weights", type=float, nargs=2, default=(0.3, 0.8), help="range of the prompts' weights")
    ap.add_argument("--noise", type=float, nargs="+", default=[0.2, 0.4], help="the judge's per-prompt noise SD")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--resamples", type=int, default=50, help="bootstrap resamples of the full grid's spread")
    a = ap.parse_args(argv)
    s = SpreadSettings(resamples=a.resamples)
    for noise in a.noise:
        worst, each, own, start = [], [], [], time.process_time()
        for draw in range(a.draws):
            rng = np.random.default_rng(1000 + draw)
            w = rng.uniform(*a.weights, a.prompts)
            bias, stretch = rng.normal(0, a.bias, a.prompts), np.exp(rng.normal(0, a.scale_use, a.prompts))
            scores, human, _ = grid(a.prompts, a.docs, a.systems, w, noise=noise, seed=draw, bias=bias, stretch=stretch)
            full = spread(scores, human, (1, 5), s)[0][0]
            mask = assign(a.docs, a.prompts, a.per_document, key=np.nanmean(human, axis=1))
            est = (estimate(scores, human, mask, (1, 5), s)[0] if a.estimator == "summary"
                   else estimate_additive(scores, human, mask, (1, 5), s))
            each += [abs(full[k] - est[k]) for k in KEYS]
            own += [(full[f"{k}_high"] - full[f"{k}_low"]) / 3.92 for k in KEYS]  # the full grid's bootstrap SD
            diff = max(each[-3:])
            worst.append(diff)
            print(f"noise {noise} draw {draw}: full grid " + " ".join(f"{k} {full[k]:.3f}" for k in KEYS)
                  + " | design " + " ".join(f"{k} {est[k]:.3f}" for k in KEYS)
                  + f" | max |diff| {diff:.3f} | shrink {est['shrink']:.2f} | requests {est['requests_ratio']:.2f}x")
        print(f"noise {noise}: {a.prompts} prompts x {a.docs} docs x {a.systems} systems, {a.per_document:g} prompts "
              f"per document: |diff| of a quantile median {np.median(each):.3f}; max |diff| of a draw median {np.median(worst):.3f}, max {np.max(worst):.3f}; "
              f"within 0.02 in {sum(d <= 0.02 for d in worst)} of {len(worst)} draws; "
              f"the full grid's own bootstrap SD of a quantile (95 % interval / 3.92) median {np.median(own):.3f}; "
              f"{time.process_time() - start:.1f} s CPU")


if __name__ == "__main__":
    main()
