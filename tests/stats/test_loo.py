"""Leave-one-out references (sumjudge/stats/loo.py): the others' mean and majority, every
annotator against them by hand, and the order-free rule of anonymous votes, also on the
real REALSumm counts."""
import math

import numpy as np
import pytest

from sumjudge.stats.loo import (counts_from_votes, loo_exchangeable, loo_labels, majority, others_mean,
                                votes_from_counts)

NAN = float("nan")


def test_loo_labels_binary_majority_of_the_others():
    votes = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1], [1, 0, NAN]])
    judge = np.array([1, 0, 1, 1], dtype=float)
    res = loo_labels(votes, {"j": judge})
    # a=0: others' majority: tie, 0, tie, 0 -> own 0 right (u1), 1 wrong (u3): 1/2, two ties
    # a=1: tie, 0, 1, 1 -> own 0 right, 0 wrong, 0 wrong: 1/3, one tie
    # a=2: 1, 0, tie, (not labelled by 2) -> own 0 wrong, 0 right: 1/2, one tie
    assert res.annotators == pytest.approx([0.5, 1 / 3, 0.5])
    assert res.n == [2, 3, 2]
    assert res.n_ties == [2, 1, 1]
    # the judge on the same units and references: 1/2, 3/3, 2/2 -> mean 5/6
    assert res.judge_splits["j"] == pytest.approx([0.5, 1.0, 1.0])
    assert res.judges["j"] == pytest.approx(5 / 6)


def test_loo_pairwise_choices_majority_with_three_options():
    # pairwise choices (0/1, and 2 for "tie" if a protocol allowed it): the mode must be unique
    assert np.array_equal(majority(np.array([[0, 1, 2], [2, 2, 1], [1, NAN, NAN]])), [NAN, 2, 1], equal_nan=True)
    res = loo_labels(np.array([[0, 0, 1], [1, 1, 1]], dtype=float))
    # a=0: others (0, 1) tie, (1, 1) -> 1 right: 1/1; a=1 the same; a=2: (0, 0) -> 0, own 1 wrong; 1 right: 1/2
    assert res.annotators == pytest.approx([1.0, 1.0, 0.5])


def test_loo_pyramid_from_anonymous_vote_counts():
    votes = votes_from_counts([2, 0, 3], [3, 3, 3])
    assert votes.tolist() == [[1, 1, 0], [0, 0, 0], [1, 1, 1]]
    res = loo_labels(votes)
    # a=0: others (1,0) tie, (0,0) 0 right, (1,1) 1 right -> 1; a=1 likewise -> 1;
    # a=2: others (1,1) -> 1, own 0 wrong; right; right -> 2/3
    assert res.annotators == pytest.approx([1.0, 1.0, 2 / 3])
    assert np.isnan(votes_from_counts([1], [2])[0]).sum() == 0
    assert np.isnan(votes_from_counts([1, 0], [1, 2])[0, 1])
    with pytest.raises(ValueError, match="yes votes"):
        votes_from_counts([3], [2])


def test_loo_exchangeable_by_hand():
    # unit 0: 2 of 3 yes. A yes voter left out (2/3): others 1-1, a tie -> dropped;
    #   a no voter left out (1/3): others 2 yes -> ref 1, the no voter wrong.
    # unit 1: 0 of 3: every voter right (weight 1); unit 2: 3 of 3 likewise.
    r = loo_exchangeable([2, 0, 3], [3, 3, 3])
    assert r.human == pytest.approx((0 + 1 + 1) / (1 / 3 + 1 + 1))      # 6/7
    assert r.n_decisions == pytest.approx(7 / 3) and r.n_tied == pytest.approx(2 / 3)
    assert r.n_units == 3 and math.isnan(r.judge)
    # judge 1, 0, 0: unit 0 no-branch ref 1 right (1/3); unit 1 right (1); unit 2 wrong (0)
    r = loo_exchangeable([2, 0, 3], [3, 3, 3], [1, 0, 0])
    assert r.judge == pytest.approx((1 / 3 + 1) / (7 / 3))             # 4/7
    assert r.human_same_units == pytest.approx(6 / 7)
    # ties scored 1/2: unit 0 yes-branch counts 2/3 x 1/2 -> (1/3 + 2) / 3
    assert loo_exchangeable([2, 0, 3], [3, 3, 3], tie="half").human == pytest.approx(7 / 9)
    # an invalid answer is wrong on the same units, or leaves the unit out of both
    wrong = loo_exchangeable([2, 0, 3], [3, 3, 3], [NAN, 0, 1])
    assert wrong.judge == pytest.approx((0 + 1 + 1) / (7 / 3)) and wrong.n_invalid == 1
    drop = loo_exchangeable([2, 0, 3], [3, 3, 3], [NAN, 0, 1], invalid="drop")
    assert (drop.judge, drop.human_same_units, drop.n_units) == (1.0, 1.0, 2)
    # a unit with one vote has no others: not counted
    assert loo_exchangeable([1, 2], [1, 2]).n_units == 1
    with pytest.raises(ValueError, match="yes votes"):
        loo_exchangeable([3], [2])


@pytest.fixture(scope="module")
def realsumm_counts(prepared):
    df = prepared("realsumm")
    yes = np.array([y for ys in df["scu_votes_present"] for y in ys])
    n = np.array([k for ks in df["scu_n_votes"] for k in ks])
    return yes, n


def test_vote_order_changes_nothing_on_real_realsumm(realsumm_counts):
    yes, n = realsumm_counts
    assert yes.size == 25344
    rng = np.random.default_rng(0)
    gold = (2 * yes > n).astype(float)
    judge = np.where(rng.random(yes.size) < 0.2, 1 - gold, gold)      # the gold with 20 % flipped
    sorted_votes = votes_from_counts(yes, n)                            # yes votes first
    shuffled = sorted_votes.copy()
    for i in range(shuffled.shape[0]):                                  # shuffle within every unit
        k = int(n[i])
        shuffled[i, :k] = rng.permutation(shuffled[i, :k])
    a = loo_exchangeable(*counts_from_votes(sorted_votes), judge)
    b = loo_exchangeable(*counts_from_votes(shuffled), judge)
    assert a == b
    # the per-position rows of the vote array move with the order (review H2), the new row does not
    old_sorted = loo_labels(sorted_votes).annotators
    old_shuffled = loo_labels(shuffled).annotators
    assert max(abs(x - y) for x, y in zip(old_sorted, old_shuffled)) > 0.02
    assert 0.8 < a.human < 0.95 and 0.6 < a.judge < 0.85


def test_others_mean_leaves_the_annotator_out():
    ratings = np.array([[[1.0, NAN]], [[3.0, 4.0]], [[5.0, NAN]]])
    # a=0: mean(3, 5) = 4 and 4; a=1: mean(1, 5) = 3 and none (NaN); a=2: mean(1, 3) = 2 and 4
    assert np.array_equal(others_mean(ratings, 0), [[4.0, 4.0]])
    assert np.array_equal(others_mean(ratings, 1), [[3.0, NAN]], equal_nan=True)
    assert np.array_equal(others_mean(ratings, 2), [[2.0, 4.0]])
