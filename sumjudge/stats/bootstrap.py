"""Percentile bootstrap confidence intervals (definitions: docs/statistics.md).

- Correlations resample a documents x systems matrix under one of three schemes
  (``tables.bootstrap``; Deutsch, Dror and Roth 2021 call them Boot-Inputs,
  Boot-Systems and Boot-Both):

  - ``documents`` (default): draw D document ids with replacement, keep every
    system once. No system is ever duplicated, so a resample never has fewer
    distinct systems per document than the data (the sample level's estimand,
    a mean of correlations over all S systems, stays the same statistic).
  - ``systems``: draw S system ids with replacement, keep every document once.
  - ``both``: draw both and take the cross product (nlpstats' "both").
- Accuracies resample clusters of decisions (a TLDR post, a REALSumm summary, a
  QAGS summary) with replacement, since decisions within a cluster are not
  independent.

The interval is the (1-c)/2 and (1+c)/2 percentiles of the resampled values;
resamples where the statistic is undefined (NaN) are left out and counted.
Resample indices depend only on the seed and the data's shape, so every row of
a table is resampled identically (common random numbers): intervals of rows are
comparable, and a repeated judge run is averaged resample by resample.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from .matrix import levels_stack


BOOTSTRAP_SCHEMES = ("documents", "systems", "both")


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    n_resamples: int
    n_undefined: int  # resamples where the statistic was undefined
    mean: float = float("nan")  # mean of the defined resampled values (the bootstrap mean)

    def as_dict(self) -> dict:
        return asdict(self)

    def position(self, value: float) -> float:
        """Where ``value`` lies in the interval: 0 at ``low``, 1 at ``high`` (nan if degenerate)."""
        width = self.high - self.low
        return float((value - self.low) / width) if width > 0 else float("nan")


def percentile_interval(samples, confidence: float = 0.95) -> Interval:
    """Percentile interval and mean of bootstrap ``samples`` (NaN samples left out)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    s = np.asarray(samples, dtype=float).ravel()
    ok = s[~np.isnan(s)]
    if ok.size == 0:
        return Interval(float("nan"), float("nan"), s.size, s.size)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(ok, [alpha, 1 - alpha])
    return Interval(float(low), float(high), s.size, int(s.size - ok.size), float(ok.mean()))


