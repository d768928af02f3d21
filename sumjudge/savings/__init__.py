"""How many human labels a judge replaces: the savings stage (rule ``savings``, results/savings/;
docs/statistics.md, "How many human labels a judge replaces").

Per dataset of the run, judge row (weighted rows included) and held-out annotator: PPI++ (the
``ppi-python`` package's estimator, vectorised in :mod:`.ppi` and checked against it cell by
cell in :mod:`.library`) with ``n`` human-labelled documents and the judge on the others,
against the classical mean of the ``n``, over many draws of which documents are labelled.

Modules: :mod:`.ppi` (the arithmetic), :mod:`.measures` (documents x systems cells per dataset,
judge and annotator rows), :mod:`.ledger` (one line per cell), :mod:`.build` (the run's inputs),
:mod:`.summary` (per-row summaries), :mod:`.render` (figures, LaTeX, HTML), :mod:`.settings`.

What other stages read (the leaderboard, the ``plan`` command):

- :func:`read_ledger` ``(path) -> DataFrame``: results/savings/ledger.csv, ``LEDGER_COLUMNS``;
- :func:`summary_columns` ``(ledger, n, lambda_floor) -> DataFrame``: one line per row name
  (``ROW_COLUMNS``), indexed as the leaderboard names its rows;
- :func:`html_fragment` ``(savings_dir, settings) -> str``: the table and the figures as HTML.
"""
from __future__ import annotations

from pathlib import Path

from .ledger import LEDGER_COLUMNS
from .summary import ROW_COLUMNS, read_ledger, summary_columns

__all__ = ["LEDGER_COLUMNS", "ROW_COLUMNS", "read_ledger", "summary_columns", "html_fragment"]


def html_fragment(savings_dir: str | Path, settings) -> str:
    """The savings section of a page from a results/savings/ folder (its ledger.csv and one
    ``<dataset>.svg`` per dataset: those of datasets without a cell are left out, and named);
    ``settings``: :class:`.settings.SavingsSettings` (its ``summary_n``, ``lambda_floor`` and
    ``n_labelled``)."""
    from .render import fragment

    folder = Path(savings_dir)
    ledger = read_ledger(folder / "ledger.csv")
    labels = dict(zip(ledger["dataset"], ledger["dataset_label"]))
    svgs = sorted(folder.glob("*.svg"))
    figures = {labels[p.stem]: p.read_text() for p in svgs if p.stem in labels}
    empty = [p.stem for p in svgs if p.stem not in labels]
    notes = [f"No cells for {', '.join(empty)}: too few documents for the smallest savings.n_labelled "
             f"({min(settings.n_labelled)}) with two or more left to the judge, or no judge table"] if empty else []
    return fragment(ledger, figures, settings.summary_n, settings.lambda_floor, notes)
