"""Repeats (samples > 1; sumjudge/stats/repeats.py): one aggregation per unit and the
sample-to-sample variance, by hand."""
import numpy as np
import pytest

from sumjudge.stats.repeats import aggregate_samples, sample_variance

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


def test_sample_variance_by_hand():
    # unit 0: 1 0 1 -> mean 2/3, var (1/9 + 4/9 + 1/9) / 2 = 1/3; unit 1: 1 1 NaN -> 0; unit 2: one sample: out
    v, n = sample_variance([[1, 0, 1], [1, 1, NAN], [0, NAN, NAN]])
    assert n == 2 and v == pytest.approx((1 / 3 + 0) / 2)
