"""The alt-test, leave-one-out human rows and the paired tests between judges,
each against values computed by hand (the arithmetic is in the comments)."""
import math

import numpy as np
import pytest

from sumjudge.stats.alt_test import (AnnotatorTest, alignment, annotator_tests, by_adjust, judge_alt_test,
                                     one_sided_t, within_group_ranks)
from sumjudge.stats.loo import loo_labels, loo_likert, majority, votes_from_counts
from sumjudge.stats.paired import cluster_paired_accuracy, pair_family, rank_groups, separable
from sumjudge.stats.permutation import PermutationResult
from sumjudge.stats.ranks import rank_judges

NAN = float("nan")


# ---------------------------------------------------------------- leave-one-out


def test_loo_likert_one_document_three_annotators():
    # one document, three systems; annotators' scores and a judge's
    ratings = np.array([[[1, 2, 3]], [[1, 3, 2]], [[2, 1, 3]]], dtype=float)
    judge = np.array([[3, 2, 1]], dtype=float)
    res = loo_likert(ratings, {"j": judge})
    # annotator 0 vs mean(1, 2) = [1.5, 2, 2.5]: same order -> rho = 1
    # annotator 1 vs mean(0, 2) = [1.5, 1.5, 3] (ranks 1.5 1.5 3), own ranks 1 3 2:
    #   dx = (-1, 1, 0), dy = (-.5, -.5, 1), sum dx dy = 0 -> rho = 0
    # annotator 2 vs mean(0, 1) = [1, 2.5, 2.5], own ranks 2 1 3:
    #   dx = (0, -1, 1), dy = (-1, .5, .5) -> 0
    assert res.annotators["sample"] == pytest.approx([1.0, 0.0, 0.0])
    assert res.annotators["dataset"] == pytest.approx([1.0, 0.0, 0.0])
    # judge ranks 3 2 1: vs ref0 -> -1; vs ref1: dx = (1, 0, -1), sxy = -1.5, sxx = 2, syy = 1.5
    #   -> -1.5 / sqrt(3) = -0.8660; vs ref2 the same; mean = (-1 - 2 * 0.8660) / 3
    assert res.judge_splits["j"]["sample"] == pytest.approx([-1.0, -1.5 / math.sqrt(3), -1.5 / math.sqrt(3)])
    assert res.judges["j"]["sample"] == pytest.approx((-1 - 3 / math.sqrt(3)) / 3)
    assert res.n_cells == [3, 3, 3]


def test_loo_likert_needs_two_annotators():
    with pytest.raises(ValueError, match="A >= 2"):
        loo_likert(np.ones((1, 2, 3)))


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


# ---------------------------------------------------------------- alt-test


def test_alignment_scores():
    # 1 vs (1, 0): one of two agree; 0 vs (1, 1): none
    assert alignment([1, 0], [[1, 0], [1, 1]], "accuracy").tolist() == [0.5, 0.0]
    assert alignment([3.0], [[1.0, 4.0]], "neg_rmse")[0] == pytest.approx(-math.sqrt((4 + 1) / 2))
    assert np.isnan(alignment([1.0], [[NAN]], "accuracy")[0])
    assert within_group_ranks([3, 3, 1, 2], ["a", "a", "b", "b"]).tolist() == [1.5, 1.5, 1.0, 2.0]
    with pytest.raises(ValueError, match="alt-test score"):
        alignment([1], [[1]], "kappa")


def test_one_sided_t_by_hand():
    d = np.array([0, -1, 1, -1, 0], dtype=float)
    # mean -0.2, sd^2 = (0.04 + 0.64 + 1.44 + 0.64 + 0.04) / 4 = 0.7
    t_hand = (-0.2 - 0.2) / (math.sqrt(0.7) / math.sqrt(5))
    # Student t with 4 degrees of freedom in closed form: F(t) = 1/2 + t (t^2 + 6) / (2 (t^2 + 4)^1.5)
    p_hand = 0.5 + t_hand * (t_hand ** 2 + 6) / (2 * (t_hand ** 2 + 4) ** 1.5)
    t, p = one_sided_t(d, 0.2)
    assert t == pytest.approx(-1.069045, abs=1e-6) and t == pytest.approx(t_hand)
    assert p == pytest.approx(p_hand, abs=1e-12)
    assert one_sided_t([0, 0, 0], 0.1) == (-math.inf, 0.0)   # no spread, below epsilon: rejected
    assert one_sided_t([1, 1], 0.1) == (math.inf, 1.0)


