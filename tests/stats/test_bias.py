"""Length biases, hand-computed (sumjudge/stats/bias.py)."""
import numpy as np
import pytest

from sumjudge.stats.bias import length_correlation, longer_preference, words


def test_longer_preference_counts_only_pairs_that_differ_by_more_than_the_margin():
    len_0 = [10, 10, 10, 10, 10]
    len_1 = [20, 11, 5, 30, 13]   # differ by 100 %, 10 %, 100 % (0 longer), 200 %, 30 %
    choice = [1, 1, 1, np.nan, 0]
    b = longer_preference(choice, len_0, len_1, margin=0.2)
    # qualifying: pairs 0, 2, 4 (pair 1 within 20 %, pair 3 has no valid choice)
    # longer: 1, 0, 1; chosen: 1, 1, 0 -> one of three picks the longer
    assert b.n == 3 and b.value == pytest.approx(1 / 3)
    assert longer_preference(choice, len_0, len_1, margin=2.0).n == 0
    assert np.isnan(longer_preference([0], [5], [5]).value)


def test_length_correlation_is_spearman_over_scored_units():
    b = length_correlation([1, 2, np.nan, 4, 3], [10, 20, 99, 40, 50])
    # ranks of scores 1,2,4,3 -> 1,2,4,3; lengths 10,20,40,50 -> 1,2,3,4; d^2 = 0+0+1+1
    assert b.n == 4 and b.value == pytest.approx(1 - 6 * 2 / (4 * 15))
    assert np.isnan(length_correlation([3, 3, 3], [1, 2, 3]).value)


def test_words():
    assert words(["a b  c", "", "one"]).tolist() == [3, 0, 1]
