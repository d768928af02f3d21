"""Ranks read from the paired tests and never rewritten (sumjudge/stats/ranks.py;
docs/statistics.md, "Ranks from the tests"): hand-made pair rows, and judges whose truth
is known through the real tests."""
import numpy as np

from sumjudge.stats.paired import cluster_paired_accuracy, pair_family
from sumjudge.stats.ranks import CYCLE, Rank, rank_judges

NAN = float("nan")


def _pairs(spec: dict) -> list[dict]:
    """Pair rows as pair_family gives them: (a, b) -> (better, adjusted one-sided p)."""
    return [{"a": a, "b": b, "delta": 0.1 if better == a else -0.1, "better": better,
             "p_one_sided_adjusted": p} for (a, b), (better, p) in spec.items()]


def test_a_significantly_better_row_takes_rank_1_whatever_the_values():
    """X .46, Y .45, Y significantly better: Y ranks 1, X 2, and both cells say that value
    and test disagree (the old monotone step gave both rank 2 and nobody rank 1)."""
    ranks = rank_judges({"X": 0.46, "Y": 0.45}, _pairs({("X", "Y"): ("Y", 0.002)}))
    assert (ranks["Y"].rank, ranks["Y"].high, ranks["X"].rank, ranks["X"].high) == (1, 1, 2, 2)
    assert ranks["Y"].note == "significantly better than X, whose value is not lower"
    assert ranks["X"].note == "Y is significantly better, with a value not higher"
    # a third row significantly worse than both: rank 3; rank 1 is never vacant
    ranks = rank_judges({"X": 0.46, "Y": 0.45, "Z": 0.1},
                        _pairs({("X", "Y"): ("Y", 0.002), ("X", "Z"): ("X", 0.01), ("Y", "Z"): ("Y", 0.01)}))
    assert {k: r.rank for k, r in ranks.items()} == {"X": 2, "Y": 1, "Z": 3}


def test_rank_is_one_plus_the_rows_significantly_better():
    # A .9 > B .8 > C .7, only A > B significant: B 2 [2, 3]; C has no row significantly better
    # than it: rank 1 with the range [1, 3] (the monotone step used to raise it to 2)
    ranks = rank_judges({"A": 0.9, "B": 0.8, "C": 0.7},
                        _pairs({("A", "B"): ("A", 0.01), ("A", "C"): ("A", 0.2), ("B", "C"): ("B", 0.5)}))
    assert ranks == {"A": Rank(1, 1, 2), "B": Rank(2, 2, 3), "C": Rank(1, 1, 3)}


def test_a_cycle_of_significant_results_ranks_nothing():
    ranks = rank_judges({"A": 0.5, "B": 0.4, "C": 0.3},
                        _pairs({("A", "B"): ("A", 0.01), ("B", "C"): ("B", 0.01), ("A", "C"): ("C", 0.01)}))
    assert all(r.rank is None and r.reason == CYCLE for r in ranks.values())


def test_nan_p_or_nan_value_gives_no_rank():
    ranks = rank_judges({"A": 0.8, "B": 0.79}, [{"a": "A", "b": "B", "delta": 0.01, "better": "A",
                                                  "p_one_sided_adjusted": NAN}])
    assert ranks["A"] == Rank(None, None, None, "no test result against B")
    assert ranks["B"].rank is None and "against A" in ranks["B"].reason
    # a row without common units (every pair NaN) is removed alone; the others are ranked
    vals = {"A": 0.9, "B": 0.8, "D": 0.95, "E": NAN}
    pairs = _pairs({("A", "B"): ("A", 0.01)}) + [
        {"a": "D", "b": o, "delta": NAN, "better": None, "p_one_sided_adjusted": NAN} for o in ("A", "B")]
    ranks = rank_judges(vals, pairs)
    assert ranks["D"].reason == "no test result against A, B" and ranks["D"].rank is None
    assert ranks["E"] == Rank(None, None, None, "no value")
    assert (ranks["A"].rank, ranks["B"].rank, ranks["A"].high, ranks["B"].high) == (1, 2, 1, 2)
    assert rank_judges({"A": 0.5, "B": 0.4}, [])["A"].rank is None        # a missing pair: no result
    assert rank_judges({"A": 0.5}, []) == {"A": Rank(1, 1, 1)}


def test_equal_delta_is_a_test_result_not_a_gap():
    pairs = [{"a": "A", "b": "B", "delta": 0.0, "better": None, "p_one_sided_adjusted": NAN}]
    assert rank_judges({"A": 0.5, "B": 0.5}, pairs) == {"A": Rank(1, 1, 2), "B": Rank(1, 1, 2)}


def _accuracy_ranks(accuracies, seed=1):
    """Judges right with the given probabilities on 400 documents x 5 decisions, ranked
    through the real cluster test and one-sided Holm."""
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(400), 5)
    correct = {f"j{k}": (rng.random(2000) < a).astype(float) for k, a in enumerate(accuracies)}
    fam = pair_family(list(correct), lambda a, b: cluster_paired_accuracy(correct[a], correct[b], clusters))
    return rank_judges({k: c.mean() for k, c in correct.items()}, fam), fam


def test_eight_well_separated_rows_get_eight_ranks():
    """Accuracies .38 to .94 (eight rows, 56 directional hypotheses): with 1000 Monte Carlo
    resamples every row ranked 1 (the floor 56/1001); the normal approximation of the
    cluster sums has no floor, so the ranks are 8, 7, ..., 1."""
    ranks, fam = _accuracy_ranks(np.linspace(0.38, 0.94, 8))
    assert [ranks[f"j{k}"].rank for k in range(8)] == [8, 7, 6, 5, 4, 3, 2, 1]
    assert max(r["p_one_sided_adjusted"] for r in fam) < 0.05


def test_known_truth_judges_through_the_real_tests():
    ranks, fam = _accuracy_ranks([1.0, 0.9, 0.5, 0.5])
    assert ranks["j0"] == Rank(1, 1, 1) and ranks["j1"] == Rank(2, 2, 2)
    # two coin flips are not separable from each other
    assert (ranks["j2"].rank, ranks["j3"].rank, ranks["j2"].high, ranks["j3"].high) == (3, 3, 4, 4)
    assert {r["better"] for r in fam if {r["a"], r["b"]} == {"j0", "j1"}} == {"j0"}
