"""One rule prices a judge's runs for the leaderboard and a jury's members (sumjudge.judge.cost):
a local judge's wall time at price_per_hour, any other its replies' cost; unknown is a reason, never 0."""
import pytest

from sumjudge.judge.cost import FREE, NOT_MEASURED, NOT_PRICED, runs_usd, total, usage_usd, wall_seconds
from sumjudge.jury.cost import jury_usage
from sumjudge.leaderboard.summary import JudgePricing, cost_row


def test_local_judge_wall_time_and_what_is_unknown():
    assert runs_usd([{"wall_s": 1800}, {"wall_s": 1800}], True, 2.0) == pytest.approx(2.0)  # 1 h at 2 USD
    assert runs_usd([{"wall_s": 1800}], True, None) == FREE
    assert runs_usd([{"wall_s": 0.2, "cache_hits": 3}], True, 2.0) == NOT_MEASURED  # a rebuild's time
    assert wall_seconds([{"wall_s": 3.0}, {}]) is None and wall_seconds([]) is None


def test_remote_judge_and_a_sum_of_costs():
    assert runs_usd([{"total_cost_usd": 0.25}, {"cost_usd": 0.5}], False, None) == pytest.approx(0.75)
    assert runs_usd([{"total_cost_usd": 0.25}, {"total_cost_usd": None}], False, None) == NOT_PRICED
    assert usage_usd({"total_cost_usd": None, "priced": False, "cost_note": FREE}) == FREE  # a jury of free members
    assert total([0.5, FREE, 0.25]) == pytest.approx(0.75) and total([FREE, FREE]) == FREE
    assert total([0.5, NOT_MEASURED, FREE]) == NOT_MEASURED


def test_a_jury_row_reads_its_members_cost_as_the_leaderboard_would_price_them():
    """The jury's usage.json carries the members' total (or why there is none); the leaderboard's cost row
    of the jury reads it as any remote judge's: a jury of free local members is free, not "not priced"."""
    import pandas as pd

    from sumjudge.judge.spec import judge_specs

    s = judge_specs({"judges": {"a": {"model": "m", "embedded": "qwen2.5-coder-0.5b-instruct"},
                                "b": {"model": "m", "embedded": "qwen2.5-coder-1.5b-instruct"},
                                "j": {"jury": ["a", "b"]}}})
    table = pd.DataFrame({"unit_id": ["u0", "u1"], "sample": 0, "status": "ok", "score_mode": "top token"})
    usage = jury_usage(table, s["j"], {m: s[m] for m in "ab"}, {"a": {"wall_s": 4.0}, "b": {"wall_s": 6.0}},
                       "summeval", "base")
    assert (usage["total_cost_usd"], usage["cost_note"], usage["wall_s"]) == (None, FREE, 10.0)

    class Run:
        frame = table

    Run.usage = usage
    row = cost_row([Run()], JudgePricing.of(s["j"]))
    assert (row["usd_total"], row["wall_s"], row["seconds_per_1k"]) == (FREE, 10.0, 5000.0)