def test_by_adjust_by_hand():
    # m = 4, c(4) = 1 + 1/2 + 1/3 + 1/4 = 25/12; sorted .01 .03 .04 .20
    # raw p m c / i: .01*25/3 = .08333, .03*25/6 = .125, .04*25/9 = .11111, .2*25/12 = .41667
    # monotone from the largest down: .08333 .11111 .11111 .41667
    out = by_adjust([0.01, 0.04, 0.03, 0.20])
    assert out == pytest.approx([1 / 12, 1 / 9, 1 / 9, 5 / 12])
    assert np.isnan(by_adjust([NAN, 0.5])[0]) and by_adjust([NAN, 0.5])[1] == pytest.approx(0.5)


def test_annotator_tests_by_hand():
    h0 = [1, 0, 1, 1, 0]
    h1 = [1, 1, 1, 0, 0]
    pred = [1, 1, 0, 0, 0]
    tests, left = annotator_tests("c", pred, np.array([h0, h1], dtype=float).T, ["h0", "h1"],
                                  "accuracy", epsilon=0.2, min_instances=2)
    assert left == []
    t0, t1 = tests
    # j = h0: S_f = pred==h1 = 1 1 0 1 1, S_h = h0==h1 = 1 0 1 0 1 -> W_f = 1 1 0 1 1, W_h = 1 0 1 0 1
    assert t0.rho_judge == pytest.approx(0.8) and t0.rho_human == pytest.approx(0.6)
    assert t0.t == pytest.approx(-1.069045, abs=1e-6) and t0.p_value == pytest.approx(0.172636, abs=1e-6)
    # j = h1: S_f = pred==h0 = 1 0 0 0 1, S_h = 1 0 1 0 1 -> d = 0 0 1 0 0: mean .2 = epsilon -> t 0, p .5
    assert t1.rho_judge == pytest.approx(0.8) and t1.t == pytest.approx(0.0) and t1.p_value == pytest.approx(0.5)
    done, verdicts = judge_alt_test(tests, {"c": left}, q=0.05)
    # BY, m = 2, c = 1.5: .172636 * 3 = .51791; .5 * 3 / 2 = .75
    assert [d.p_adjusted for d in done] == pytest.approx([0.172636 * 3, 0.75], abs=1e-5)
    (v,) = verdicts
    assert v.winning_rate == 0.0 and v.advantage == pytest.approx(0.8) and not v.passed
    # with min_instances above the units, both annotators are left out and counted
    tests, left = annotator_tests("c", pred, np.array([h0, h1], dtype=float).T, ["h0", "h1"], min_instances=30)
    assert tests == [] and left == ["h0", "h1"]
    _, (v,) = judge_alt_test([], {"c": left})
    assert v.n_left_out == 2 and not v.passed and np.isnan(v.winning_rate)


def test_judge_alt_test_family_spans_columns():
    mk = lambda col, a, p, rho: AnnotatorTest(col, a, 40, rho, 0.5, -3.0, p)  # noqa: E731
    tests = [mk("x", "a", 0.001, 0.9), mk("x", "b", 0.3, 0.5), mk("y", "a", 0.002, 0.7)]
    done, verdicts = judge_alt_test(tests, {"x": [], "y": ["b"]}, q=0.05)
    # m = 3, c = 11/6: .001*5.5 = .0055, .002*5.5/2 = .0055, .3*5.5/3 = .55
    assert [d.p_adjusted for d in done] == pytest.approx([0.0055, 0.55, 0.0055])
    assert [d.rejected for d in done] == [True, False, True]
    x, y = verdicts
    assert (x.winning_rate, x.passed, x.advantage) == (0.5, True, pytest.approx(0.7))
    assert (y.winning_rate, y.passed, y.n_left_out) == (1.0, True, 1)


# ---------------------------------------------------------------- between judges


