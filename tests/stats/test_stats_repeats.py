"""Repeats: one aggregation per unit, and an interval that counts the within-unit noise
once (docs/statistics.md, "Repeats: one aggregation per unit")."""
import numpy as np
import pytest

from sumjudge.stats.bootstrap import BootBoth, ClusterBootstrap, boot_both_levels, cluster_codes, percentile_interval
from sumjudge.stats.repeats import aggregate_samples, cluster_interval, correlation_interval, two_stage_bootstrap

NAN = float("nan")


def test_aggregate_samples_by_hand():
    m = [[1, 0, 0, 1], [2, 2, 1, NAN], [NAN] * 4, [0, 1, NAN, NAN], [NAN, 1, 0, 0]]
    # mode: 1-0 tie 2:2 -> the first sample's label 1; 2 twice; none; 0-1 tie -> 0; 0 twice
    assert np.array_equal(aggregate_samples(m, "mode"), [1, 2, NAN, 0, 0], equal_nan=True)
    assert np.array_equal(aggregate_samples(m, "mean"), [0.5, 5 / 3, NAN, 0.5, 1 / 3], equal_nan=True)
    one = np.array([[3.0], [NAN], [5.0]])
    for kind in ("mean", "mode"):   # a single sample is its own aggregate
        assert np.array_equal(aggregate_samples(one, kind), [3, NAN, 5], equal_nan=True)
    with pytest.raises(ValueError, match="aggregation must be"):
        aggregate_samples(m, "median")


def test_interval_counts_within_unit_noise_once():
    # 400 units x 5 Bernoulli(.5) samples: the SD of the mean over all 2000 answers is
    # sqrt(.25 / 2000) = .01118. The cluster-only interval of the unit means has about that
    # width / 3.92; the old two-stage one (units, then samples again) about 1.35x it.
    true_sd = np.sqrt(0.25 / 2000)
    new, old = [], []
    for s in range(6):
        m = (np.random.default_rng(s).random((400, 5)) < 0.5).astype(float)
        iv = cluster_interval(aggregate_samples(m), np.arange(400), 1000, s)
        two, _ = two_stage_bootstrap(m, np.arange(400), 1000, s)
        new.append((iv.high - iv.low) / 3.92 / true_sd)
        old.append((two.high - two.low) / 3.92 / true_sd)
    assert np.mean(new) == pytest.approx(1.0, abs=0.08)
    assert np.mean(old) == pytest.approx(1.35, abs=0.08)


def test_single_sample_judge_gets_the_plain_interval():
    rng = np.random.default_rng(2)
    correct = (rng.random(300) < 0.7).astype(float)
    correct[::17] = NAN
    clusters = np.repeat([f"d{i:02d}" for i in range(60)], 5)
    codes, k = cluster_codes(clusters)
    plain = percentile_interval(ClusterBootstrap.draw(k, 500, 9).mean(correct, codes))   # the tables' route
    assert cluster_interval(aggregate_samples(correct[:, None]), clusters, 500, 9) == plain
    # correlations: one sample = the matrix itself, documents resampled as in the tables
    y = rng.normal(size=(8, 5))
    x = y + rng.normal(size=y.shape)
    plan = BootBoth.draw(8, 5, 300, 4, "documents")
    boot = boot_both_levels(x, y, plan)
    got = correlation_interval(x[None], y, 300, 4)
    assert all(got[lv] == percentile_interval(boot[lv]) for lv in ("sample", "system", "dataset"))
    # several samples: the interval of their mean, not of one drawn sample per cell
    xs = np.stack([x, x + 1.0, x - 1.0])
    assert correlation_interval(xs, y, 300, 4)["dataset"] == got["dataset"]
    with pytest.raises(ValueError, match="cluster keys"):
        cluster_interval([1.0, 0.0], ["a"])
