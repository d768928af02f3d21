"""One-sided paired tests and ranks with ties that never invert (docs/statistics.md,
"Ranks with ties"), against values computed by hand and judges whose truth is known."""
import numpy as np
import pytest

from sumjudge.stats.paired import cluster_paired_accuracy, pair_family, rank_groups
from sumjudge.stats.permutation import (PermutationResult, paired_accuracy_test, paired_correlation_test,
                                        swap_patterns)
from sumjudge.stats.ranks import Rank, rank_judges

NAN = float("nan")


def _pairs(spec: dict) -> list[dict]:
    """Pair rows as pair_family gives them: (a, b) -> (better, adjusted one-sided p)."""
    return [{"a": a, "b": b, "delta": 0.1 if better == a else -0.1, "better": better,
             "p_one_sided_adjusted": p, "p_adjusted": p} for (a, b), (better, p) in spec.items()]


# ---------------------------------------------------------------- one-sided p-values


def test_cluster_paired_accuracy_one_sided_exact_by_hand():
    # cluster sums 1, 0, 1, observed .5; the 8 patterns give .5 (2), 0 (4), -.5 (2)
    res = cluster_paired_accuracy([1, 1, 0, 1], [0, 1, 0, 0], ["c1", "c1", "c2", "c3"])
    assert res.p_value == pytest.approx(0.5)
    assert res.p_greater == pytest.approx(2 / 8)      # null >= .5
    assert res.p_less == pytest.approx(8 / 8)         # null <= .5
    swapped = cluster_paired_accuracy([0, 1, 0, 0], [1, 1, 0, 1], ["c1", "c1", "c2", "c3"])
    assert (swapped.p_greater, swapped.p_less) == pytest.approx((1.0, 0.25))


def test_cluster_paired_accuracy_one_sided_monte_carlo():
    # 12 clusters, A right and B wrong everywhere: 2**12 > 100 resamples -> Monte Carlo
    a, b, cl = np.ones(12), np.zeros(12), np.arange(12)
    res = cluster_paired_accuracy(a, b, cl, n_resamples=100, seed=3)
    assert not res.exact and res.n_permutations == 100
    masks, _ = swap_patterns(12, 100, 3)
    null = np.where(masks, -1.0, 1.0).sum(axis=1) / 12
    assert res.p_greater == pytest.approx((1 + (null >= 1.0 - 1e-12).sum()) / 101)
    assert res.p_less == pytest.approx(1.0)            # every null value is <= 1
    assert res.p_value == pytest.approx((1 + (np.abs(null) >= 1.0 - 1e-12).sum()) / 101)


def test_sign_test_one_sided_by_hand():
    res = paired_accuracy_test([1, 1, 1, 0], [0, 0, 0, 0])
    # three discordant units all for A: P(K >= 3 | m = 3) = 1/8; two-sided 2/8
    assert (res.p_value, res.p_greater, res.p_less) == pytest.approx((0.25, 0.125, 1.0))


def test_paired_correlation_test_carries_one_sided_p():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(6, 4))
    good, bad = y + 0.1 * rng.normal(size=y.shape), rng.normal(size=y.shape)
    r = paired_correlation_test(good, bad, y, n_resamples=200, scheme="documents")["sample"]
    # documents scheme, 6 documents: 64 <= 200 patterns, exact; the good row is better
    assert r.exact and r.statistic > 0
    assert r.p_greater == pytest.approx(1 / 64) and r.p_value == pytest.approx(2 / 64)
    assert r.p_less == pytest.approx(1.0)


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
    # the two-sided keys stay: Holm over 3: .02*3 = .06, .04*2 = .08, .6
    assert [r["p_adjusted"] for r in fam] == pytest.approx([0.06, 0.08, 0.6])
    flat = pair_family(["A", "B"], lambda a, b: PermutationResult(0.0, 1.0, 8, True, 4, 1.0, 1.0))
    assert flat[0]["better"] is None and np.isnan(flat[0]["p_one_sided"])
    assert "better" not in pair_family(["A", "B"], lambda a, b: res[(a, b)], one_sided=False)[0]


# ---------------------------------------------------------------- ranks


def test_old_groups_invert_and_new_ranks_do_not():
    values = {"A": 0.9, "B": 0.8, "C": 0.7}
    pairs = _pairs({("A", "B"): ("A", 0.01), ("A", "C"): ("A", 0.2), ("B", "C"): ("B", 0.5)})
    # the deprecated greedy groups rank C (0.7) above B (0.8)
    assert rank_groups(values, pairs) == {"A": 1, "C": 1, "B": 2}
    ranks = rank_judges(values, pairs)
    # raw: A 1, B 1 + 1 (A better) = 2, C 1; made monotone: C takes B's 2.
    # high: A 3 - 1 (worse: B) = 2, B 3, C 3
    assert ranks == {"A": Rank(1, 1, 2, ""), "B": Rank(2, 2, 3, ""), "C": Rank(2, 2, 3, "")}
    order = sorted(values, key=values.get, reverse=True)
    assert all(ranks[a].rank <= ranks[b].rank for a, b in zip(order, order[1:]))


