"""The leaderboard's four frames from the files a run wrote, composed of the parts
(docs/statistics.md, "The judge leaderboard"):

- ``cells``: one row per leaderboard row (judge, weighted judge or human) and column;
- ``summary``: one line per judge row and one for the humans, sorted by the verdict;
- ``pairs``: every pair test between the rows ranked in a column;
- ``alt``: every annotator test of the alt-test (deciding score, the other one, the control).
"""
from __future__ import annotations

import pandas as pd

from ..datasets import DatasetSpec
from ..evidence.settings import TableSettings
from .beside import with_juries, with_savings
from .columns import dataset_columns
from .evidence import dataset_evidence, read_tables
from .families import FamilyInputs, with_family_rows
from .frames import frames
from .settings import LeaderboardSettings
from .summary import JudgePricing, cost_row, summary, verdict_sentence, without_lone_ranks


def judge_runs(evidence) -> dict[str, list]:
    """Every run a judge's rows were read from, swapped orders included (all of them cost)."""
    runs: dict[str, list] = {}
    for ev in evidence:
        for (row, _), rr in ev.rows.items():
            if row == rr.judge:
                runs.setdefault(rr.judge, []).extend([rr.run] + ([rr.swapped] if rr.swapped is not None else []))
    return runs


def documents(evidence) -> dict[str, int]:
    """Resampling clusters (documents) per dataset label: what an interval and a saving can rest on."""
    return {ev.spec.label: int(ev.data[ev.spec.cluster_column].nunique()) for ev in evidence}


def labels_saved_reason(docs: dict[str, int], savings_n: int | None, any_figure: bool = False) -> str:
    """Why a row has no labels-saved figure: the savings stage did not run, no dataset has more
    documents than ``savings.summary_n`` labelled ones (PPI++ needs the judge on others), or
    (other rows having one) the ledger has no cell of this row at that n."""
    if savings_n is None:
        return "not computed (the savings stage did not run)"
    few = [f"{n} {label} document{'s' if n != 1 else ''}" for label, n in docs.items() if n <= savings_n]
    if not any_figure and few and len(few) == len(docs):
        return f"not computable with {', '.join(few)}; needs more than {savings_n} (savings.summary_n)"
    return f"no savings cell of this row at n={savings_n}"


def with_labels_saved(lines: pd.DataFrame, docs: dict[str, int], savings_n: int | None) -> pd.DataFrame:
    """The labels-saved column always there: the figure, or the reason it is empty."""
    figures = lines["labels_saved_per_100"].notna().any() if "labels_saved_per_100" in lines else False
    reason = labels_saved_reason(docs, savings_n, figures)
    text = lines["labels_saved"] if "labels_saved" in lines else pd.Series("", index=lines.index)
    empty = text.isna() | text.astype(str).eq("")
    return lines.assign(labels_saved=text.where(~empty, reason))


def build(table_csvs: list[str], data_paths: dict[str, str], judge_paths: list[str],
          specs: dict[str, DatasetSpec], tables: TableSettings, board: LeaderboardSettings,
          pricing: dict[str, JudgePricing] | None = None, savings: pd.DataFrame | None = None,
          juries: pd.DataFrame | None = None, savings_n: int | None = None,
          families: list[FamilyInputs] | None = None) -> dict:
    """Every leaderboard frame of the run's datasets (``data_paths``: name -> prepared table);
    ``savings``: :func:`.beside.savings_columns` of the savings ledger, ``juries``: the juries'
    jury.csv (:func:`sumjudge.jury.summary.read_summaries`), shown beside the verdicts; ``savings_n``:
    ``savings.summary_n`` where the savings stage ran; ``families``: prompt families whose median and
    10th-percentile templates are rows too (:mod:`.families`; ``leaderboard.families``). Also
    ``verdict``: the page's first sentence."""
    cells_in = read_tables(table_csvs)
    evidence = [dataset_evidence(specs[n], p, judge_paths, cells_in, tables.repeats) for n, p in data_paths.items()]
    if families:
        evidence = with_family_rows(evidence, families, tables.repeats)
    out = frames([r for ev in evidence for r in dataset_columns(ev, tables, board)], board)
    runs = judge_runs(evidence)
    docs = documents(evidence)
    if savings_n is None and savings is not None and "savings_n" in savings and savings["savings_n"].notna().any():
        savings_n = int(savings["savings_n"].dropna().iloc[0])
    cells = without_lone_ranks(out["cells"]).assign(documents=lambda c: c["dataset"].map(docs))
    judge_of = cells[cells["kind"] == "judge"].drop_duplicates("row").set_index("row")["judge"].to_dict()
    costs = {r: cost_row(runs.get(judge_of.get(r, r), []), (pricing or {}).get(judge_of.get(r, r)))
             for r in out["rows"]}
    lines = with_labels_saved(with_savings(summary(cells, out["rows"], costs), savings), docs, savings_n)
    cells, lines = with_juries(cells, lines, juries, {n: specs[n].label for n in data_paths})
    return {"cells": cells, "summary": lines, "pairs": out["pairs"], "alt": out["alt"],
            "verdict": verdict_sentence(lines, board.verdict_pass_share)}
