"""Bootstrap intervals, the matrix form of the correlation levels, accuracies:
small cases with known answers."""
import math
import time

import numpy as np
import pandas as pd
import pytest

from sumjudge.stats.accuracy import accuracy, clopper_pearson, correctness
from sumjudge.stats.bootstrap import (BootBoth, ClusterBootstrap, boot_both_levels, cluster_codes,
                                      percentile_interval)
from sumjudge.stats.correlation import LEVELS, correlation_levels
from sumjudge.stats.matrix import levels_stack, likert_matrix, rank_last
from support.synthetic import tidy


def test_percentile_interval_known_quantiles():
    ci = percentile_interval(np.arange(101, dtype=float), 0.9)
    assert (ci.low, ci.high) == pytest.approx((5.0, 95.0))
    with_nan = percentile_interval([1.0, np.nan, 3.0], 0.5)
    assert with_nan.n_undefined == 1 and with_nan.n_resamples == 3
    assert math.isnan(percentile_interval([np.nan, np.nan]).low)


def test_perfectly_correlated_pair_has_interval_at_one():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(12, 8))
    plan = BootBoth.draw(12, 8, n_resamples=300, seed=3)
    boot = boot_both_levels(x, 2 * x + 1, plan)  # a monotone map of the metric: rho = 1 everywhere
    for lv in LEVELS:
        ci = percentile_interval(boot[lv])
        assert (ci.low, ci.high) == pytest.approx((1.0, 1.0)), lv


@pytest.mark.parametrize("method", ["spearman", "kendall"])
@pytest.mark.parametrize("undefined", ["zero", "skip"])
def test_matrix_levels_equal_the_reference_implementation(method, undefined):
    rng = np.random.default_rng(7)
    x = rng.integers(1, 5, size=(9, 6)).astype(float)   # many ties
    y = rng.integers(1, 4, size=(9, 6)).astype(float)
    y[2] = 3.0                                           # a constant document: undefined
    x[4, :5] = np.nan                                    # a document with a single valid pair
    x[5] = np.nan                                        # a document with none
    y[0, 1] = np.nan
    ref = correlation_levels(tidy(x, y), "metric", "human", method=method, undefined=undefined)
    got = levels_stack(x, y, method, undefined)
    for lv in LEVELS:
        assert float(got[lv]) == pytest.approx(ref[lv].value, abs=1e-12), lv


def test_ranks_ignore_missing_values():
    from scipy.stats import rankdata

    rng = np.random.default_rng(4)
    a = rng.integers(1, 4, size=(5, 7, 9)).astype(float)
    a[rng.random(a.shape) < 0.3] = np.nan
    expected = rankdata(a, axis=-1, nan_policy="omit")
    assert np.array_equal(np.isnan(rank_last(a)), np.isnan(a))
    assert np.allclose(rank_last(a), expected, equal_nan=True)


def test_likert_matrix_layout_and_duplicates():
    df = pd.DataFrame({"doc_id": ["a", "a", "b"], "system": ["s1", "s2", "s1"], "v": [1.0, 2.0, 3.0]})
    m = likert_matrix(df, "v", ["a", "b"], ["s1", "s2"])
    assert m[0].tolist() == [1.0, 2.0] and m[1, 0] == 3.0 and math.isnan(m[1, 1])
    with pytest.raises(ValueError, match="more than one row"):
        likert_matrix(pd.concat([df, df.iloc[:1]]), "v", ["a", "b"], ["s1", "s2"])


def test_boot_both_draws_documents_and_systems_together():
    x = np.arange(20, dtype=float).reshape(4, 5)
    plan = BootBoth.draw(4, 5, n_resamples=6, seed=11)
    stack = plan.take(x)
    for b in range(6):
        expected = x[plan.docs[b]][:, plan.systems[b]]
        assert np.array_equal(stack[b], expected)
    again = BootBoth.draw(4, 5, n_resamples=6, seed=11)
    other = BootBoth.draw(4, 5, n_resamples=6, seed=12)
    assert np.array_equal(plan.docs, again.docs) and np.array_equal(plan.systems, again.systems)
    assert not np.array_equal(plan.docs, other.docs)


def test_boot_both_is_fast_enough_for_summeval():
    """1000 resamples of a 100 x 16 SummEval-sized matrix, all three levels."""
    rng = np.random.default_rng(0)
    y = rng.integers(1, 6, size=(100, 16)).astype(float)
    x = y + rng.normal(size=y.shape)
    plan = BootBoth.draw(100, 16, 1000, seed=0)
    start = time.perf_counter()
    boot = boot_both_levels(x, y, plan)
    elapsed = time.perf_counter() - start
    assert all(boot[lv].shape == (1000,) for lv in LEVELS)
    assert elapsed < 20, f"{elapsed:.1f} s"
    point = levels_stack(x, y)
    for lv in LEVELS:  # the interval brackets the point estimate on well-behaved data
        ci = percentile_interval(boot[lv])
        assert ci.low <= float(point[lv]) <= ci.high


def test_cluster_bootstrap_pools_decisions_of_the_drawn_clusters():
    # cluster 0: decisions 1, 1 ; cluster 1: decisions 0, 0, 1 (NaN = not counted)
    values = np.array([1.0, 1.0, 0.0, 0.0, 1.0, np.nan])
    codes, k = cluster_codes(["a", "a", "b", "b", "b", "b"])
    assert k == 2 and codes.tolist() == [0, 0, 1, 1, 1, 1]
    boot = ClusterBootstrap(np.array([[2, 0], [0, 2], [1, 1]]))
    assert boot.mean(values, codes).tolist() == pytest.approx([1.0, 1 / 3, 3 / 5])
    drawn = ClusterBootstrap.draw(5, n_resamples=50, seed=2)
    assert drawn.counts.shape == (50, 5) and (drawn.counts.sum(axis=1) == 5).all()


def test_accuracy_hand_computed_and_invalid_handling():
    pred = [1, 0, 1, np.nan]
    gold = [1, 1, 1, 0]
    assert correctness(pred, gold).tolist()[:3] == [1.0, 0.0, 1.0]
    drop = accuracy(pred, gold, "drop")
    wrong = accuracy(pred, gold, "wrong")
    assert (drop.value, drop.n, drop.n_missing) == (pytest.approx(2 / 3), 3, 1)
    assert (wrong.value, wrong.n, wrong.n_missing) == (pytest.approx(2 / 4), 4, 1)
    # a metric's TLDR tie (-1) matches no human choice
    assert accuracy([-1, 0], [0, 0]).value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="invalid must be"):
        correctness(pred, gold, "zero")


def test_clopper_pearson_known_values():
    low, high = clopper_pearson(0, 10, 0.95)
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 10))
    low, high = clopper_pearson(10, 10, 0.95)
    assert high == 1.0 and low == pytest.approx(0.025 ** (1 / 10))
    assert all(math.isnan(v) for v in clopper_pearson(0, 0))
