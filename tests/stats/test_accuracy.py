"""Accuracies of decisions against human labels, invalid replies, exact intervals for rates:
hand-computed cases (sumjudge/stats/accuracy.py)."""
import math

import numpy as np
import pytest

from sumjudge.stats.accuracy import accuracy, clopper_pearson, correctness


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
