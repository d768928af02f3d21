"""Paired tests between the rows of one column with a resolution known before testing
(sumjudge/stats/paired.py; docs/statistics.md, "Ranks from the tests"): the sign-flip
test exact by enumeration and by its normal approximation, cluster swaps, one-sided Holm
over both directions, and the smallest adjusted p a family can reach."""
import math

import numpy as np
import pytest
from scipy import stats as st

from sumjudge.stats.paired import (cluster_paired_accuracy, exact_floor, normal_from_null, pair_family, patterns,
                                   separable, sign_flip, smallest_adjusted_p)
from sumjudge.stats.permutation import PermutationResult

NAN = float("nan")


def test_sign_flip_exact_by_hand():
    # contributions .25, 0, .25 (cluster sums / 4): observed .5; the 8 patterns give .5 (2), 0 (4), -.5 (2)
    r = sign_flip([0.25, 0.0, 0.25])
    assert r.exact and r.n_permutations == 8 and r.statistic == pytest.approx(0.5)
    assert (r.p_greater, r.p_less, r.p_value) == pytest.approx((2 / 8, 1.0, 4 / 8))
    assert patterns(2).tolist() == [[1, 1], [-1, 1], [1, -1], [-1, -1]]
    assert np.isnan(sign_flip([NAN]).p_value)


def test_sign_flip_normal_approximation_by_hand():
    # 17 contributions of +1 (2^17 patterns > 2^16: no enumeration): the permutation distribution
    # has mean 0 and variance 17, so z = 17 / sqrt(17) and p_greater = 1 - Phi(sqrt(17)) = 1.87e-5,
    # below any Monte Carlo floor (1 / 1001 with 1000 resamples)
    r = sign_flip(np.ones(17))
    assert not r.exact
    assert r.p_greater == pytest.approx(st.norm.sf(math.sqrt(17))) == pytest.approx(1.869e-5, rel=1e-3)
    assert r.p_less == pytest.approx(st.norm.cdf(math.sqrt(17)))
    assert r.p_value == pytest.approx(2 * st.norm.sf(math.sqrt(17)))
    # the same contributions enumerated (exact_max 2^17) reach 2^-17
    assert sign_flip(np.ones(17), exact_max=2 ** 17).p_greater == pytest.approx(2.0 ** -17)
    # no spread: every pattern gives 0
    assert sign_flip(np.zeros(20)).p_value == 1.0
    # from draws: variance = mean of the squared draws (mean 0 by the swap's symmetry)
    r = normal_from_null(2.0, np.array([1.0, -1.0, 1.0, -1.0]), 10)
    assert r.p_greater == pytest.approx(st.norm.sf(2.0)) and r.n_units == 10


def test_cluster_paired_accuracy_by_hand():
    # differences 1 0 0 1 in clusters c1 c1 c2 c3: cluster sums 1, 0, 1 over 4 decisions
    res = cluster_paired_accuracy([1, 1, 0, 1], [0, 1, 0, 0], ["c1", "c1", "c2", "c3"])
    assert res.statistic == pytest.approx(0.5) and res.exact and res.n_permutations == 8
    assert (res.p_value, res.p_greater, res.p_less) == pytest.approx((0.5, 0.25, 1.0))
    # NaN (not counted) leaves the decision out of both
    res = cluster_paired_accuracy([1, NAN, 0, 1], [0, 1, 0, 0], ["c1", "c1", "c2", "c3"])
    assert res.n_units == 3 and res.statistic == pytest.approx(2 / 3)
    # 400 clusters of 5 decisions, A right and B wrong on one decision of each: every cluster
    # sum is 1/2000, so z = 400 / sqrt(400) = 20
    a = np.tile([1.0, 0, 0, 0, 0], 400)
    r = cluster_paired_accuracy(a, np.zeros(2000), np.repeat(np.arange(400), 5))
    assert not r.exact and r.statistic == pytest.approx(0.2) and r.p_greater == pytest.approx(st.norm.sf(20.0))
    with pytest.raises(ValueError, match="equal 1-d"):
        cluster_paired_accuracy([1], [1, 0], [0])


def test_pair_family_one_sided_holm_over_both_directions_by_hand():
    res = {("A", "B"): PermutationResult(0.1, 0.02, 100, False, 10, 0.01, 0.99),
           ("A", "C"): PermutationResult(-0.1, 0.04, 100, False, 10, 0.98, 0.02),
           ("B", "C"): PermutationResult(0.05, 0.6, 100, False, 10, 0.3, 0.7)}
    fam = pair_family(["A", "B", "C"], lambda a, b: res[(a, b)], "holm")
    # six directional p: .01 .98 .3 | .99 .02 .7; sorted .01 .02 .3 .7 .98 .99
    # Holm: .06 .10 1.2 -> 1 ...; so A>B .06, C>A .10, B>C 1
    assert [r["better"] for r in fam] == ["A", "C", "B"]
    assert [r["p_one_sided"] for r in fam] == pytest.approx([0.01, 0.02, 0.3])
    assert [r["p_one_sided_adjusted"] for r in fam] == pytest.approx([0.06, 0.10, 1.0])
    assert [r["p_value"] for r in fam] == pytest.approx([0.02, 0.04, 0.6])      # raw two-sided, kept
    assert separable(fam) == 0 and separable(fam, alpha=0.07) == 1              # the ranks' test, one-sided
    flat = pair_family(["A", "B"], lambda a, b: PermutationResult(0.0, 1.0, 8, True, 4, 1.0, 1.0))
    assert flat[0]["better"] is None and np.isnan(flat[0]["p_one_sided"])


def test_the_smallest_adjusted_p_is_known_before_testing():
    # 1000 Monte Carlo resamples, 8 rows: Holm's first step multiplies 1/1001 by the 56
    # directional hypotheses: .0559 >= .05, no pair separable whatever the data (review N2)
    assert smallest_adjusted_p(8, 1 / 1001) == pytest.approx(56 / 1001)
    assert smallest_adjusted_p(7, 1 / 1001) == pytest.approx(42 / 1001) and 42 / 1001 < 0.05
    # the normal approximation has no floor; an exact test over K units has 2^-K
    assert smallest_adjusted_p(20, exact_floor(100)) == 0.0
    assert exact_floor(3) == 1 / 8 and smallest_adjusted_p(2, exact_floor(3)) == 0.25     # SQuALITY's 3 systems
    assert smallest_adjusted_p(4, exact_floor(7)) == pytest.approx(12 / 128)              # Newsroom: 4 rows
    assert smallest_adjusted_p(3, exact_floor(7)) == pytest.approx(6 / 128) and 6 / 128 < 0.05
    assert smallest_adjusted_p(2, exact_floor(5)) == pytest.approx(2 / 32) and 2 / 32 >= 0.05  # 5 systems never
    assert exact_floor(17) == 0.0 and smallest_adjusted_p(3, 0.01, "none") == 0.01
