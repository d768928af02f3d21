"""Ranks with ties for the judges of one column (definitions: docs/statistics.md,
"Ranks with ties").

Convention: a judge's rank is one plus the number of judges that are
*significantly better* than it (Chatbot Arena's "Rank (UB)", Chiang et al. 2024),
with the range ``[1 + #significantly better, n - #significantly worse]`` (the rank
ranges of the WMT human evaluations, Koehn 2012; Bojar et al. 2013-2016).
"Significantly better" is a one-sided paired test in that direction, its p-value
adjusted by the configured correction over the column's 2m directional
hypotheses (:func:`sumjudge.stats.paired.pair_family`), below ``alpha``.

Paired tests on common units need not agree with the values (each judge's value
is on its own valid units), so the raw ranks are then made monotone in value: a
judge's rank (and the top of its range) is raised to the largest among the judges
with a strictly higher value. So a judge never ranks above a judge with a higher
value in the same column; judges with equal values may differ.

No rank: a judge with a NaN value ("no value"); a judge that lacks a test result
(the pair is missing, or its delta or p-value is NaN) against a judge that is
still in the ranking. These are removed in rounds: each round removes every
judge with the largest number of missing results, until every remaining pair
has one ("no test result against B, C"); ``n`` is the number of ranked judges.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class Rank:
    rank: int | None   # 1 + judges significantly better, made monotone in value
    low: int | None    # best rank the tests allow (= rank)
    high: int | None   # worst rank: n - judges significantly worse, made monotone
    reason: str = ""   # why there is no rank (empty when ranked)

    def as_dict(self) -> dict:
        return asdict(self)


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and np.isnan(x))


def _pair_result(r: dict) -> tuple[str | None, float] | None:
    """(better judge or None, adjusted one-sided p) of one pair row; None when untested.

    Rows of ``pair_family(..., one_sided=True)`` carry ``better`` and ``p_one_sided_adjusted``;
    older rows (two-sided only) fall back on the sign of ``delta`` and ``p_adjusted``."""
    delta = r.get("delta", float("nan"))
    if "better" in r:
        better, p = r["better"], r.get("p_one_sided_adjusted", float("nan"))
        if better is None:  # delta 0: tested, no difference; NaN: untested
            return None if _nan(delta) else (None, 1.0)
    else:
        p = r.get("p_adjusted", float("nan"))
        if _nan(delta):
            return None
        better = None if delta == 0 else (r["a"] if delta > 0 else r["b"])
        if better is None:
            return None, 1.0
    return None if _nan(p) else (better, float(p))


def _drop_untested(names: list[str], results: dict) -> tuple[list[str], dict[str, str]]:
    """Remove, round by round, every judge with the most missing test results."""
    left, reasons = list(names), {}
    while True:
        missing = {k: [o for o in left if o != k and frozenset((k, o)) not in results] for k in left}
        worst = max((len(v) for v in missing.values()), default=0)
        if worst == 0:
            return left, reasons
        for k in [k for k in left if len(missing[k]) == worst]:
            reasons[k] = "no test result against " + ", ".join(sorted(missing[k]))
        left = [k for k in left if k not in reasons]


def rank_judges(values: dict[str, float], pairs: list[dict], alpha: float = 0.05) -> dict[str, Rank]:
    """One :class:`Rank` per judge of ``values`` (higher value is better) from the column's
    pair tests ``pairs`` (rows of :func:`sumjudge.stats.paired.pair_family`)."""
    out: dict[str, Rank] = {}
    valued = []
    for k, v in values.items():
        if _nan(v if v is None else float(v)):
            out[k] = Rank(None, None, None, "no value")
        else:
            valued.append(k)
    results = {}
    for r in pairs:
        if r["a"] in values and r["b"] in values:
            res = _pair_result(r)
            if res is not None:
                results[frozenset((r["a"], r["b"]))] = res
    ranked, reasons = _drop_untested(sorted(valued), results)
    for k, why in reasons.items():
        out[k] = Rank(None, None, None, why)
    n = len(ranked)
    better = {k: 0 for k in ranked}
    worse = {k: 0 for k in ranked}
    for i, a in enumerate(ranked):
        for b in ranked[i + 1:]:
            winner, p = results[frozenset((a, b))]
            if winner is not None and p < alpha:
                loser = b if winner == a else a
                better[loser] += 1
                worse[winner] += 1
    low = {k: 1 + better[k] for k in ranked}
    high = {k: n - worse[k] for k in ranked}
    for k in ranked:
        above = [o for o in ranked if float(values[o]) > float(values[k])]
        lo = max([low[k]] + [low[o] for o in above])
        hi = max([high[k], lo] + [high[o] for o in above])
        out[k] = Rank(lo, lo, hi, "")
    return {k: out[k] for k in values}
