"""Soft Pairwise Accuracy (sumjudge/stats/spa.py; WMT24, mt-metrics-eval's pce.py) on a
fixture computed by hand over every sign pattern."""
import numpy as np
import pytest

from sumjudge.stats.paired import patterns
from sumjudge.stats.spa import pairwise_p, soft_pairwise_accuracy, spa


def test_soft_pairwise_accuracy_by_hand():
    """Three documents, systems A > B > C in every document for the humans. Over the 8
    sign patterns: A-B differences (1, 1, 1), observed 3, reached by one pattern: p 1/8;
    likewise A-C and B-C. The judge reverses the first document: A-B differences
    (-1, 1, 1), observed 1, reached by 4 of the 8 patterns (+-1 +-1 +-1 >= 1): p 4/8; A-C
    (-2, 2, 2) and B-C (-1, 1, 1) likewise. SPA = 1 - mean |1/8 - 4/8| = 1 - 3/8 = 5/8."""
    human = np.array([[3.0, 2.0, 1.0]] * 3)
    judge = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    signs = patterns(3)
    hp, jp = pairwise_p(human, signs), pairwise_p(judge, signs)
    iu = np.triu_indices(3, 1)
    assert hp[iu] == pytest.approx([1 / 8] * 3) and jp[iu] == pytest.approx([4 / 8] * 3)
    assert np.isnan(hp[1, 0]) and np.isnan(hp[0, 0])
    assert soft_pairwise_accuracy(hp, jp) == pytest.approx(5 / 8)
    assert soft_pairwise_accuracy(hp, hp) == 1.0
    assert np.isnan(soft_pairwise_accuracy(np.ones((1, 1)), np.ones((1, 1))))


def test_spa_of_the_humans_own_scores_is_one_and_of_noise_lower():
    rng = np.random.default_rng(0)
    human = rng.normal(size=(50, 6)) + np.arange(6)
    assert spa(human, human, 500, 1) == 1.0
    noise = rng.normal(size=human.shape)
    assert spa(noise, human, 500, 1) < 0.7
    # a document without the human score is left out of the judge's pairs too
    gap = human.copy()
    gap[0, 0] = np.nan
    assert spa(human, gap, 500, 1) == 1.0
