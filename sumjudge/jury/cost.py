"""What a jury costs: its members' cost, summed (a jury sends no request of its own).

A member's cost of one table is what the leaderboard charges it (sumjudge.leaderboard.summary):
a local judge (embedded, or a loopback server without token prices) its machine's time at
``price_per_hour``, any other its replies' ``total_cost_usd``; None (unknown, never 0) where either is
not known. The jury's is the sum, None as soon as one member's is unknown.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..judge.spec import JudgeSettings


def seconds(frame, usage: Mapping[str, Any] | None) -> float | None:
    """A member table's compute time: its replies' own latencies where every reply has one (a
    rebuild from the cache keeps them), else the run's ``wall_s``."""
    lat = frame["latency_s"] if "latency_s" in frame else None
    if lat is not None and len(lat) and lat.notna().all():
        return float(lat.astype(float).sum())
    return (usage or {}).get("wall_s")


def member_cost(spec: JudgeSettings, usage: Mapping[str, Any] | None, secs: float | None = None) -> float | None:
    usage = usage or {}
    if spec.local:
        return spec.local_cost(secs if secs is not None else usage.get("wall_s"))
    cost = usage.get("total_cost_usd", usage.get("cost_usd"))
    return None if cost is None or not usage.get("priced", True) else float(cost)


def summed(values) -> float | None:
    values = list(values)
    return None if any(v is None for v in values) else float(sum(values))


def jury_usage(table, jury: JudgeSettings, members: Mapping[str, JudgeSettings],
               usages: Mapping[str, Mapping[str, Any]], frames: Mapping[str, Any], dataset: str,
               variant: str) -> dict[str, Any]:
    """usage.json of a jury's table: 0 requests, the members' summed cost and time, what each cost
    (``frames``: each member's judge table, for its replies' latencies)."""
    walls = {m: seconds(frames[m], usages.get(m)) for m in members}
    costs = {m: member_cost(members[m], usages.get(m), walls[m]) for m in members}
    status = table["status"].value_counts().to_dict()
    total = summed(costs.values())
    return {
        "judge": jury.name, "model": jury.model, "dataset": dataset, "variant": variant,
        "jury": list(jury.jury), "aggregate": jury.aggregate,
        "n_units": int(table["unit_id"].nunique()), "n_rows": int(len(table)),
        "samples": int(table["sample"].nunique()) if len(table) else 0,
        "requests_sent": 0, "cache_hits": 0, "replies_received": 0, "batches_submitted": 0,
        "input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0, "reasoning_tokens": 0, "cost_usd": 0.0,
        "total_cost_usd": None if total is None else round(total, 6), "priced": total is not None,
        "members_cost_usd": {m: None if c is None else round(c, 6) for m, c in costs.items()},
        "wall_s": summed(walls.values()), "status": {k: int(v) for k, v in status.items()},
        "invalid_rate": round(float((table["status"] == "invalid").mean()), 6) if len(table) else 0.0,
        "score_modes": {str(k): int(v) for k, v in table["score_mode"].dropna().value_counts().items()},
    }
