"""Percentile bootstrap intervals (sumjudge/stats/bootstrap.py): known quantiles, the
resampling schemes and their shared draws, cluster resampling, and the leaderboard's
level resamples equal to resampling every copy."""
import math
import time

import numpy as np
import pytest

from sumjudge.stats.bootstrap import (BootBoth, ClusterBootstrap, boot_both_levels, cluster_codes, level_resamples,
                                      percentile_interval)
from sumjudge.stats.correlation import LEVELS
from sumjudge.stats.matrix import UNDEFINED_ROWS, levels_stack


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


def test_schemes_share_their_draws_and_fix_the_other_dimension():
    both = BootBoth.draw(5, 4, n_resamples=7, seed=3, scheme="both")
    docs = BootBoth.draw(5, 4, n_resamples=7, seed=3, scheme="documents")
    syst = BootBoth.draw(5, 4, n_resamples=7, seed=3, scheme="systems")
    assert np.array_equal(docs.docs, both.docs) and np.array_equal(syst.systems, both.systems)
    assert (docs.systems == np.arange(4)).all() and (syst.docs == np.arange(5)).all()
    x = np.arange(20.0).reshape(5, 4)
    assert np.array_equal(docs.take(x)[2], x[both.docs[2]])
    with pytest.raises(ValueError, match="tables.bootstrap"):
        BootBoth.draw(5, 4, scheme="inputs")


def test_documents_scheme_manufactures_no_undefined_documents_and_both_does():
    # 40 documents x 6 systems; in every document only one system differs from the rest in
    # the human score, so dropping that system (as a system resample often does) makes the
    # document constant, i.e. undefined
    rng = np.random.default_rng(0)
    y = np.full((40, 6), 4.0)
    y[np.arange(40), rng.integers(0, 6, 40)] = 2.0
    y[:3] = 5.0                                    # 3 documents constant in the data
    x = y + rng.normal(size=y.shape)
    point = levels_stack(x, y, count_undefined=True)
    assert float(point[UNDEFINED_ROWS]) == 3
    docs = BootBoth.draw(40, 6, 400, seed=1, scheme="documents")
    got = boot_both_levels(x, y, docs, count_undefined=True)[UNDEFINED_ROWS]
    # per resample: exactly the number of draws that hit one of the 3 constant documents
    assert np.array_equal(got, (docs.docs < 3).sum(axis=1))
    assert got.mean() == pytest.approx(3, abs=0.3)
    both = BootBoth.draw(40, 6, 400, seed=1, scheme="both")
    assert boot_both_levels(x, y, both, count_undefined=True)[UNDEFINED_ROWS].mean() > 10


def test_interval_reports_mean_and_position():
    ci = percentile_interval([0.0, 1.0, 2.0, 3.0, 4.0, np.nan], 0.5)
    assert ci.mean == pytest.approx(2.0) and (ci.low, ci.high) == pytest.approx((1.0, 3.0))
    assert ci.position(1.5) == pytest.approx(0.25) and ci.position(3.0) == pytest.approx(1.0)
    assert math.isnan(percentile_interval([1.0, 1.0]).position(1.0))


@pytest.mark.parametrize("method", ["spearman", "kendall"])
@pytest.mark.parametrize("undefined", ["zero", "skip"])
def test_level_resamples_equal_resampling_every_copy(method, undefined):
    """The leaderboard's interval draws: sample and dataset levels as boot_both_levels under
    ``documents`` (the same document draws), the system level as under ``both``."""
    rng = np.random.default_rng(3)
    y = rng.integers(1, 6, size=(30, 7)).astype(float)
    x = np.round(y + rng.normal(size=y.shape))
    x[2, 3], y[4] = np.nan, np.nan          # a missing cell; a document without human scores
    x[6] = 3.0                              # a constant document: undefined at the sample level
    both = BootBoth.draw(30, 7, 200, 5, "both")
    got = level_resamples(x, y, both, method, undefined)
    docs = boot_both_levels(x, y, BootBoth.draw(30, 7, 200, 5, "documents"), method, undefined)
    sys_ = boot_both_levels(x, y, both, method, undefined)
    for lv, want in (("sample", docs), ("dataset", docs), ("system", sys_)):
        assert np.allclose(got[lv], want[lv], rtol=0, atol=1e-12, equal_nan=True), lv
