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
from .ppi import effective_n

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


def _medians(g: pd.DataFrame, floor: float) -> dict:
    """A row's cells at one n: labels saved (systems; differences), lambda, the note."""
    lam = g["lambda"].median()
    return {"saved_per_100": g.loc[g["estimand"] == "system", "saved_per_100"].median(),
            "saved_per_100_differences": g.loc[g["estimand"] == "difference", "saved_per_100"].median(),
            "lambda": lam, "note": _note(lam, floor, g["kind"].iloc[0])}


def summary(ledger: pd.DataFrame, n: int, lambda_floor: float) -> pd.DataFrame:
    """One line per row and dataset at ``n`` labelled documents (medians over the cells)."""
    lines = []
    for (row, ds), g in ledger[ledger["n_labelled"] == n].groupby(["row", "dataset"], sort=False):
        m = _medians(g, lambda_floor)
        lines.append({"row": row, "kind": g["kind"].iloc[0], "dataset": ds, "dataset_label": g["dataset_label"].iloc[0],
                      "n_labelled": n, **m, "ess": float(effective_n(m["saved_per_100"], n)),
                      "width_ratio": g["width_ratio"].median(), "coverage_classical": g["coverage_classical"].mean(),
                      "coverage_ppi": g["coverage_ppi"].mean(), "cells": len(g)})
    return pd.DataFrame(lines, columns=SUMMARY_COLUMNS)


def summary_columns(ledger: pd.DataFrame, n: int, lambda_floor: float = 0.1) -> pd.DataFrame:
    """The savings columns of the leaderboard's summary, one line per row name (the judge, ``<judge>
    [weighted]``, ``<dataset> annotator <name> (LOO)``), indexed by it: ``ROW_COLUMNS``. A row on
    several datasets: medians over all its cells at ``n``; ``savings_by_dataset`` lists each."""
    per = summary(ledger, n, lambda_floor)
    out = {}
    for row, g in ledger[ledger["n_labelled"] == n].groupby("row", sort=False):
        m = _medians(g, lambda_floor)
        mine = per[per["row"] == row]
        out[row] = {"savings_n": n, "labels_saved_per_100": m["saved_per_100"],
                    "labels_saved_per_100_differences": m["saved_per_100_differences"], "savings_lambda": m["lambda"],
                    "savings_by_dataset": ", ".join(f"{d} {v:.0f}" for d, v in zip(mine["dataset_label"],
                                                                                 mine["saved_per_100"])),
                    "savings_note": m["note"]}
    return pd.DataFrame.from_dict(out, orient="index", columns=ROW_COLUMNS).rename_axis("row")
