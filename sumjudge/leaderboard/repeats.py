"""A judge asked several times per unit (``samples > 1``): one aggregation of its samples
per unit (:func:`sumjudge.stats.repeats.aggregate_samples`: a score's mean, a label's
majority) feeds value, tests, leave-one-out, gates and alt-test alike; the interval
resamples documents only, over that aggregate, so within-unit noise is counted once
(docs/statistics.md, "Repeats"). A single-sample judge keeps its table's interval."""
from __future__ import annotations

import numpy as np

from ..stats.matrix import LEVELS
from ..stats.repeats import aggregate_samples, cluster_interval, correlation_interval, sample_variance
from ..tables.settings import TableSettings
from .common import matrix

SINGLE = {"n_samples": 1, "interval": "bootstrap (Tables 1-5)"}
CLUSTERED = "cluster bootstrap over documents of the per-unit aggregate"


def aggregate(m: np.ndarray, kind: str) -> np.ndarray:
    """One answer per unit of ``units x samples``: ``score`` (mean) or ``label`` (majority)."""
    return aggregate_samples(m, "mean" if kind == "score" else "mode")


def likert_repeats(m: np.ndarray, d2, docs, systems, human: np.ndarray, ts: TableSettings) -> dict[str, dict]:
    """Per level (sample, system, dataset): the repeats' cell parts of one dimension.
    ``m``: units x samples of one judge row; ``d2, docs, systems``: the dataset's
    :func:`~sumjudge.leaderboard.common.frame`; ``human``: the documents x systems human scores."""
    if m.shape[1] < 2:
        return {lv: dict(SINGLE) for lv in LEVELS}
    stack = np.stack([matrix(d2, m[:, k], docs, systems) for k in range(m.shape[1])])
    ivs = correlation_interval(stack, human, ts.bootstrap_resamples, ts.seed, ts.confidence, ts.method,
                               ts.undefined, ts.bootstrap)
    var = sample_variance(m)[0]
    return {lv: {"n_samples": m.shape[1], "sample_variance": var, "ci_low": iv.low, "ci_high": iv.high,
                 "interval": CLUSTERED} for lv, iv in ivs.items()}


def accuracy_repeats(m: np.ndarray, correct: np.ndarray, clusters, ts: TableSettings) -> dict:
    """``m``: decisions x samples; ``correct``: the aggregate's correctness per decision."""
    if m.shape[1] < 2:
        return dict(SINGLE)
    iv = cluster_interval(correct, clusters, ts.bootstrap_resamples, ts.seed, ts.confidence)
    return {"n_samples": m.shape[1], "sample_variance": sample_variance(m)[0], "ci_low": iv.low,
            "ci_high": iv.high, "interval": CLUSTERED}
