"""The subset design against the full grid (docs/robustness.md, "The subset design"; a
measurement, not a test).

A stand-in judge with known prompt effects (tests/support/prompt_grid.py: each prompt's
weight on the truth drawn uniformly from ``--weights``) scores every unit with every
prompt (the full grid). The design keeps the cells of ``assign`` (each document scored by
``--per-document`` prompts) and estimates the family's 10th, 50th and 90th percentiles at
each level (sample, system, dataset; the additive estimator: sample only); the script prints
them beside the full grid's, per level, their largest absolute difference per draw, the
requests used over those of one prompt on every unit, and the full grid's own sampling
error of its quantiles (the width of its document-bootstrap 95 % interval / 3.92).

    .venv/bin/python benchmarks/prompt_family_design.py                  # 12 prompts, 100 docs, 10 draws
    .venv/bin/python benchmarks/prompt_family_design.py --draws 2 --docs 20 --prompts 6   # a quick smoke run
    .venv/bin/python benchmarks/prompt_family_design.py --per-document 2.5 --bias 0.5 --scale-use 0.3
    .venv/bin/python benchmarks/prompt_family_design.py --estimator additive   # the estimator it replaced
    .venv/bin/python benchmarks/prompt_family_design.py --per-document 2.5 4 6 --oracle   # requests sweep, floor

"unshrunk": the same estimates before the constrained-Bayes step. ``--oracle`` also prints
two references. "known parameters": the one-factor model fitted on the full grid and taken
as known, the unscored cells completed from the design's replies (the design without the
error of fitting on a subset). "oracle": the quantiles of an oracle that knows the
stand-in's truth (every prompt's weight, offset and stretch, every unit's latent quality and
judge opinion) and completes each unscored cell with fresh noise (100 copies, their mean
taken as the design's estimator takes it); its error is the unscored replies' own noise,
which the full grid keeps and nobody who did not send them can know (a reference, not a
strict bound: the quantile of the expected correlations is not the best predictor of the
realized quantile).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from support.prompt_grid import stand_in

from sumjudge.robustness.design import (Completed, assign, complete_grids, completed_levels, estimate,
                                        estimate_additive, factor_fit, requests_ratio)
from sumjudge.robustness.spread import SpreadSettings, family_quantiles, spread
from sumjudge.stats.matrix import LEVELS

KEYS = ("q10", "q50", "q90")


def oracle(truth, mask, s: SpreadSettings, draws: int = 100) -> dict[str, dict]:
    """Per level, the quantiles of the stand-in's true model completing the design's unscored
    cells (module docstring)."""
    rng = np.random.default_rng(s.seed)
    completed = []
    for p, scored in enumerate(mask):
        grid_p = np.repeat(truth.scores[p][None], draws, axis=0)
        grid_p[:, ~scored] = truth.fresh(p, np.flatnonzero(~scored), rng, draws)
        completed.append(Completed(grid_p, np.arange(mask.shape[1]), ~scored))
    return quantiles(completed_levels(completed, truth.scores, truth.human, mask, (1, 5), s), s)


def known_parameters(scores, human, mask, scale, s: SpreadSettings) -> dict[str, dict]:
    """Per level, the quantiles with the one-factor model fitted on the full grid and its
    parameters taken as known, ``z``'s posterior from the design's scored replies only (no
    shrinkage): the design's completion without the error of fitting on a subset."""
    completed = complete_grids(scores, human, mask, s, known=factor_fit(scores, human))
    return quantiles(completed_levels(completed, scores, human, mask, scale, s), s)


