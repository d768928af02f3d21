"""Leave-one-out rows that do not depend on the order of anonymous votes, and judges
scored on the same units as the left-out annotator (docs/statistics.md,
"Anonymous annotators" and "One ruler"); hand-computed values."""
import math

import numpy as np
import pytest

from sumjudge.stats.loo import (counts_from_votes, loo_column, loo_exchangeable, loo_labels, loo_likert,
                                votes_from_counts)

NAN = float("nan")


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


def test_loo_column_labels_judge_on_identical_units():
    votes = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1], [1, 0, NAN]])
    judge = np.array([1, NAN, 1, 1])
    col = loo_column(votes, {"j": judge}, "labels", ["a", "b", "c"])
    # splits as tests/stats/test_alt_test.py: a=0 units 1, 3 (refs 0, 0); a=1 units 1..3 (0, 1, 1); a=2 units 0, 1 (1, 0)
    assert {k: (v.values["accuracy"], v.n) for k, v in col.annotators.items()} == {
        "a": (0.5, 2), "b": (pytest.approx(1 / 3), 3), "c": (0.5, 2)}
    j = col.judges["j"]
    # invalid unit 1 counts wrong: a=0: (wrong, 1 vs 0 wrong) 0; a=1: wrong, right, right 2/3; a=2: right, wrong 1/2
    assert j.splits["accuracy"] == pytest.approx([0.0, 2 / 3, 0.5])
    assert j.n == [2, 3, 2] and j.n_invalid == 3
    assert j.humans["accuracy"] == pytest.approx((0.5 + 1 / 3 + 0.5) / 3)
    drop = loo_column(votes, {"j": judge}, "labels", invalid="drop").judges["j"]
    # unit 1 out of both: a=0: unit 3 only (judge 1 vs 0: 0; human 1 vs 0: 0); a=1: units 2, 3 (judge 1, 1 vs 1, 1;
    # human 0, 0): judge 1, human 0; a=2: unit 0 (judge 1 vs 1; human 0 vs 1): 1 and 0
    assert drop.splits["accuracy"] == pytest.approx([0.0, 1.0, 1.0]) and drop.n == [1, 2, 1]
    assert drop.humans["accuracy"] == pytest.approx(0.0)


def test_loo_column_likert_matches_loo_likert_and_masks_invalid_cells():
    ratings = np.array([[[1, 2, 3]], [[1, 3, 2]], [[2, 1, 3]]], dtype=float)
    judge = np.array([[3, 2, 1]], dtype=float)
    col = loo_column(ratings, {"j": judge}, "scores")
    old = loo_likert(ratings, {"j": judge})
    assert [col.annotators[str(a)].values["sample"] for a in range(3)] == pytest.approx(old.annotators["sample"])
    assert col.judges["j"].values["sample"] == pytest.approx(old.judges["j"]["sample"])
    assert col.judges["j"].n == [3, 3, 3]
    # a judge equal to the left-out annotator's reference... here: a judge missing one cell
    judge2 = np.array([[NAN, 2, 1]])
    j = loo_column(ratings, {"j": judge2}, "scores").judges["j"]
    assert j.n == [2, 2, 2] and j.n_invalid == 3
    # on cells 1, 2 only. a=0: ref (2, 2.5); annotator (2, 3) -> 1, judge (2, 1) -> -1.
    # a=1: ref (1.5, 3); annotator (3, 2) -> -1, judge -> -1. a=2: ref (2.5, 2.5) constant: undefined -> 0 for both
    assert j.splits["sample"] == pytest.approx([-1.0, -1.0, 0.0])
    assert j.humans["sample"] == pytest.approx(0.0) and j.values["sample"] == pytest.approx(-2 / 3)
    with pytest.raises(ValueError, match="A >= 2"):
        loo_column(np.ones((1, 2, 3)), kind="scores")
    with pytest.raises(ValueError, match="do not fit"):
        loo_column(ratings, {"j": np.ones((2, 3))}, "scores")
