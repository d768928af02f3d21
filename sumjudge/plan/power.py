"""How many documents separate two judges at a given power (docs/judge.md, "A plan before paying").

From both judges' existing tables of the run's data: the difference of their statistics (Spearman at
a level, or accuracy) and its standard error from a paired bootstrap over documents (the jury summary's
resampling: ``BootBoth`` with scheme documents, or the registry's clusters), both judges on the same
resamples. A standard error shrinks as one over the square root of the documents, so detecting a
difference ``delta`` with a two-sided test at ``alpha`` and power ``power`` takes

    D_needed = ceil(D * ((z_{1 - alpha/2} + z_{power}) * se / |delta|)^2)

documents, ``D`` the documents (clusters) the tables hold now; ``delta`` is the observed difference
unless one is given. An extrapolation: it assumes further documents like these.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ..jury.summary import answer_matrix, label_correctness, level_values, scored_decisions
from ..stats.bootstrap import BootBoth, ClusterBootstrap, boot_both_levels, cluster_codes
from ..stats.matrix import LEVELS, likert_matrix


def documents_needed(n_docs: int, se: float, delta: float, power: float = 0.8, alpha: float = 0.05) -> float:
    """The module docstring's formula; inf where ``delta`` is 0 or the spread is unknown."""
    if not (np.isfinite(se) and np.isfinite(delta)) or delta == 0:
        return float("inf")
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return float(math.ceil(n_docs * (z * se / abs(delta)) ** 2))


def _row(dimension, level, a, b, diffs, n_docs, delta, power, alpha) -> dict:
    se = float(np.nanstd(diffs, ddof=1))
    gap = (a - b) if delta is None else delta
    return {"dimension": dimension, "level": level, "value_a": a, "value_b": b, "difference": a - b,
            "se_difference": se, "documents_now": n_docs, "delta": gap,
            "documents_needed": documents_needed(n_docs, se, gap, power, alpha)}


def separate(run_a, run_b, human: pd.DataFrame, spec, settings, delta: float | None = None,
             power: float = 0.8, alpha: float = 0.05) -> pd.DataFrame:
    """One row per dimension x level (Likert) or accuracy question: the two judges' values, the
    bootstrap standard error of their difference and the documents needed (module docstring)."""
    human = human.assign(unit_id=human["unit_id"].astype(str))
    rows = []
    if spec.proto.per_dimension:
        docs, systems = sorted(human["doc_id"].unique()), sorted(human["system"].unique())
        plan = BootBoth.draw(len(docs), len(systems), settings.bootstrap_resamples, settings.seed, "documents")
        for dim in spec.dimensions:
            y = likert_matrix(human, dim, docs, systems)
            xa, xb = (answer_matrix(r, dim, human, docs, systems) for r in (run_a, run_b))
            va, vb = (level_values(r, dim, human, settings) for r in (run_a, run_b))
            ba, bb = (boot_both_levels(x, y, plan, settings.method, settings.undefined) for x in (xa, xb))
            rows += [_row(dim, lv, float(va[lv]), float(vb[lv]), ba[lv] - bb[lv], len(docs), delta, power, alpha)
                     for lv in LEVELS]
        return pd.DataFrame(rows)
    for gold, dimension, _ in spec.accuracy_questions:
        dec = scored_decisions(human, spec, gold, settings)
        codes, k = cluster_codes(dec["cluster"])
        plan = ClusterBootstrap.draw(k, settings.bootstrap_resamples, settings.seed)
        ca, cb = (label_correctness(r, dec, spec, settings) for r in (run_a, run_b))
        rows.append(_row(dimension, "accuracy", float(np.nanmean(ca)), float(np.nanmean(cb)),
                         plan.mean(ca, codes) - plan.mean(cb, codes), k, delta, power, alpha))
    return pd.DataFrame(rows)

