"""Ranks with ties for the rows of one column, read from the paired tests and never
rewritten (definitions: docs/statistics.md, "Ranks from the tests").

Convention: a row's rank is one plus the number of rows *significantly better* than it
(adapted from Chatbot Arena's "Rank (UB)", Chiang et al. 2024, which counts the models
whose interval lies entirely above; here a one-sided paired test, adjusted over the
column's 2m directional hypotheses by :func:`sumjudge.stats.paired.pair_family`), with
the range ``[1 + #significantly better, n - #significantly worse]`` (the WMT human
evaluations' rank ranges, Koehn 2012; Bojar et al. 2013-2016).

The ranks are the tests' own. Where a row is significantly better than a row with a
higher (or equal) value, both cells say so (``note``) and neither rank moves. Rank 1
is never vacant: "significantly better" follows the values' order when the tests read
the values' own statistic (the leaderboard's do), and a cycle of significant results,
the only way to leave rank 1 empty, leaves the column unranked with that reason.

No rank: a row with a NaN value ("no value"); a row that lacks a test result against a
row still in the ranking (removed in rounds: each round removes every row with the most
missing results, "no test result against B, C"); ``n`` counts the ranked rows.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

CYCLE = "the paired tests contradict each other (a cycle of significant results): no rank"


@dataclass(frozen=True)
class Rank:
    rank: int | None   # 1 + rows significantly better
    low: int | None    # best rank the tests allow (= rank)
    high: int | None   # worst rank: n - rows significantly worse
    reason: str = ""   # why there is no rank (empty when ranked)
    note: str = ""     # where value order and a significant test disagree

    def as_dict(self) -> dict:
        return asdict(self)


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and np.isnan(x))


def _pair_result(r: dict) -> tuple[str | None, float] | None:
    """(better row or None, adjusted one-sided p) of a :func:`pair_family` row; None when untested."""
    if r.get("better") is None:   # delta 0: tested, no difference; NaN: untested
        return None if _nan(r.get("delta", float("nan"))) else (None, 1.0)
    p = r.get("p_one_sided_adjusted", float("nan"))
    return None if _nan(p) else (r["better"], float(p))


def _drop_untested(names: list[str], results: dict) -> tuple[list[str], dict[str, str]]:
    """Remove, round by round, every row with the most missing test results."""
    left, reasons = list(names), {}
    while True:
        missing = {k: [o for o in left if o != k and frozenset((k, o)) not in results] for k in left}
        worst = max((len(v) for v in missing.values()), default=0)
        if worst == 0:
            return left, reasons
        for k in [k for k in left if len(missing[k]) == worst]:
            reasons[k] = "no test result against " + ", ".join(sorted(missing[k]))
        left = [k for k in left if k not in reasons]


def _wins(ranked: list[str], results: dict, alpha: float) -> list[tuple[str, str]]:
    """(winner, loser) of every significant pair among ``ranked``."""
    out = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1:]:
            winner, p = results[frozenset((a, b))]
            if winner is not None and p < alpha:
                out.append((winner, b if winner == a else a))
    return out


def _notes(wins: list[tuple[str, str]], values: dict) -> dict[str, list[str]]:
    notes: dict[str, list[str]] = {}
    for w, lo in wins:
        if float(values[w]) <= float(values[lo]):
            notes.setdefault(w, []).append(f"significantly better than {lo}, whose value is not lower")
            notes.setdefault(lo, []).append(f"{w} is significantly better, with a value not higher")
    return notes


def rank_judges(values: dict[str, float], pairs: list[dict], alpha: float = 0.05) -> dict[str, Rank]:
    """One :class:`Rank` per row of ``values`` (higher is better) from the column's pair
    tests ``pairs`` (rows of :func:`sumjudge.stats.paired.pair_family`)."""
    out = {k: Rank(None, None, None, "no value") for k, v in values.items() if _nan(None if v is None else float(v))}
    results = {}
    for r in pairs:
        if r["a"] in values and r["b"] in values and (res := _pair_result(r)) is not None:
            results[frozenset((r["a"], r["b"]))] = res
    ranked, reasons = _drop_untested(sorted(k for k in values if k not in out), results)
    out.update({k: Rank(None, None, None, why) for k, why in reasons.items()})
    wins = _wins(ranked, results, alpha)
    better = {k: sum(1 for _, lo in wins if lo == k) for k in ranked}
    worse = {k: sum(1 for w, _ in wins if w == k) for k in ranked}
    if ranked and min(better.values()) > 0:
        out.update({k: Rank(None, None, None, CYCLE) for k in ranked})
        return {k: out[k] for k in values}
    notes = _notes(wins, values)
    n = len(ranked)
    for k in ranked:
        out[k] = Rank(1 + better[k], 1 + better[k], n - worse[k], "", "; ".join(notes.get(k, [])))
    return {k: out[k] for k in values}
