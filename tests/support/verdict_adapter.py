"""The one place where the calibration run (tests/support/calibration.py) meets the verdict code.

Today's entry points, fed in memory (no Snakemake, no files): judge replies become
:class:`~sumjudge.tables.inputs.JudgeRun` objects; each judge row gets its Tables cell; the
leaderboard builds its column facts (:func:`~sumjudge.leaderboard.columns.likert_columns`,
:func:`~sumjudge.leaderboard.columns.accuracy_column`) and draws its verdicts from them
(:mod:`sumjudge.leaderboard.verdicts`: gates, ranks, alt-test); the printed interval is the
leaderboard's (a repeated judge's cluster interval replaces the table's, as
:func:`sumjudge.leaderboard.build.build` does).

Two shortcuts, both with the same numbers: a Likert cell is computed as
:func:`~sumjudge.tables.correlation.correlation_table` computes it (value: each level's mean over
the samples; interval: percentile interval of the resample-wise mean over the samples, on the
same resampling plan) from the matrices, without its per-document pandas pass (tests compare the
two); the dimensions a draw does not measure feed only the gates and the alt-test, so their
unused repeated-judge intervals are drawn with one resample.

What comes back is plain: per column and judge row, the value, its interval, whether a gate greys
it, its rank (ranked rows, focus columns) and its alt-test outcome; per focus column, which ranked
row is significantly better than which. When the verdicts' entry points change, this module
changes, and nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from sumjudge.datasets import DatasetSpec
from sumjudge.leaderboard import verdicts as lv
from sumjudge.leaderboard.columns import ColumnFacts, accuracy_column, columns_of, likert_columns
from sumjudge.leaderboard.common import frame
from sumjudge.leaderboard.evidence import DatasetEvidence, RowRun
from sumjudge.leaderboard.settings import LeaderboardSettings
from sumjudge.stats.bootstrap import BootBoth, boot_both_levels, percentile_interval
from sumjudge.stats.matrix import LEVELS, levels_stack
from sumjudge.tables.accuracy import accuracy_table
from sumjudge.tables.common import Row, mean_over_repeats
from sumjudge.tables.inputs import JudgeRun
from sumjudge.tables.settings import TableSettings

ALPHA = 0.05   # the ranks' level (sumjudge.stats.ranks.rank_judges' default)


def judge_run(spec: DatasetSpec, row: str, variant: str, frame_: pd.DataFrame) -> JudgeRun:
    """``frame_``: unit_id, sample, status and the label columns (NaN / None: no valid answer)."""
    return JudgeRun(row, spec.name, variant, f"<calibration>/{row}/{spec.name}/{variant}.parquet", frame_, spec=spec)


@dataclass(frozen=True)
class _Evidence(DatasetEvidence):
    """The evidence with its table cells in a dict (the same lookup, without a frame filter per call)."""

    by_key: dict = field(default_factory=dict)

    def cell(self, row: str, dimension: str, level: str):
        return self.by_key.get((row, dimension, level), {})


def _likert_cells(spec: DatasetSpec, data: pd.DataFrame, runs: dict, dim: str, ts: TableSettings) -> dict:
    """correlation_table's judge cells of ``dim`` (module docstring)."""
    d2, docs, systems = frame(spec, data)
    at = (pd.Categorical(d2["_doc"], docs).codes, pd.Categorical(d2["_sys"], systems).codes)

    def grid(v):   # leaderboard.common.matrix, by position (one cell per document and system)
        m = np.full((len(docs), len(systems)), np.nan)
        m[at] = v
        return m

    human = grid(data[dim].to_numpy(float))
    plan = BootBoth.draw(len(docs), len(systems), ts.bootstrap_resamples, ts.seed, ts.bootstrap)
    out = {}
    for (row, _), run in runs.items():
        mats = [grid(run.by_sample(s)[dim].reindex(data["unit_id"]).to_numpy(float)) for s in run.samples]
        values = [levels_stack(x, human, ts.method, ts.undefined) for x in mats]
        # a repeated judge's interval is the leaderboard's (columns.likert_columns): not drawn here
        boots = [boot_both_levels(x, human, plan, ts.method, ts.undefined) for x in mats] if len(mats) == 1 else None
        for lv_ in LEVELS:
            v = np.array([float(r[lv_]) for r in values])
            ci = percentile_interval(mean_over_repeats([b[lv_] for b in boots]), ts.confidence) if boots else None
            out[(row, dim, lv_)] = {"value": float(np.nanmean(v)) if np.isfinite(v).any() else np.nan,
                                    "ci_low": ci.low if ci else np.nan, "ci_high": ci.high if ci else np.nan}
    return out


