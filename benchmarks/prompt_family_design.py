"""The subset design against the full grid (docs/robustness.md, "The subset design"; a
measurement, not a test).

A stand-in judge with known prompt effects (tests/support/prompt_grid.py: each prompt's
weight on the truth drawn uniformly from ``--weights``) scores every unit with every
prompt (the full grid). The design keeps the cells of ``assign`` (each document scored by
``--per-document`` prompts) and estimates the family's 10th, 50th and 90th percentiles at
each level (sample, system, dataset; the additive estimator: sample only); the script prints
them beside the full grid's, per level, their largest absolute difference per draw, the requests used over those of one prompt on every unit, and the full grid's own
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
from sumjudge.stats.matrix import LEVELS

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
    levels = LEVELS if a.estimator == "summary" else ("sample",)  # the additive estimator: sample level only
    for noise in a.noise:
        worst, each, own = ({lv: [] for lv in levels} for _ in range(3))
        start = time.process_time()
        for draw in range(a.draws):
            rng = np.random.default_rng(1000 + draw)
            w = rng.uniform(*a.weights, a.prompts)
            bias, stretch = rng.normal(0, a.bias, a.prompts), np.exp(rng.normal(0, a.scale_use, a.prompts))
            scores, human, _ = grid(a.prompts, a.docs, a.systems, w, noise=noise, seed=draw, bias=bias, stretch=stretch)
            full = {r["level"]: r for r in spread(scores, human, (1, 5), s)[0]}
            mask = assign(a.docs, a.prompts, a.per_document, key=np.nanmean(human, axis=1))
            est = ({r["level"]: r for r in estimate(scores, human, mask, (1, 5), s)} if a.estimator == "summary"
                   else {"sample": estimate_additive(scores, human, mask, (1, 5), s)})
            for lv in levels:
                f, e = full[lv], est[lv]
                each[lv] += [abs(f[k] - e[k]) for k in KEYS]
                own[lv] += [(f[f"{k}_high"] - f[f"{k}_low"]) / 3.92 for k in KEYS]  # the full grid's bootstrap SD
                worst[lv].append(max(each[lv][-3:]))
                print(f"noise {noise} draw {draw} {lv}: full grid " + " ".join(f"{k} {f[k]:.3f}" for k in KEYS)
                      + " | design " + " ".join(f"{k} {e[k]:.3f}" for k in KEYS)
                      + f" | max |diff| {worst[lv][-1]:.3f} | shrink {e['shrink']:.2f} | requests {e['requests_ratio']:.2f}x")
        for lv in levels:
            print(f"noise {noise} {lv}: {a.prompts} prompts x {a.docs} docs x {a.systems} systems, {a.per_document:g} "
                  f"prompts per document: |diff| of a quantile median {np.median(each[lv]):.3f}; max |diff| of a draw "
                  f"median {np.median(worst[lv]):.3f}, max {np.max(worst[lv]):.3f}; within 0.02 in "
                  f"{sum(d <= 0.02 for d in worst[lv])} of {len(worst[lv])} draws; the full grid's own bootstrap SD "
                  f"of a quantile (95 % interval / 3.92) median {np.median(own[lv]):.3f}")
        print(f"noise {noise}: {time.process_time() - start:.1f} s CPU")


if __name__ == "__main__":
    main()
