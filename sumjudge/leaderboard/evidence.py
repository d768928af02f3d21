"""What the leaderboard judges from, read once (docs/statistics.md, "The judge leaderboard").

Per dataset of the run (built-in, beyond the paper or a user's): its spec, its prepared
table, every judge row's replies loaded once through the checked loader
(:func:`sumjudge.evidence.runs.load_judge_run`: statuses, duplicate units, stale tables,
cache keys), the swapped order where the judge was asked it, and the judge cells of its
Table 1-5 or own table. A judge with weighted scores (G-Eval, ``<dimension>_weighted``)
brings a second row, ``<judge> [weighted]``, read from the same run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import pandas as pd

from ..datasets import DatasetSpec
from ..evidence.columns import table_name
from ..evidence.errors import read_parquet
from ..evidence.runs import WEIGHTED, WEIGHTED_ROW, JudgeRun, has_weighted_row, load_judge_run
from ..io import SWAPPED, parse_judge_path


@dataclass(frozen=True)
class RowRun:
    """One leaderboard row's replies to one prompt variant of one dataset."""

    row: str                    # the judge's name, or it and WEIGHTED_ROW
    judge: str
    run: JudgeRun
    suffix: str = ""            # the label columns' suffix ("" or WEIGHTED)
    swapped: JudgeRun | None = None
    # a prompt family's row (:mod:`.families`): per dimension the run of the template it picked, and per
    # (dimension, level) the fields its cells show beside the verdicts (the template, the family's spread)
    by_dimension: Mapping[str, JudgeRun] = field(default_factory=dict)
    cell_fields: Mapping[tuple[str, str], dict] = field(default_factory=dict)

    def column(self, label: str) -> str:
        return label + self.suffix

    def run_for(self, dimension: str) -> JudgeRun:
        """The run a dimension's answers are read from: the picked template's on a family row."""
        return self.by_dimension.get(dimension, self.run)

    @property
    def usage(self) -> dict | None:
        return self.run.usage


@dataclass(frozen=True)
class DatasetEvidence:
    spec: DatasetSpec
    data: pd.DataFrame                                  # the prepared table (unit_id as str)
    rows: dict[tuple[str, str], RowRun] = field(default_factory=dict)   # (row, variant) -> its replies
    cells: pd.DataFrame = field(default_factory=pd.DataFrame)           # its table's judge cells

    @property
    def unit_ids(self) -> pd.Series:
        return self.data["unit_id"]

    def cell(self, row: str, dimension: str, level: str) -> Mapping:
        """The table's cell of ``row`` (value, n, ci_low, ci_high, near_constant), or {}."""
        c = self.cells
        if not len(c):
            return {}
        hit = c[(c["row"] == row) & (c["dimension"] == dimension) & (c["level"] == level)]
        return hit.iloc[0].to_dict() if len(hit) else {}


def _runs(paths: list[str], spec: DatasetSpec, units: pd.Series, repeats: int | None) -> dict:
    """(judge, variant) -> JudgeRun of one dataset, swapped orders under variant + SWAPPED."""
    out = {}
    for p in paths:
        parsed = parse_judge_path(p)
        if parsed and parsed[1] == spec.name:
            out[(parsed[0], parsed[2])] = load_judge_run(p, spec.label_columns, repeats, pd.Index(units), spec)
    return out


def dataset_evidence(spec: DatasetSpec, data_path: str, judge_paths: list[str], tables: pd.DataFrame,
                     repeats: int | None = None) -> DatasetEvidence:
    """Everything the leaderboard reads about one dataset (each judge table once)."""
    data = read_parquet(data_path, "dataset table")
    data = data.assign(unit_id=data["unit_id"].astype(str))
    runs = _runs(judge_paths, spec, data["unit_id"], repeats)
    rows = {}
    for (judge, variant), run in runs.items():
        if variant.endswith(SWAPPED):
            continue
        swapped = runs.get((judge, variant + SWAPPED)) if spec.proto.swappable else None
        rows[(judge, variant)] = RowRun(judge, judge, run, "", swapped)
        if has_weighted_row(run, spec):
            rows[(judge + WEIGHTED_ROW, variant)] = RowRun(judge + WEIGHTED_ROW, judge, run, WEIGHTED)
    mine = tables
    if len(tables):
        mine = tables[(tables["kind"] == "judge") & (tables["table"] == table_name(spec))
                      & (tables["dataset"] == spec.label)]
    return DatasetEvidence(spec, data, rows, mine.reset_index(drop=True) if len(mine) else pd.DataFrame())


def read_tables(paths: list[str]) -> pd.DataFrame:
    """The Table 1-5 and own-table CSVs, concatenated (their judge cells are looked up by name)."""
    frames = [pd.read_csv(p) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