def _accuracy_cells(spec: DatasetSpec, data: pd.DataFrame, runs: dict, ts: TableSettings) -> dict:
    rows = [Row(row, "judge", None, run.path,
                [run.by_sample(s)[[spec.label_columns[0]]].rename(columns={spec.label_columns[0]: "pred"})
                 for s in run.samples], judge=row, variant=variant) for (row, variant), run in runs.items()]
    t = accuracy_table(data, rows, spec, ts)
    return {(r["row"], r["dimension"], r["level"]): r for r in t.to_dict("records")}


def column_facts(spec: DatasetSpec, data: pd.DataFrame, runs: dict, ts: TableSettings,
                 board: LeaderboardSettings, dims=()) -> list[ColumnFacts]:
    """Every leaderboard column of the dataset, its judge rows' facts drawn from ``runs``
    ({(row, variant): JudgeRun}); Likert cells and intervals for the dimensions ``dims`` only."""
    rows = {(row, variant): RowRun(row, row, run) for (row, variant), run in runs.items()}
    if not spec.proto.per_dimension:
        ev = _Evidence(spec, data, rows, by_key=_accuracy_cells(spec, data, runs, ts))
        return [accuracy_column(ev, c, ts, board) for c in columns_of(spec)]
    cells = {k: v for d in dims for k, v in _likert_cells(spec, data, runs, d, ts).items()}
    ev = _Evidence(spec, data, rows, by_key=cells)
    quick = replace(ts, bootstrap_resamples=1)
    return [f for d in sorted(spec.dimensions) for f in likert_columns(ev, d, ts if d in dims else quick, board)]


def _alt(facts: list[ColumnFacts], reasons: dict, board: LeaderboardSettings) -> dict:
    """{row: {alt_key: passed}} under the deciding score, BY over the row's tests in this dataset."""
    tests: dict[str, list] = {r: [] for f in facts for r in f.judges}
    for f in facts:
        if f.alt is None or f.column.level not in ("sample", "accuracy"):
            continue
        score = "accuracy" if f.column.level == "accuracy" else board.alt_test.likert_score
        for r in f.judges:
            if not reasons[(f.column.name, r)]:
                tests[r].append((f.column.alt_key, {score: lv.alt_tests(f, r, board, score)}))
    return {r: {k: v.passed for _, by_col in lv.judge_alt(t, board).values() for k, v in by_col.items()}
            for r, t in tests.items()}


def _cell(f: ColumnFacts, row: str, greyed: bool, alt: dict, rank, focus: bool) -> dict:
    j = f.judges[row]
    c = {**j.cell, **{k: v for k, v in j.extra.items() if k in ("ci_low", "ci_high")}}
    tested = f.alt is not None and f.column.level in ("sample", "accuracy")
    return {"column": f.column.name, "level": f.column.level, "alt_key": f.column.alt_key, "row": row, "focus": focus,
            **{k: float(c.get(k, np.nan)) for k in ("value", "ci_low", "ci_high")}, "greyed": greyed,
            "rank": rank.rank if rank is not None else None,
            "alt_passed": (not greyed and bool(alt.get(row, {}).get(f.column.alt_key))) if tested else None}


def verdicts(facts: list[ColumnFacts], board: LeaderboardSettings, correction: str, ranked: set,
             focus: set) -> tuple[list[dict], list[dict]]:
    """(cells, pairs): per column and row its value, interval, gate, alt-test and (``ranked``
    rows of the ``focus`` columns) rank; per focus column the significant directional pairs."""
    reasons = {(f.column.name, r): "; ".join(g.reason for g in lv.gates(j, f, board) if g.flagged)
               for f in facts for r, j in f.judges.items()}
    alt = _alt(facts, reasons, board)
    cells, pairs = [], []
    for f in facts:
        name, ranks = f.column.name, {}
        if name in focus and ranked:
            sub = replace(f, judges={r: j for r, j in f.judges.items() if r in ranked})
            ranks, fam = lv.ranks(sub, {r: reasons[(name, r)] for r in sub.judges}, correction)
            pairs += [{"column": name, "better": p["better"], "worse": p["b"] if p["better"] == p["a"] else p["a"]}
                      for p in fam if p["better"] is not None and p["p_one_sided_adjusted"] < ALPHA]
        cells += [_cell(f, r, bool(reasons[(name, r)]), alt, ranks.get(r), name in focus) for r in f.judges
                  if name in focus or f.column.level in ("sample", "accuracy")]
    return cells, pairs
