"""What a jury costs: its members' cost, summed (a jury sends no request of its own).

A member's cost of one table is what the leaderboard charges a judge
(:func:`sumjudge.judge.cost.runs_usd`: a local judge its runs' wall time at ``price_per_hour``, any
other its replies' ``total_cost_usd``), and the jury's is their :func:`~sumjudge.judge.cost.total`:
unknown as soon as one member's is, with the reason (``cost_note``), never 0.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..judge.cost import as_number, runs_usd, total, wall_seconds
from ..judge.spec import JudgeSettings


def member_cost(spec: JudgeSettings, usage: Mapping[str, Any] | None) -> float | str:
    """A member's cost of one table (its usage.json), or why there is none."""
    return runs_usd([usage], spec.local, spec.price_per_hour)


def jury_usage(table, jury: JudgeSettings, members: Mapping[str, JudgeSettings],
               usages: Mapping[str, Mapping[str, Any]], dataset: str, variant: str) -> dict[str, Any]:
    """usage.json of a jury's table: 0 requests, the members' summed cost and wall time, what each cost."""
    costs = {m: member_cost(members[m], usages.get(m)) for m in members}
    status = table["status"].value_counts().to_dict()
    cost = total(costs.values())
    return {
        "judge": jury.name, "model": jury.model, "dataset": dataset, "variant": variant,
        "jury": list(jury.jury), "aggregate": jury.aggregate,
        "n_units": int(table["unit_id"].nunique()), "n_rows": int(len(table)),
        "samples": int(table["sample"].nunique()) if len(table) else 0,
        "requests_sent": 0, "cache_hits": 0, "replies_received": 0, "batches_submitted": 0,
        "input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0, "reasoning_tokens": 0, "cost_usd": 0.0,
        "total_cost_usd": None if as_number(cost) is None else round(cost, 6), "priced": as_number(cost) is not None,
        **({"cost_note": cost} if isinstance(cost, str) else {}),
        "members_cost_usd": {m: c if isinstance(c, str) else round(c, 6) for m, c in costs.items()},
        "wall_s": wall_seconds(usages.get(m) for m in members), "status": {k: int(v) for k, v in status.items()},
        "invalid_rate": round(float((table["status"] == "invalid").mean()), 6) if len(table) else 0.0,
        "score_modes": {str(k): int(v) for k, v in table["score_mode"].dropna().value_counts().items()},
    }
