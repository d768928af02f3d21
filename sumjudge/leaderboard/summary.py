"""One line per judge row, and one for the humans: the verdict a reader came for
(docs/statistics.md, "The judge leaderboard", "Summary").

Per row: alt-test passes k of N (columns where it was tested), in how many columns its
leave-one-out value lies within the human leave-one-out range, mean rank, cost and time
per 1000 units, flags. Cost: a local judge (:attr:`sumjudge.judge.spec.JudgeSettings.local`, the endpoint's answer too)
at ``price_per_hour`` times its time (:func:`sumjudge.judge.spec.local_cost`), any other the
replies' own cost (usage.json); unknown stays unknown: "not priced", "not measured".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..judge.spec import local_cost

NOT_PRICED, NOT_MEASURED = "not priced", "not measured"


@dataclass(frozen=True)
class JudgePricing:
    """What the leaderboard needs of a judge's settings to price it (never its base_url, so a
    server's port does not rebuild the leaderboard)."""

    local: bool
    price_per_hour: float | None = None

    @classmethod
    def of(cls, spec) -> "JudgePricing":
        return cls(spec.local, spec.price_per_hour)


def _seconds(runs) -> float | None:
    """The replies' own latencies where every reply has one, else the runs' wall time; None: unknown."""
    lat = [r.frame["latency_s"] for r in runs if "latency_s" in r.frame]
    if runs and len(lat) == len(runs) and all(pd.to_numeric(x, errors="coerce").notna().all() for x in lat):
        return float(sum(pd.to_numeric(x).sum() for x in lat))
    walls = [(r.usage or {}).get("wall_s") for r in runs]
    return float(sum(walls)) if runs and all(w is not None for w in walls) else None


def _usd(runs, pricing: JudgePricing | None, seconds: float | None) -> float | None:
    if pricing is not None and pricing.local:
        return local_cost(pricing.price_per_hour, seconds)
    costs = [(r.usage or {}).get("total_cost_usd", (r.usage or {}).get("cost_usd")) for r in runs]
    priced = runs and all(c is not None and (r.usage or {}).get("priced", True) for c, r in zip(costs, runs))
    return float(sum(costs)) if priced else None


def cost_row(runs, pricing: JudgePricing | None) -> dict:
    """Units, time and USD of one judge's runs, per 1000 units and in all."""
    units = sum(int((r.usage or {}).get("n_units") or r.frame["unit_id"].nunique()) for r in runs)
    seconds = _seconds(runs)
    usd = _usd(runs, pricing, seconds)
    per_k = 1000 / units if units else float("nan")
    return {"units": units, "local": bool(pricing.local) if pricing else False,
            "seconds_per_1k": seconds * per_k if seconds is not None else NOT_MEASURED,
            "wall_s": seconds if seconds is not None else NOT_MEASURED,
            "usd_per_1k": round(usd * per_k, 6) if usd is not None else NOT_PRICED,
            "usd_total": round(usd, 6) if usd is not None else NOT_PRICED}


def _within(cells: pd.DataFrame, row: str) -> tuple[int, int]:
    """Columns where the row's leave-one-out value lies within the human leave-one-out range."""
    k = n = 0
    for _, part in cells.groupby("column", sort=False):
        human = part.loc[part["kind"] == "human", "loo_value"].dropna()
        mine = part.loc[part["row"] == row, "loo_value"].dropna()
        if len(human) and len(mine):
            n += 1
            k += int(human.min() <= mine.iloc[0] <= human.max())
    return k, n


def judge_line(cells: pd.DataFrame, row: str, cost: dict) -> dict:
    mine = cells[cells["row"] == row]
    ranks = mine["rank_group"].dropna()
    tested = mine.drop_duplicates("alt_key")
    tested = tested[tested["alt_annotators"].fillna(0) > 0]
    k, n = _within(cells, row)
    flags = [f"greyed in {int(mine['greyed'].sum())}" if mine["greyed"].any() else "",
             f"order flips flagged in {int((mine['flip_flag'] == True).sum())}"  # noqa: E712
             if (mine["flip_flag"] == True).any() else ""]  # noqa: E712
    return {"row": row, "kind": "judge", "columns": len(mine), "columns_won": int((ranks == 1).sum()),
            "mean_rank": float(ranks.mean()) if len(ranks) else np.nan, "rank_groups": int(ranks.nunique()),
            "greyed_columns": int(mine["greyed"].sum()),
            "alt_passes": f"passes {int(tested['alt_passed'].fillna(False).astype(bool).sum())} of {len(tested)}",
            "alt_pass_count": int(tested["alt_passed"].fillna(False).astype(bool).sum()),
            "within_human_loo": f"{k} of {n}", "within_count": k, **cost,
            "flags": "; ".join(f for f in flags if f)}


def human_line(cells: pd.DataFrame) -> dict:
    humans = cells[cells["kind"] == "human"]
    cols = humans.dropna(subset=["loo_value"])["column"].nunique()
    return {"row": "humans (leave-one-out)", "kind": "human", "columns": cols, "within_human_loo": f"{cols} of {cols}",
            "alt_passes": "the reference", "usd_per_1k": "", "seconds_per_1k": "", "flags": ""}


def summary(cells: pd.DataFrame, rows: list[str], costs: dict[str, dict]) -> pd.DataFrame:
    """Sorted by the verdict: alt-test passes, then columns within the human range, then mean rank."""
    lines = [judge_line(cells, r, costs[r]) for r in rows]
    lines.sort(key=lambda s: (-s["alt_pass_count"], -s["within_count"],
                              s["mean_rank"] if not np.isnan(s["mean_rank"]) else np.inf, s["row"]))
    out = pd.DataFrame(lines + [human_line(cells)])
    return out.drop(columns=["alt_pass_count", "within_count"], errors="ignore")
