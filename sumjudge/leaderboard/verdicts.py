"""Verdicts per column, in this order (docs/statistics.md, "The judge leaderboard"):

1. gates: a judge row that answered too few of the column's units validly (parse gate) or
   whose answers vary much less than the humans' own (near-constant) is greyed;
2. ranks among the rows not greyed that have a value, from one-sided paired tests
   (:func:`sumjudge.stats.ranks.rank_judges`: never above a row with a higher value);
3. the alt-test against the column's identified annotators, for rows not greyed.

A greyed row gets no rank and no alt-test verdict ("not tested: <reason>"); the units a
row did not answer validly are counted beside every verdict.
"""
from __future__ import annotations

import math

import numpy as np

from ..stats import alt_test as at
from ..stats.gates import Gate, ParseGate, near_constant, parse_gate
from ..stats.paired import pair_family, separable
from ..stats.ranks import rank_judges
from .columns import ColumnFacts, JudgeFacts
from .settings import LeaderboardSettings


def gates(f: JudgeFacts, facts: ColumnFacts, board: LeaderboardSettings) -> tuple[Gate, ParseGate]:
    """The near-constant gate (against the column's human labels) and the parse gate (over its units)."""
    p = facts.people
    nc = near_constant(f.answers, p.gate_labels, board.near_constant, board.near_constant_ratio, p.gate_reference)
    return nc, parse_gate(f.n_valid, f.n_units, board.parse_gate)


def ranks(facts: ColumnFacts, reasons: dict[str, str], correction: str) -> tuple[dict, list[dict]]:
    """The :class:`sumjudge.stats.ranks.Rank` of every row not greyed, and the column's pair tests."""
    values = {r: float(f.cell.get("value", np.nan)) for r, f in facts.judges.items() if not reasons[r]}
    fam = pair_family([r for r, v in values.items() if not math.isnan(v)], facts.test, correction)
    return rank_judges(values, fam), fam


def alt_tests(facts: ColumnFacts, row: str, board: LeaderboardSettings, score: str) -> tuple[list, list]:
    """One row's annotator tests in this column under ``score``: ``neg_rmse`` or ``rank`` (a
    scored dimension), ``accuracy`` (an accuracy column)."""
    alt, f = facts.alt, facts.judges[row]
    pred, labels = f.answers, alt.labels
    if score == "rank":
        pred, labels = at.within_group_ranks(pred, alt.groups), at.within_group_ranks(labels, alt.groups)
    # every unit was asked: one without a valid answer is a loss for the judge
    return at.annotator_tests(facts.column.alt_key, pred, labels, list(alt.names), score,
                              board.alt_test.epsilon_for(facts.column.dataset), board.alt_test.min_instances,
                              answered=~np.isnan(f.answers), invalid="loss")


def column_verdicts(facts: ColumnFacts, board: LeaderboardSettings, correction: str) -> dict:
    """Gates, ranks and the alt-test's inputs of one column."""
    gated = {r: gates(f, facts, board) for r, f in facts.judges.items()}
    reasons = {r: "; ".join(g.reason for g in gs if g.flagged) for r, gs in gated.items()}
    groups, fam = ranks(facts, reasons, correction)
    tests = {}
    alt_once = facts.column.level in ("sample", "accuracy")   # a scored dimension's units: once
    for r in facts.judges:
        if facts.alt is None or reasons[r] or not alt_once:
            continue
        tests[r] = {s: alt_tests(facts, r, board, s)
                    for s in ((board.alt_test.likert_score, board.alt_test.other_score)
                              if facts.column.level != "accuracy" else ("accuracy",))}
    return {"gates": gated, "reasons": reasons, "ranks": groups, "pairs": fam, "separable": f"{separable(fam)} of {len(fam)}",
            "tests": tests}


def not_tested(facts: ColumnFacts, reason: str) -> str:
    if reason:
        return f"not tested: {reason}"
    return f"not tested: {facts.note}" if facts.alt is None else ""


def judge_alt(tests_by_column: list[tuple[str, dict]], board: LeaderboardSettings) -> dict:
    """BY over all of one row's annotator tests, per score: ``{score: (done tests, {column: verdict})}``."""
    out = {}
    scores = {s for _, t in tests_by_column for s in t}
    for s in scores:
        tests, left = [], {}
        for key, t in tests_by_column:
            if s in t:
                tests += t[s][0]
                left[key] = t[s][1]
        done, verdicts = at.judge_alt_test(tests, left, board.alt_test.q)
        out[s] = (done, {v.column: v for v in verdicts})
    return out
