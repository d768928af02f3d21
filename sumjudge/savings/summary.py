"""The ledger read back and summarised per row (docs/statistics.md, "How many human labels a
judge replaces"): what the page, the LaTeX table and the leaderboard show.

A row's figure at a stated ``n`` is the **median over its cells** (every system and dimension of a
dataset, or every difference) of the labels saved per 100 (realised: the mean squared errors over
the draws) and of the tuned lambda.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .ledger import LEDGER_COLUMNS

CANNOT_USE = "PPI++ cannot use this judge (lambda near 0)"
SUMMARY_COLUMNS = ["row", "kind", "dataset", "dataset_label", "n_labelled", "saved_per_100",
                   "saved_per_100_differences", "ess", "lambda", "width_ratio", "coverage_classical",
                   "coverage_ppi", "cells", "note"]
ROW_COLUMNS = ["savings_n", "labels_saved_per_100", "labels_saved_per_100_differences", "savings_lambda",
               "savings_by_dataset", "savings_note"]


def read_ledger(path: str | Path) -> pd.DataFrame:
    """results/savings/ledger.csv as written by rule ``savings`` (columns: ``LEDGER_COLUMNS``,
    documented in docs/statistics.md); a file without them is an error naming the missing ones."""
    df = pd.read_csv(path)
    missing = [c for c in LEDGER_COLUMNS if c not in df]
    if missing:
        raise ValueError(f"{path}: not a savings ledger, it lacks column(s) {missing}; rebuild it with "
                         f"snakemake --forcerun {path}")
    return df


def _note(lam: float, floor: float, kind: str) -> str:
    return CANNOT_USE if kind == "judge" and not np.isnan(lam) and lam < floor else ""


def summary(ledger: pd.DataFrame, n: int, lambda_floor: float) -> pd.DataFrame:
    """One line per row and dataset at ``n`` labelled documents (medians over the cells)."""
    at = ledger[ledger["n_labelled"] == n]
    lines = []
    for (row, ds), g in at.groupby(["row", "dataset"], sort=False):
        sys, diff = g[g["estimand"] == "system"], g[g["estimand"] == "difference"]
        saved, lam = sys["saved_per_100"].median(), g["lambda"].median()
        lines.append({"row": row, "kind": g["kind"].iloc[0], "dataset": ds, "dataset_label": g["dataset_label"].iloc[0],
                      "n_labelled": n, "saved_per_100": saved, "saved_per_100_differences": diff["saved_per_100"].median(),
                      "ess": n / (1 - saved / 100) if saved < 100 else np.inf, "lambda": lam,
                      "width_ratio": g["width_ratio"].median(), "coverage_classical": g["coverage_classical"].mean(),
                      "coverage_ppi": g["coverage_ppi"].mean(), "cells": len(g),
                      "note": _note(lam, lambda_floor, g["kind"].iloc[0])})
    return pd.DataFrame(lines, columns=SUMMARY_COLUMNS)


def summary_columns(ledger: pd.DataFrame, n: int, lambda_floor: float = 0.1) -> pd.DataFrame:
    """The savings columns of the leaderboard's summary, one line per row name (the judge, ``<judge>
    [weighted]``, ``<dataset> annotator <name> (LOO)``), indexed by it: ``ROW_COLUMNS``. A row on
    several datasets: medians over all its cells at ``n``; ``savings_by_dataset`` lists each."""
    at = ledger[ledger["n_labelled"] == n]
    per = summary(ledger, n, lambda_floor)
    out = {}
    for row, g in at.groupby("row", sort=False):
        lam = g["lambda"].median()
        mine = per[per["row"] == row]
        out[row] = {"savings_n": n, "labels_saved_per_100": g.loc[g["estimand"] == "system", "saved_per_100"].median(),
                    "labels_saved_per_100_differences": g.loc[g["estimand"] == "difference", "saved_per_100"].median(),
                    "savings_lambda": lam,
                    "savings_by_dataset": ", ".join(f"{r.dataset_label} {r.saved_per_100:.0f}" for r in mine.itertuples()),
                    "savings_note": _note(lam, lambda_floor, g["kind"].iloc[0])}
    return pd.DataFrame.from_dict(out, orient="index", columns=ROW_COLUMNS).rename_axis("row")
