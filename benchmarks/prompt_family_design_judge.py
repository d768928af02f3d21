"""The subset design against a real judge's full grid (docs/robustness.md, "The subset design
on the embedded judge's grid"; a measurement, not a test).

Input: a run of the robustness stage with the full grid (``design: null``: every template of
the family on every document), e.g. ``tests/family_slice.yaml``'s. Per dimension the script
builds the family's grid from the run's judge tables (as the stage builds it), takes the full
grid's quantiles at every level, then for each design (``--per-document``) and each of
``--seeds`` assignments (the design's seed: which template scores which document) keeps the
assigned cells only and estimates the quantiles as the pipeline would
(:func:`sumjudge.robustness.design.estimate`). It prints, per design and level, the largest
absolute difference of q10/q50/q90 per assignment (median and max over the assignments, and
how many are within 0.02), the requests used, and three references:

- **unshrunk**: the design's estimates before the constrained-Bayes step (``shrink``);

- **known parameters**: the one-factor model fitted on the full grid itself, its parameters
  then taken as known, ``z``'s posterior from the design's scored replies only, the unscored
  cells completed from it (no shrinkage); what remains is the unscored replies' own noise
  and what one factor does not capture (a reference for what the design could reach, not
  a bound);
- **own SD**: the full grid's own sampling error of a quantile (its document-bootstrap 95 %
  interval / 3.92).

    .venv/bin/python benchmarks/prompt_family_design_judge.py --results results --judge qwen-1.5b
    .venv/bin/python benchmarks/prompt_family_design_judge.py --results results --per-document 3 4.5 6 --seeds 20
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks"), str(REPO / "tests")]

from prompt_family_design import known_parameters

from sumjudge import datasets as _ds
from sumjudge.robustness.build import stack
from sumjudge.robustness.design import estimate, requests_ratio
from sumjudge.robustness.families import families, template_tables
from sumjudge.robustness.spread import SpreadSettings, spread
from sumjudge.stats.matrix import LEVELS

KEYS = ("q10", "q50", "q90")


def family_grid(results: Path, judge: str, name: str, config: Path):
    """(family, human table on the documents the judge tables cover, {template: table})."""
    fam = families({"prompt_families": yaml.safe_load(config.read_text())["judge"]["prompt_families"]}, str(REPO))[name]
    fam = dataclasses.replace(fam, per_document=None)
    tables = {t: pd.read_parquet(p) for t, p in zip(fam.templates, template_tables(str(results), judge, fam))}
    spec = _ds.get(fam.dataset)
    human = pd.read_parquet(results / "data" / f"{fam.dataset}.parquet")
    units = set.intersection(*(set(t["unit_id"].astype(str)) for t in tables.values()))
    human = human[human["unit_id"].astype(str).isin(units)]
    if human.empty:
        raise SystemExit(f"no unit of {results}/data/{fam.dataset}.parquet is in every template's table: "
                         "run the family with design: null first")
    return fam, spec, human, tables


def _stats(name: str, worst: np.ndarray) -> str:
    return (f"{name} median {np.median(worst):.3f}, max {worst.max():.3f}, within 0.02 in {(worst <= 0.02).sum()} "
            f"of {len(worst)}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=REPO / "results", help="the run's results folder")
    ap.add_argument("--judge", default="qwen-1.5b")
    ap.add_argument("--family", default="summeval_likert")
    ap.add_argument("--config", type=Path, default=REPO / "config.yaml", help="where the family is defined")
    ap.add_argument("--per-document", type=float, nargs="+", default=[2.5])
    ap.add_argument("--seeds", type=int, default=10, help="assignments per design")
    ap.add_argument("--resamples", type=int, default=200, help="bootstrap resamples of the full grid's spread")
    ap.add_argument("--dimensions", nargs="*", help="default: the dataset's")
    a = ap.parse_args(argv)
    fam, spec, table, tables = family_grid(a.results, a.judge, a.family, a.config)
    s = SpreadSettings(resamples=a.resamples)
    docs, _ = fam.assignment(table)
    n_p, n_d = len(fam.templates), len(docs)
    # each design's assignments, as the pipeline deals them (Family.assignment), the same for every dimension
    masks = {k: [dataclasses.replace(fam, per_document=k, seed=seed).assignment(table)[1] for seed in range(a.seeds)]
             for k in a.per_document if n_d * k >= n_p}
    print(f"{a.judge} on {fam.name}: {n_p} templates x {n_d} documents x {len(table) // n_d} summaries "
          f"({n_p * len(table)} replies in the full grid)")
    start = time.process_time()
    for dim in a.dimensions or spec.dimensions:
        scores, human, full_mask = stack(table.assign(unit_id=table["unit_id"].astype(str)), tables, fam, dim)
        assert full_mask.all(), "the full grid has a template without a document"
        full = {r["level"]: r for r in spread(scores, human, spec.likert_scale, s)[0]}
        own = {lv: np.median([(full[lv][f"{k}_high"] - full[lv][f"{k}_low"]) / 3.92 for k in KEYS]) for lv in LEVELS}
        print(f"{dim}: full grid " + "; ".join(f"{lv} " + " ".join(f"{k} {full[lv][k]:.3f}" for k in KEYS)
                                               + f" (own SD {own[lv]:.3f})" for lv in LEVELS))
        for k in a.per_document:
            if k not in masks:
                print(f"{dim} {k:g} per document: skipped ({n_d} documents x {k:g} < {n_p} templates)")
                continue
            worst = {m: {lv: [] for lv in LEVELS} for m in ("design", "unshrunk", "known parameters")}
            for mask in masks[k]:
                design = {r["level"]: r for r in estimate(scores, human, mask, spec.likert_scale, s)}
                got = {"design": design, "unshrunk": {lv: r["unshrunk"] for lv, r in design.items()},
                       "known parameters": known_parameters(scores, human, mask, spec.likert_scale, s)}
                for m, est in got.items():
                    for lv in LEVELS:
                        worst[m][lv].append(max(abs(full[lv][q] - est[lv][q]) for q in KEYS))
            for lv in LEVELS:
                print(f"{dim} {lv}, {k:g} per document ({requests_ratio(mask):.2f}x): max |diff| of an assignment: "
                      + "; ".join(_stats(m, np.array(worst[m][lv])) for m in worst) + f"; own SD {own[lv]:.3f}",
                      flush=True)
    print(f"{time.process_time() - start:.1f} s CPU")


if __name__ == "__main__":
    main()
