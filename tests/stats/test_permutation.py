"""Paired permutation tests: exhaustive enumeration of tiny cases, the binomial
closed form, identical rows, clearly different rows."""
import itertools
import math

import numpy as np
import pytest

from sumjudge.stats.permutation import (p_from_null, paired_accuracy_test, paired_correlation_test,
                                        paired_permutation_test, sign_test_p, swap_patterns)


def mean_difference(a, b):
    return {"d": (a - b).mean(axis=1)}


def test_three_wins_out_of_three_enumerated_by_hand():
    # d = (+1, +1, +1): of the 8 swap patterns only "none" and "all" reach |mean| = 1 -> p = 2/8
    res = paired_permutation_test([1, 1, 1], [0, 0, 0], mean_difference, n_resamples=1000)["d"]
    assert res.exact and res.n_permutations == 8
    assert res.statistic == pytest.approx(1.0)
    assert res.p_value == pytest.approx(0.25)
    assert sign_test_p(3, 0) == pytest.approx(0.25)


def test_ties_do_not_count_and_patterns_are_all_enumerated():
    # d = (+1, +1, 0): |sum| = 2 in 4 of the 8 patterns -> p = 0.5
    res = paired_permutation_test([1, 1, 0], [0, 0, 0], mean_difference)["d"]
    assert res.p_value == pytest.approx(0.5)
    masks, exact = swap_patterns(3, 1000)
    assert exact and masks.shape == (8, 3) and len({tuple(m) for m in masks}) == 8
    masks, exact = swap_patterns(20, 100, seed=1)
    assert not exact and masks.shape == (100, 20)


@pytest.mark.parametrize("n_plus,n_minus", [(0, 0), (1, 0), (4, 1), (5, 5), (7, 2), (0, 6)])
def test_sign_test_equals_exhaustive_enumeration(n_plus, n_minus):
    d = [1] * n_plus + [-1] * n_minus
    sums = [sum(s * v for s, v in zip(signs, d)) for signs in itertools.product((1, -1), repeat=len(d))]
    expected = np.mean([abs(s) >= abs(sum(d)) for s in sums])
    assert sign_test_p(n_plus, n_minus) == pytest.approx(expected)


def test_accuracy_test_uses_only_decisions_both_rows_count():
    a = [1, 1, 1, np.nan, 0]
    b = [0, 0, 0, 1, 0]
    res = paired_accuracy_test(a, b)
    assert res.n_units == 4 and res.exact
    assert res.statistic == pytest.approx(3 / 4)
    assert res.p_value == pytest.approx(0.25)


def test_fractional_correctness_is_enumerated_exactly():
    # a judge right in half its repeats on two decisions, the metric always wrong there
    res = paired_accuracy_test([0.5, 0.5, 1.0], [0.0, 0.0, 1.0], n_resamples=1000)
    assert res.exact and res.p_value == pytest.approx(0.5)  # 2 nonzero diffs: 4 patterns, 2 as extreme


def test_identical_rows_give_p_one():
    rng = np.random.default_rng(0)
    y = rng.integers(1, 6, size=(10, 6)).astype(float)
    x = y + rng.normal(size=y.shape)
    res = paired_correlation_test(x, x.copy(), y, n_resamples=200, seed=1)
    for lv, r in res.items():
        assert r.statistic == pytest.approx(0.0)
        assert r.p_value == pytest.approx(1.0), lv
    assert paired_accuracy_test([1, 0, 1], [1, 0, 1]).p_value == 1.0


def test_a_much_better_row_gives_a_small_p_value():
    rng = np.random.default_rng(3)
    y = rng.normal(size=(20, 8))
    good = y + 0.1 * rng.normal(size=y.shape)
    noise = rng.normal(size=y.shape)
    res = paired_correlation_test(good, noise, y, n_resamples=300, seed=2)
    assert res["dataset"].statistic > 0.8
    assert res["dataset"].p_value <= 1 / 301 + 1e-12  # no resample as extreme: (1 + 0) / (1 + R)
    assert res["sample"].p_value < 0.01


def test_missing_cells_are_left_out_of_the_paired_comparison():
    rng = np.random.default_rng(5)
    y = rng.normal(size=(4, 3))
    x = y.copy()
    x[0, 0] = np.nan
    z = rng.normal(size=(4, 3))
    res = paired_correlation_test(x, z, y, n_resamples=5000)
    assert res["dataset"].n_units == 11
    assert res["dataset"].exact and res["dataset"].n_permutations == 2 ** 11  # 2048 <= 5000: enumerated
    assert math.isnan(p_from_null(float("nan"), np.zeros(3), True))
