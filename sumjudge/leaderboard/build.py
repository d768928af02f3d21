"""The leaderboard's four frames from the evidence, composed of the parts
(docs/statistics.md, "The judge leaderboard"):

- ``cells``: one row per leaderboard row (judge, weighted judge or human) and column;
- ``summary``: one line per judge row and one for the humans, sorted by the verdict;
- ``pairs``: every pair test between the rows ranked in a column;
- ``alt``: every annotator test of the alt-test (deciding score and the other one).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..datasets import DatasetSpec
from ..tables.settings import TableSettings
from .columns import ColumnFacts, dataset_columns
from .evidence import dataset_evidence, read_tables
from .settings import LeaderboardSettings
from .summary import JudgePricing, cost_row, summary
from .verdicts import column_verdicts, judge_alt, not_tested

CELL_COLUMNS = ["row", "kind", "column", "table", "dataset", "dimension", "level", "value", "n", "ci_low",
                "ci_high", "loo_value", "rank_group", "parse_rate", "near_constant", "greyed", "reason",
                "alt_winning_rate", "alt_advantage", "alt_passed", "alt_annotators", "alt_left_out", "note",
                "flip_rate", "position_consistency", "first_position_rate", "acc_original",
                "acc_agreement_else_tie", "acc_agreement_only", "n_conflicts", "flip_flag",
                "n_samples", "sample_variance", "interval", "length_bias", "length_bias_n",
                "alt_other_score", "alt_other_winning_rate", "alt_other_advantage", "alt_other_passed",
                "separable_pairs", "n_units", "n_invalid", "modal_share", "human_modal_share", "alt_verdict",
                "alt_key", "judge", "rank_low", "rank_high", "rank_reason"]


def _rank(r) -> dict:
    if r is None:                      # greyed: the gate says why
        return {"rank_group": np.nan}
    return {"rank_group": r.rank if r.rank is not None else np.nan, "rank_low": r.low, "rank_high": r.high,
            "rank_reason": r.reason}


def _judge_cell(facts: ColumnFacts, row: str, v: dict, alt: dict, board: LeaderboardSettings) -> dict:
    f, col = facts.judges[row], facts.column
    reason, (nc, _) = v["reasons"][row], v["gates"][row]
    rec = {"row": row, "judge": f.judge, "kind": "judge", "value": f.cell.get("value", np.nan),
           "n": f.cell.get("n", np.nan), "ci_low": f.cell.get("ci_low", np.nan),
           "ci_high": f.cell.get("ci_high", np.nan), "loo_value": f.loo_value,
           **_rank(v["ranks"].get(row)), "parse_rate": f.n_valid / f.n_units if f.n_units else np.nan,
           "n_units": f.n_units, "n_invalid": f.n_units - f.n_valid, "modal_share": nc.modal_share,
           "human_modal_share": nc.human_modal_share, "near_constant": nc.flagged,
           "greyed": bool(reason), "reason": reason, "separable_pairs": v["separable"], **f.extra}
    rec["alt_verdict"] = not_tested(facts, reason)
    mine = alt.get(row, {})
    deciding, other = board.alt_test.likert_score, board.alt_test.other_score
    d = mine.get("accuracy" if col.level == "accuracy" else deciding, (None, {}))[1].get(col.alt_key)
    if d is not None and not reason:
        rec.update(alt_winning_rate=d.winning_rate, alt_advantage=d.advantage, alt_passed=d.passed,
                   alt_annotators=d.n_annotators, alt_left_out=d.n_left_out,
                   alt_verdict=(f"{'passes' if d.passed else 'fails'} (winning rate {d.winning_rate:.2f}, "
                                f"{d.n_annotators} annotators; {f.n_units - f.n_valid} invalid)")
                   if d.n_annotators else f"not tested: every annotator has fewer than "
                                          f"{board.alt_test.min_instances} units")
    o = (mine.get(other) or (None, {}))[1].get(col.alt_key) if col.level != "accuracy" else None
    if o is not None and not reason:
        rec.update(alt_other_score=other, alt_other_winning_rate=o.winning_rate,
                   alt_other_advantage=o.advantage, alt_other_passed=o.passed)
    return rec


def _frames(facts: list[ColumnFacts], verdicts: list[dict], board: LeaderboardSettings) -> dict:
    rows = list(dict.fromkeys(r for f in facts for r in f.judges))
    alt = {r: judge_alt([(f.column.alt_key, v["tests"][r]) for f, v in zip(facts, verdicts) if r in v["tests"]],
                        board) for r in rows}
    cells, pairs = [], []
    for f, v in zip(facts, verdicts):
        c = f.column
        base = {"column": c.name, "table": c.table, "dataset": c.label, "dimension": c.dimension,
                "level": c.level, "alt_key": c.alt_key}
        cells += [{**base, **_judge_cell(f, r, v, alt, board)} for r in f.judges]
        cells += [{**base, **h} for h in f.humans]
        pairs += [{"column": c.name, **p} for p in v["pairs"]]
    alt_rows = [{"row": r, "score_used": s in ("accuracy", board.alt_test.likert_score), **t.as_dict()}
                for r in rows for s in (board.alt_test.likert_score, "accuracy", board.alt_test.other_score)
                for t in alt[r].get(s, ([], {}))[0]]
    out = pd.DataFrame(cells)
    for k in CELL_COLUMNS:
        if k not in out:
            out[k] = np.nan
    return {"cells": out[CELL_COLUMNS], "pairs": pd.DataFrame(pairs), "alt": pd.DataFrame(alt_rows), "rows": rows}


def build(table_csvs: list[str], data_paths: dict[str, str], judge_paths: list[str],
          specs: dict[str, DatasetSpec], tables: TableSettings, board: LeaderboardSettings,
          pricing: dict[str, JudgePricing] | None = None) -> dict[str, pd.DataFrame]:
    """Every leaderboard frame of the run's datasets (``data_paths``: name -> prepared table)."""
    cells_in = read_tables(table_csvs)
    evidence = [dataset_evidence(specs[n], p, judge_paths, cells_in, tables.repeats) for n, p in data_paths.items()]
    facts = [f for ev in evidence for f in dataset_columns(ev, tables, board)]
    verdicts = [column_verdicts(f, board, tables.correction) for f in facts]
    out = _frames(facts, verdicts, board)
    runs: dict[str, list] = {}
    for ev in evidence:
        for (row, _), rr in ev.rows.items():
            if row == rr.judge:
                runs.setdefault(rr.judge, []).append(rr.run)
    judge_of = {r: f.judges[r].judge for f in facts for r in f.judges}
    costs = {r: cost_row(runs.get(judge_of[r], []), (pricing or {}).get(judge_of[r])) for r in out["rows"]}
    return {"cells": out["cells"], "summary": summary(out["cells"], out["rows"], costs), "pairs": out["pairs"],
            "alt": out["alt"]}