@dataclass(frozen=True)
class BootBoth:
    """Seeded document and system indices for ``n_resamples`` resamples of a D x S matrix.

    Despite the historical name, the ``scheme`` decides what is resampled
    (module docstring). The random draws do not depend on the scheme: the
    document ids of ``documents`` are those of ``both``, the system ids of
    ``systems`` are those of ``both``; the dimension a scheme keeps fixed is the
    identity (every document / system exactly once)."""

    docs: np.ndarray     # (B, D) row indices
    systems: np.ndarray  # (B, S) column indices
    scheme: str = "both"

    @classmethod
    def draw(cls, n_docs: int, n_systems: int, n_resamples: int = 1000, seed: int = 0,
             scheme: str = "both") -> "BootBoth":
        if scheme not in BOOTSTRAP_SCHEMES:
            raise ValueError(f"bootstrap scheme must be one of {BOOTSTRAP_SCHEMES}, not {scheme!r} "
                             "(config tables.bootstrap)")
        if n_docs < 1 or n_systems < 1 or n_resamples < 1:
            raise ValueError("need at least one document, one system and one resample")
        rng = np.random.default_rng(seed)
        docs = rng.integers(0, n_docs, size=(n_resamples, n_docs))
        systems = rng.integers(0, n_systems, size=(n_resamples, n_systems))
        if scheme == "documents":
            systems = np.broadcast_to(np.arange(n_systems), (n_resamples, n_systems)).copy()
        elif scheme == "systems":
            docs = np.broadcast_to(np.arange(n_docs), (n_resamples, n_docs)).copy()
        return cls(docs, systems, scheme)

    @property
    def n_resamples(self) -> int:
        return self.docs.shape[0]

    def take(self, matrix: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The resampled matrices ``matrix[docs_b][:, systems_b]`` as a stack."""
        d = self.docs[start:stop]
        s = self.systems[start:stop]
        return matrix[d[:, :, None], s[:, None, :]]


def boot_both_levels(x: np.ndarray, y: np.ndarray, plan: BootBoth, method: str = "spearman",
                     undefined: str = "zero", count_undefined: bool = False) -> dict[str, np.ndarray]:
    """Each level's value on every resample of the D x S matrices ``x`` (metric) and ``y`` (human).

    With ``count_undefined`` also the number of undefined documents per resample
    (key :data:`sumjudge.stats.matrix.UNDEFINED_ROWS`)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.shape != (plan.docs.shape[1], plan.systems.shape[1]):
        raise ValueError(f"matrices {x.shape}/{y.shape} do not fit the resampling plan "
                         f"({plan.docs.shape[1]} docs x {plan.systems.shape[1]} systems)")
    step = max(1, 2_000_000 // x.size)
    parts = []
    for i in range(0, plan.n_resamples, step):
        parts.append(levels_stack(plan.take(x, i, i + step), plan.take(y, i, i + step), method, undefined,
                                  count_undefined))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


@dataclass(frozen=True)
class ClusterBootstrap:
    """Seeded cluster indices: each resample draws K of the K clusters with replacement."""

    counts: np.ndarray  # (B, K) how often each cluster was drawn

    @classmethod
    def draw(cls, n_clusters: int, n_resamples: int = 1000, seed: int = 0) -> "ClusterBootstrap":
        if n_clusters < 1 or n_resamples < 1:
            raise ValueError("need at least one cluster and one resample")
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
        counts = np.zeros((n_resamples, n_clusters), dtype=np.int32)
        np.add.at(counts, (np.arange(n_resamples)[:, None], idx), 1)
        return cls(counts)

    def mean(self, values: np.ndarray, clusters: np.ndarray) -> np.ndarray:
        """The pooled mean of ``values`` (NaN = not counted) on every resample.

        ``clusters`` gives each value's cluster as an integer in [0, K)."""
        values = np.asarray(values, dtype=float)
        clusters = np.asarray(clusters)
        k = self.counts.shape[1]
        ok = ~np.isnan(values)
        sums = np.bincount(clusters[ok], weights=values[ok], minlength=k)
        ns = np.bincount(clusters[ok], minlength=k).astype(float)
        total = self.counts @ sums
        n = self.counts @ ns
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / n, np.nan)


def cluster_codes(keys) -> tuple[np.ndarray, int]:
    """Integer codes 0..K-1 for cluster keys (sorted by key) and K."""
    codes, uniques = pd.factorize(pd.Series(list(keys)), sort=True)
    return codes.astype(np.int64), len(uniques)


def level_resamples(x: np.ndarray, y: np.ndarray, plan: BootBoth, method: str = "spearman",
                    undefined: str = "zero") -> dict[str, np.ndarray]:
    """Each level of the D x S matrices ``x`` (judge) and ``y`` (human) on every resample of a
    ``both`` plan, the leaderboard's interval (docs/statistics.md, "One estimand per cell"):
    the sample and dataset levels over the plan's documents with every system once (equal
    to :func:`boot_both_levels` under ``documents``, which draws the same documents), the
    system level over its documents and systems (Boot-Both, Deutsch, Dror and Roth 2021).
    The sample level reuses each document's correlation and the system level each
    document's sums, so a resample costs a matrix product, not a correlation per row."""
    from .matrix import _pairwise, corr_last, tie_safe

    x, y = _pairwise(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    counts = np.zeros(plan.docs.shape)
    np.add.at(counts, (np.arange(plan.n_resamples)[:, None], plan.docs), 1)
    r, n = corr_last(x, y, method)
    use = n > 0
    if undefined == "zero":
        r = np.where(use & np.isnan(r), 0.0, r)
    use &= ~np.isnan(r)
    with np.errstate(invalid="ignore", divide="ignore"):
        sample = (counts @ np.where(use, r, 0.0)) / (counts @ use)
        valid = ~np.isnan(x)
        k = counts @ valid
        mx = np.where(k > 0, (counts @ np.where(valid, x, 0.0)) / k, np.nan)
        my = np.where(k > 0, (counts @ np.where(valid, y, 0.0)) / k, np.nan)
    rows = np.arange(plan.n_resamples)[:, None]
    system = corr_last(tie_safe(mx[rows, plan.systems]), tie_safe(my[rows, plan.systems]), method)[0]
    return {"sample": sample, "system": system, "dataset": _dataset_level(x, y, counts, plan, method)}


def _dataset_level(x: np.ndarray, y: np.ndarray, counts: np.ndarray, plan: BootBoth, method: str) -> np.ndarray:
    """The dataset level of every resample: Spearman by sorting once (:mod:`.ranked`), else by copies."""
    from .matrix import corr_last
    from .ranked import resampled_spearman

    ok = ~np.isnan(x)
    if method == "spearman":
        return resampled_spearman(x[ok], y[ok], np.nonzero(ok)[0], counts)
    step = max(1, 2_000_000 // max(1, x.size))
    return np.concatenate([corr_last(x[d].reshape(len(d), -1), y[d].reshape(len(d), -1), method)[0]
                           for d in (plan.docs[i:i + step] for i in range(0, plan.n_resamples, step))])