def quantiles(estimates: dict[str, np.ndarray], s: SpreadSettings) -> dict[str, dict]:
    """Per level, the family's quantiles of the prompts' estimates, unshrunk."""
    return {lv: dict(zip(KEYS, family_quantiles(v, s.quantiles))) for lv, v in estimates.items()}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompts", type=int, default=12)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--systems", type=int, default=16)
    ap.add_argument("--per-document", type=float, nargs="+", default=[2],
                    help="prompts per document (2.5: 2 and 3 alternately); several: one design each on the same grids")
    ap.add_argument("--estimator", choices=("summary", "additive"), default="summary",
                    help="summary: the one-factor model of the scores (the pipeline's); additive: the one it replaced")
    ap.add_argument("--oracle", action="store_true", help="also the floor: the stand-in's true model on the unscored cells")
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
    methods = ([a.estimator] + (["unshrunk"] if a.estimator == "summary" else [])
               + (["known parameters", "oracle"] if a.oracle else []))
    for noise in a.noise:
        cells = [(k, m, lv) for k in a.per_document for m in methods for lv in levels]
        worst, each = ({c: [] for c in cells} for _ in range(2))
        own = {lv: [] for lv in levels}
        start = time.process_time()
        for draw in range(a.draws):
            rng = np.random.default_rng(1000 + draw)
            w = rng.uniform(*a.weights, a.prompts)
            bias, stretch = rng.normal(0, a.bias, a.prompts), np.exp(rng.normal(0, a.scale_use, a.prompts))
            truth = stand_in(a.prompts, a.docs, a.systems, w, noise=noise, seed=draw, bias=bias, stretch=stretch)
            scores, human = truth.scores, truth.human
            full = {r["level"]: r for r in spread(scores, human, (1, 5), s)[0]}
            for lv in levels:
                f = full[lv]
                own[lv] += [(f[f"{k}_high"] - f[f"{k}_low"]) / 3.92 for k in KEYS]  # the full grid's bootstrap SD
            for k in a.per_document:
                mask = assign(a.docs, a.prompts, k, key=np.nanmean(human, axis=1))
                got = ({"summary": {r["level"]: r for r in estimate(scores, human, mask, (1, 5), s)}}
                       if a.estimator == "summary" else {"additive": {"sample": estimate_additive(scores, human, mask,
                                                                                                  (1, 5), s)}})
                if a.estimator == "summary":  # the same estimates before the constrained-Bayes step
                    got["unshrunk"] = {lv: r["unshrunk"] for lv, r in got["summary"].items()}
                if a.oracle:
                    got["known parameters"] = known_parameters(scores, human, mask, (1, 5), s)
                    got["oracle"] = oracle(truth, mask, s)
                for m, est in got.items():
                    for lv in levels:
                        f, e, c = full[lv], est[lv], (k, m, lv)
                        each[c] += [abs(f[q] - e[q]) for q in KEYS]
                        worst[c].append(max(each[c][-3:]))
                        print(f"noise {noise} draw {draw} {k:g} per document {m} {lv}: full grid "
                              + " ".join(f"{q} {f[q]:.3f}" for q in KEYS)
                              + f" | {m} " + " ".join(f"{q} {e[q]:.3f}" for q in KEYS)
                              + f" | max |diff| {worst[c][-1]:.3f}"
                              + (f" | shrink {e['shrink']:.2f}" if "shrink" in e else "")
                              + f" | requests {requests_ratio(mask):.2f}x", flush=True)
        for k, m, lv in cells:
            c = (k, m, lv)
            print(f"noise {noise} {lv}: {a.prompts} prompts x {a.docs} docs x {a.systems} systems, {k:g} "
                  f"prompts per document ({k:.2f}x), {m}: |diff| of a quantile median {np.median(each[c]):.3f}; "
                  f"max |diff| of a draw median {np.median(worst[c]):.3f}, max {np.max(worst[c]):.3f}; within 0.02 in "
                  f"{sum(d <= 0.02 for d in worst[c])} of {len(worst[c])} draws; the full grid's own bootstrap SD "
                  f"of a quantile (95 % interval / 3.92) median {np.median(own[lv]):.3f}")
        print(f"noise {noise}: {time.process_time() - start:.1f} s CPU")


if __name__ == "__main__":
    main()
