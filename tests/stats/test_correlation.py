"""Correlation levels against hand-computed values, with ties and a constant group."""
import math

import numpy as np
import pandas as pd
import pytest

from sumjudge.stats.correlation import correlate, correlation_levels, sample_level


def test_spearman_hand_computed_with_ties():
    # x ranks: 1, 2.5, 2.5, 4 ; y ranks: 1, 2, 3, 4
    # Pearson on ranks: dx = -1.5, 0, 0, 1.5 ; dy = -1.5, -.5, .5, 1.5
    # cov = 2.25 + 0 + 0 + 2.25 = 4.5 ; sx^2 = 4.5 ; sy^2 = 5 -> rho = 4.5 / sqrt(22.5)
    assert correlate([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(4.5 / math.sqrt(22.5))


def test_kendall_tau_b_hand_computed_with_ties():
    # pairs: (1,2) C, (1,3) C, (1,4) C, (2,3) tie in x, (2,4) C, (3,4) C -> nc=5, nd=0
    # tau_b = 5 / sqrt((6 - 1) * 6)
    assert correlate([1, 2, 2, 3], [10, 20, 30, 40], "kendall") == pytest.approx(5 / math.sqrt(30))


def test_constant_input_is_undefined():
    assert math.isnan(correlate([3, 3, 3], [1, 2, 3]))
    assert math.isnan(correlate([1], [1]))


@pytest.fixture
def table():
    # doc A: perfectly ordered (rho 1); doc B: reversed (rho -1); doc C: human constant
    return pd.DataFrame({
        "doc_id": list("AAABBBCCC"),
        "system": ["s1", "s2", "s3"] * 3,
        "metric": [1, 2, 3, 1, 2, 3, 1, 2, 3],
        "human": [1, 2, 3, 3, 2, 1, 4, 4, 4],
    })


def test_sample_level_zero_vs_skip(table):
    zero = sample_level(table, "metric", "human", undefined="zero")
    skip = sample_level(table, "metric", "human", undefined="skip")
    assert zero.value == pytest.approx((1 - 1 + 0) / 3)
    assert skip.value == pytest.approx((1 - 1) / 2)
    assert (zero.n_groups, zero.n_undefined) == (3, 1)
    assert (skip.n_groups, skip.n_undefined) == (3, 1)


def test_system_and_dataset_level(table):
    res = correlation_levels(table, "metric", "human")
    # system means: metric 1, 2, 3 ; human (1+3+4)/3, (2+2+4)/3, (3+1+4)/3 = 8/3 each -> constant
    assert math.isnan(res["system"].value) and res["system"].n_undefined == 1
    expected = correlate(table["metric"], table["human"])
    assert res["dataset"].value == pytest.approx(expected)
    assert res["dataset"].n_groups == 9


def test_missing_values_are_dropped(table):
    t = table.copy()
    t.loc[0, "metric"] = np.nan
    res = correlation_levels(t, "metric", "human")
    assert res["dataset"].n_pairs == 8
    # doc A now has 2 pairs (2,2), (3,3): rho = 1
    assert res["sample"].value == pytest.approx((1 - 1 + 0) / 3)


def test_unknown_options_raise(table):
    with pytest.raises(ValueError, match="undefined must be"):
        sample_level(table, "metric", "human", undefined="nan")
    with pytest.raises(ValueError, match="unknown correlation method"):
        correlate([1, 2], [2, 1], "pearsonr")
