"""Invalid answers scored so that abstaining never pays (sumjudge/stats/completion.py): the
worst answer per unit, and the system level's worst completion, by hand and against judges
that abstain on their hardest units of the real SummEval."""
import numpy as np
import pytest

from sumjudge.stats.completion import system_completion, worst_answers
from sumjudge.stats.matrix import levels_stack

NAN = float("nan")


def test_worst_answers_are_the_far_end_of_the_scale():
    assert np.array_equal(worst_answers([1.0, 2.9, 3.0, 4.5, NAN], 1, 5), [5, 5, 1, 1, NAN], equal_nan=True)
    assert worst_answers([10.0, 90.0], 0, 100).tolist() == [100.0, 0.0]


def test_the_system_completion_takes_the_worst_rank_position_by_hand():
    """Three systems, two documents; human system means 1, 2, 3; the judge's C has an invalid
    second answer, so C's mean can be anywhere in [(3 + 1) / 2, (3 + 5) / 2] = [2, 4]. Its
    worst reachable position is the lowest, a tie with B at 2: ranks (1, 2.5, 2.5), rho =
    sqrt(3) / 2 = .866 (at 4 it would be 1); the invalid answer becomes 1."""
    human = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    judge = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 5.0]])
    invalid = np.array([[False, False, False], [False, False, True]])
    out = system_completion(judge, invalid, human, 1.0, 5.0)
    assert out[1, 2] == 1.0 and (out[0] == judge[0]).all()
    assert float(levels_stack(out, human)["system"]) == pytest.approx(np.sqrt(3) / 2)
    assert system_completion(judge, np.zeros_like(invalid), human, 1, 5) is judge   # nothing invalid: as is


def test_abstaining_on_the_hardest_units_never_raises_a_level(prepared):
    """16 noisy judges of SummEval coherence and consistency, each invalid on the 4.9 % of
    summaries it is furthest off: with the worst answers and the system completion, no level
    of any of them is above the same judge's answered value (the worst answers alone raised
    the system level of 26 of 180 such judges, by up to .04)."""
    df = prepared("summeval")
    docs, systems = sorted(df["doc_id"].unique()), sorted(df["system"].unique())
    d, s = df["doc_id"].map({k: i for i, k in enumerate(docs)}), df["system"].map({k: i for i, k in enumerate(systems)})

    def grid(v):
        out = np.full((len(docs), len(systems)), NAN)
        out[d, s] = v
        return out

    gains = []
    for dim in ("coherence", "consistency"):
        ref = df[dim].to_numpy(float)
        human = grid(ref)
        for seed in range(8):
            rng = np.random.default_rng(seed)
            j = np.clip(np.round(ref + rng.normal(0, (0.6, 0.9, 1.4)[seed % 3], ref.size)), 1, 5)
            far = np.argsort(-np.abs(j - ref), kind="stable")[:78]
            w = j.copy()
            w[far] = worst_answers(ref, 1, 5)[far]
            invalid = np.zeros(ref.size)
            invalid[far] = 1
            answered, worst = levels_stack(grid(j), human), levels_stack(grid(w), human)
            completed = levels_stack(system_completion(grid(w), grid(invalid) == 1, human, 1, 5), human)
            gains += [worst["sample"] - answered["sample"], worst["dataset"] - answered["dataset"],
                      completed["system"] - answered["system"]]
    assert max(gains) <= 1e-12