def test_the_sign_matters():
    values = {"A": 0.9, "B": 0.8, "C": 0.7}
    # same p, but on their common units B is significantly better than A
    pairs = _pairs({("A", "B"): ("B", 0.01), ("A", "C"): ("A", 0.2), ("B", "C"): ("B", 0.5)})
    ranks = rank_judges(values, pairs)
    # raw low: A 2, B 1, C 1 -> monotone all 2; raw high: A 3, B 2, C 3 -> monotone 3
    assert {k: (r.rank, r.low, r.high) for k, r in ranks.items()} == {"A": (2, 2, 3), "B": (2, 2, 3),
                                                                      "C": (2, 2, 3)}
    # the old groups read the two-sided p and rank B below A
    assert rank_groups(values, pairs)["B"] == 2


def test_nan_p_or_nan_value_gives_no_rank():
    ranks = rank_judges({"A": 0.8, "B": 0.79}, [{"a": "A", "b": "B", "delta": 0.01, "better": "A",
                                                  "p_one_sided_adjusted": NAN}])
    assert ranks["A"] == Rank(None, None, None, "no test result against B")
    assert ranks["B"].rank is None and "against A" in ranks["B"].reason
    assert rank_groups({"A": 0.8, "B": 0.79}, [{"a": "A", "b": "B", "p_adjusted": NAN}]) == {"A": 1, "B": 1}
    # a judge without common units (every pair NaN) is removed alone; the others are ranked
    vals = {"A": 0.9, "B": 0.8, "D": 0.95, "E": NAN}
    pairs = _pairs({("A", "B"): ("A", 0.01)}) + [
        {"a": "D", "b": o, "delta": NAN, "better": None, "p_one_sided_adjusted": NAN} for o in ("A", "B")]
    ranks = rank_judges(vals, pairs)
    assert ranks["D"].reason == "no test result against A, B" and ranks["D"].rank is None
    assert ranks["E"] == Rank(None, None, None, "no value")
    assert (ranks["A"].rank, ranks["B"].rank, ranks["A"].high, ranks["B"].high) == (1, 2, 1, 2)
    # a missing pair counts as no test result
    assert rank_judges({"A": 0.5, "B": 0.4}, [])["A"].rank is None
    assert rank_judges({"A": 0.5}, []) == {"A": Rank(1, 1, 1, "")}


def test_equal_delta_is_a_test_result_not_a_gap():
    pairs = [{"a": "A", "b": "B", "delta": 0.0, "better": None, "p_one_sided_adjusted": NAN}]
    assert rank_judges({"A": 0.5, "B": 0.5}, pairs) == {"A": Rank(1, 1, 2, ""), "B": Rank(1, 1, 2, "")}


def test_two_sided_rows_still_rank_by_the_sign_of_delta():
    pairs = [{"a": "A", "b": "B", "delta": -0.2, "p_adjusted": 0.01}]
    assert rank_judges({"A": 0.9, "B": 0.8}, pairs) == {"A": Rank(2, 2, 2, ""), "B": Rank(2, 2, 2, "")}


def test_known_truth_judges_through_the_real_tests():
    rng = np.random.default_rng(1)
    n, k = 400, 80
    clusters = np.repeat(np.arange(k), n // k)
    gold = (rng.random(n) < 0.5).astype(float)
    preds = {"oracle": gold,
             "noisy": np.where(rng.random(n) < 0.1, 1 - gold, gold),
             "constant": np.ones(n),
             "random": (rng.random(n) < 0.5).astype(float)}
    correct = {j: (p == gold).astype(float) for j, p in preds.items()}
    values = {j: float(c.mean()) for j, c in correct.items()}
    fam = pair_family(sorted(preds), lambda a, b: cluster_paired_accuracy(correct[a], correct[b], clusters,
                                                                          2000, 0), "holm")
    ranks = rank_judges(values, fam)
    assert ranks["oracle"] == Rank(1, 1, 1, "")
    assert ranks["noisy"] == Rank(2, 2, 2, "")
    # constant and random are both near .5: neither separable from the other
    assert {ranks["constant"].rank, ranks["random"].rank} == {3} and ranks["random"].high == 4
    fav = {r["better"] for r in fam if {r["a"], r["b"]} == {"oracle", "noisy"}}
    assert fav == {"oracle"}