def test_cluster_paired_accuracy_exact_by_hand():
    # differences 1 0 0 1 in clusters c1 c1 c2 c3: cluster sums 1, 0, 1; observed 2/4 = .5
    # 8 sign patterns: |(+-1 +-0 +-1)/4| >= .5 when both non-zero clusters share a sign: 4 of 8
    res = cluster_paired_accuracy([1, 1, 0, 1], [0, 1, 0, 0], ["c1", "c1", "c2", "c3"])
    assert res.statistic == pytest.approx(0.5)
    assert res.exact and res.n_permutations == 8 and res.p_value == pytest.approx(0.5)
    # NaN (an invalid reply) leaves the decision out of both
    res = cluster_paired_accuracy([1, NAN, 0, 1], [0, 1, 0, 0], ["c1", "c1", "c2", "c3"])
    assert res.n_units == 3 and res.statistic == pytest.approx(2 / 3)


def test_pair_family_holm_and_ranks():
    ps = {("A", "B"): 0.01, ("A", "C"): 0.04, ("B", "C"): 0.03}
    fam = pair_family(["A", "B", "C"], lambda a, b: PermutationResult(0.1, ps[(a, b)], 100, False, 10,
                                                                      ps[(a, b)] / 2, 1 - ps[(a, b)] / 2))
    # Holm: sorted .01*3 = .03, .03*2 = .06, .04*1 = .04 -> monotone .03 .06 .06
    assert [r["p_adjusted"] for r in fam] == pytest.approx([0.03, 0.06, 0.06])
    assert separable(fam) == 1
    # one-sided, Holm over 6 directional hypotheses: .005 .02 .015 (then three near 1)
    # sorted .005*6 = .03, .015*5 = .075, .02*4 = .08 -> A>B .03, A>C .08, B>C .075
    assert [r["p_one_sided_adjusted"] for r in fam] == pytest.approx([0.03, 0.08, 0.075])
    ranks = rank_judges({"A": 0.8, "B": 0.7, "C": 0.3}, fam)
    # only A > B is significant: B ranks 2, and C (lower value than B) is not put above it
    assert {k: (r.rank, r.high) for k, r in ranks.items()} == {"A": (1, 2), "B": (2, 3), "C": (2, 3)}
    assert rank_groups({"A": 0.8, "B": 0.7, "C": 0.3}, fam) == {"A": 1, "C": 1, "B": 2}  # the old inversion
    pairs = [{"a": "A", "b": "B", "delta": 0.1, "p_adjusted": 0.4},
             {"a": "A", "b": "C", "delta": 0.5, "p_adjusted": 0.01},
             {"a": "B", "b": "C", "delta": 0.4, "p_adjusted": 0.03}]
    ranks = rank_judges({"A": 0.8, "B": 0.7, "C": 0.3, "D": NAN}, pairs)
    assert {k: r.rank for k, r in ranks.items()} == {"A": 1, "B": 1, "C": 3, "D": None}
    assert ranks["D"].reason == "no value"


# ---------------------------------------------------------------- both pairwise orders


def test_both_orders_rules_by_hand():
    from sumjudge.stats.orders import both_orders
    # five pairs; gold = original index of the better summary
    original = [0, 1, 0, 0, NAN]
    swapped = [1, 0, 1, 1, 0]     # displayed positions; as original index: 0, 1, 0, 0, 1
    gold = [0, 0, 1, 0, 1]
    r = both_orders(original, swapped, gold)
    # pairs 0-3 valid in both orders, all consistent -> consistency 1, flip 0
    assert (r.n_pairs, r.consistency, r.flip_rate, r.n_conflicts, r.flagged) == (4, 1.0, 0.0, 0, False)
    # first position: original answers 0 1 0 0 (3 firsts), swapped 1 0 1 1 0 (2 firsts): 5 of 9
    assert r.first_position_rate == pytest.approx(5 / 9)
    # original only: right on pairs 0 and 3 of 4 valid -> .5
    assert r.acc_original == pytest.approx(0.5)
    r = both_orders([0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 0, 1])
    # swapped as original index 1 1 0 0: pairs 2 agree (0), others conflict -> consistency 1/4, flip .75
    assert r.consistency == pytest.approx(0.25) and r.flagged and r.n_conflicts == 3
    # first position: 0 0 0 1 and 0 0 1 1 -> 5 of 8
    assert r.first_position_rate == pytest.approx(5 / 8)
    assert r.acc_original == pytest.approx(0.75)           # 0=0, 0!=1, 0=0, 1=1
    assert r.acc_agreement_else_tie == pytest.approx((0.5 + 0.5 + 1 + 0.5) / 4)
    assert r.acc_agreement_only == pytest.approx(1.0)      # the one agreeing pair is right
