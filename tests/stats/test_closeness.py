"""Close to the humans on one ruler (sumjudge/stats/closeness.py; docs/statistics.md,
"Close to the humans"): the weighted leave-one-out difference, its one-sided bound and
verdict, the splits of scores and labels, and the twin flag, by hand."""
import numpy as np
import pytest

from sumjudge.stats.bootstrap import BootBoth
from sumjudge.stats.closeness import (label_scores, label_split, label_twin, score_splits, score_twin, score_weights,
                                      verdict)
from sumjudge.stats.loo import others_mean
from sumjudge.stats.matrix import levels_stack

NAN = float("nan")


def test_verdict_by_hand():
    # splits weighted 1, 1, 2: judge (.5 + .7 + 2 x .6) / 4 = .6, humans .6: D = 0
    j, h, w = np.array([0.5, 0.7, 0.6]), np.array([0.6, 0.6, 0.6]), np.array([1.0, 1.0, 2.0])
    d = np.linspace(-0.1, 0.1, 1001)                    # resampled D, the same in every split
    hb = np.tile(np.full(1001, 0.6), (3, 1))
    jb = hb + d
    v = verdict(j, h, w, jb, hb, 0.95, 0.1, 3)
    assert (v.value, v.human, v.diff) == pytest.approx((0.6, 0.6, 0.0))
    # the one-sided 95 % lower bound is the 5th percentile of D: -.09, above -.1: close
    assert v.bound == pytest.approx(-0.09) and v.close is True
    assert (v.diff_low, v.diff_high) == pytest.approx((-0.095, 0.095))
    assert verdict(j, h, w, jb, hb, 0.95, 0.05, 3).close is False          # -.09 below -.05
    two = verdict(j, h, w, jb, hb, 0.95, 0.1, 2)
    assert two.close is None and two.reason == "n/a: fewer than 3 annotators" and two.value == pytest.approx(0.6)


def test_label_splits_by_hand():
    votes = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1], [1, 0, NAN]])
    ref, use = label_split(votes, 0, None, "exact")
    # others of annotator 0: (1, 0) tie, (0, 0) 0, (0, 1) tie, (0, NaN) 0 -> units 1 and 3
    assert np.array_equal(ref, [NAN, 0, NAN, 0], equal_nan=True) and use.tolist() == [False, True, False, True]
    pred = np.array([1.0, NAN, 1.0, 0.0])
    # unit 1: invalid -> wrong (0); unit 3: 0 vs 0 right
    assert np.array_equal(label_scores(pred, ref, use, None, "exact"), [NAN, 0.0, NAN, 1.0], equal_nan=True)
    # a tie answer (2) under "half": a preference against a human tie is half right, an invalid answer wrong
    ties = np.array([[2, 2, 0], [0, 2, 2]], dtype=float)
    ref, use = label_split(ties, 0, 2, "half")
    assert np.array_equal(ref, [NAN, 2], equal_nan=True)
    assert label_scores(np.array([0.0, 0.0]), ref, use, 2, "half")[1] == 0.5
    assert label_scores(np.array([0.0, NAN]), ref, use, 2, "half")[1] == 0.0
    _, decided = label_split(ties, 0, 2, "decided")
    assert not decided.any()                               # a human tie leaves the unit out


def test_score_splits_and_weights():
    rng = np.random.default_rng(0)
    stack = rng.integers(1, 6, size=(3, 12, 5)).astype(float)
    stack[1, 0, 0] = NAN
    judge = stack.mean(axis=0) + rng.normal(size=(12, 5))
    plan = BootBoth.draw(12, 5, 50, 3, "both")
    got = score_splits(stack, judge, plan, "spearman", "zero")
    for a in range(3):   # the judge on the cells annotator a scored, against the others' mean
        want = levels_stack(np.where(np.isnan(stack[a]), NAN, judge), others_mean(stack, a))
        for lv in ("sample", "system", "dataset"):
            assert got[lv][0][a] == pytest.approx(float(want[lv])), (a, lv)
            assert got[lv][1].shape == (3, 50)
    assert score_weights(stack).tolist() == [60.0, 59.0, 60.0]


def test_a_twin_follows_one_annotator():
    rng = np.random.default_rng(1)
    truth = rng.normal(size=(30, 8))
    stack = np.stack([np.round(truth + rng.normal(scale=0.8, size=truth.shape)) for _ in range(3)])
    names = ("x", "y", "z")
    def loo(j):
        return score_splits(stack, j, BootBoth.draw(30, 8, 10, 0, "both"), "spearman", "zero")["dataset"][0]
    twin = stack[1] + rng.normal(scale=0.01, size=truth.shape)
    assert score_twin(stack, twin, names, "dataset", "spearman", "zero", loo(twin)) == "y"
    mean = stack.mean(axis=0)      # the reference copy agrees with everyone, follows no one
    assert score_twin(stack, mean, names, "dataset", "spearman", "zero", loo(mean)) == ""
    votes = (stack[:, :, 0].T > 0).astype(float)                           # 30 units x 3 annotators
    assert label_twin(votes, votes[:, 2].copy(), names, np.zeros(3), 5) == "z"
    assert label_twin(votes, votes[:, 2].copy(), names, np.ones(3), 5) == ""  # not above its own LOO
