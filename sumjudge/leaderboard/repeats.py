"""A judge asked several times per unit (``samples > 1``): one aggregation of its samples
per unit feeds value, tests, leave-one-out, gates and alt-test alike; the interval
resamples documents (docs/statistics.md, "Repeats")."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.matrix import likert_matrix
from ..stats.repeats import sample_variance, two_stage_bootstrap, two_stage_correlation
from ..tables.accuracy import aligned_predictions
from ..tables.settings import TableSettings
from .evidence import samples

SINGLE = {"n_samples": 1, "interval": "bootstrap (Tables 1-5)"}
CLUSTERED = "cluster bootstrap over documents of the per-unit aggregate"


def aggregate(m: np.ndarray, kind: str) -> np.ndarray:
    """One answer per unit from ``units x samples`` (NaN: invalid): a score's mean over
    its valid samples; a label's most frequent valid value (a tie: the first sample's)."""
    # TODO(i25-stats): sumjudge.stats.repeats.aggregate_samples(m, kind) once merged
    m = np.asarray(m, dtype=float)
    if m.shape[1] == 1:
        return m[:, 0].copy()
    with np.errstate(invalid="ignore"):
        if kind == "score":
            return np.where(np.isnan(m).all(axis=1), np.nan, np.nanmean(np.where(np.isnan(m), np.nan, m), axis=1))
    out = np.full(m.shape[0], np.nan)
    for i, row in enumerate(m):
        v = row[~np.isnan(row)]
        if v.size:
            vals, counts = np.unique(v, return_counts=True)
            top = vals[counts == counts.max()]
            out[i] = top[0] if top.size == 1 else v[0]
    return out


def likert_repeats(ev, rr, col, ts: TableSettings) -> dict:
    if len(rr.run.samples) < 2:
        return dict(SINGLE)
    spec, data = ev.spec, ev.data
    m = samples(rr.run, rr.column(col.dimension), data["unit_id"])
    d2 = data.assign(_doc=data[spec.cluster_column].astype(str), _sys=data[spec.system_column].astype(str))
    docs, systems = sorted(d2["_doc"].unique()), sorted(d2["_sys"].unique())
    stack = np.stack([likert_matrix(d2.assign(_v=m[:, k]), "_v", docs, systems, "_doc", "_sys")
                      for k in range(m.shape[1])])
    # TODO(i25-stats): the cluster-only bootstrap of the aggregate (stats.repeats) once merged
    iv = two_stage_correlation(stack, likert_matrix(d2, col.dimension, docs, systems, "_doc", "_sys"),
                               ts.bootstrap_resamples, ts.seed, ts.confidence, ts.method, ts.undefined)[col.level]
    return {"n_samples": m.shape[1], "sample_variance": sample_variance(m)[0], "ci_low": iv.low,
            "ci_high": iv.high, "interval": CLUSTERED}


def accuracy_repeats(rr, label: str, dec: pd.DataFrame, spec, gold, clusters, ts: TableSettings) -> dict:
    if len(rr.run.samples) < 2:
        return dict(SINGLE)
    m = samples(rr.run, label, dec["unit_id"], lambda s: aligned_predictions(s, dec, spec, rr.run.path))
    correct = np.where(np.isnan(m), np.nan, (m == np.asarray(gold)[:, None]).astype(float))
    # TODO(i25-stats): the cluster-only bootstrap of the aggregate (stats.repeats) once merged
    iv, _ = two_stage_bootstrap(correct, clusters, ts.bootstrap_resamples, ts.seed, ts.confidence)
    return {"n_samples": m.shape[1], "sample_variance": sample_variance(m)[0], "ci_low": iv.low,
            "ci_high": iv.high, "interval": CLUSTERED}
