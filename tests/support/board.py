"""Build the leaderboard in a test from data frames: write the prepared tables, judge tables
and table cells under a directory, then call :func:`sumjudge.leaderboard.build.build`."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from sumjudge.datasets import BUILTIN
from sumjudge.leaderboard.build import build
from sumjudge.leaderboard.settings import LeaderboardSettings
from sumjudge.evidence.settings import TableSettings

FAST = TableSettings(permutation_resamples=50, bootstrap_resamples=50, seed=1)


def judge_frame(data: pd.DataFrame, labels: dict, status="ok", samples: int = 1) -> pd.DataFrame:
    """A judge table: ``labels`` column -> values per unit (or a list per sample)."""
    parts = []
    for s in range(samples):
        parts.append(pd.DataFrame({"unit_id": data["unit_id"].astype(str), "sample": s, "status": status,
                                   **{c: (v[s] if samples > 1 else v) for c, v in labels.items()}}))
    return pd.concat(parts, ignore_index=True)


def run(root: Path, datas: dict[str, pd.DataFrame], judges: dict[tuple[str, str], pd.DataFrame],
        cells: list[dict] = (), specs=None, tables: TableSettings = FAST, config: dict | None = None,
        pricing=None, usage: dict | None = None, savings=None, juries=None, families=None) -> dict[str, pd.DataFrame]:
    """``judges``: (judge, dataset) or (judge, dataset, variant) -> judge table; ``savings``, ``juries``:
    what :func:`sumjudge.leaderboard.build.build` shows beside the verdicts; ``families``: prompt families'
    rows (:class:`sumjudge.leaderboard.families.FamilyInputs`)."""
    root.mkdir(parents=True, exist_ok=True)
    data_paths, judge_paths = {}, []
    for name, df in datas.items():
        p = root / "data" / f"{name}.parquet"
        p.parent.mkdir(parents=True, exist_ok=True)
        df.to_parquet(p)
        data_paths[name] = str(p)
    for key, df in judges.items():
        judge, name, variant = (*key, "base")[:3]
        p = root / "judge" / judge / name / f"{variant}.parquet"
        p.parent.mkdir(parents=True, exist_ok=True)
        df.to_parquet(p)
        u = (usage or {}).get(judge, {"n_units": int(df["unit_id"].nunique()), "wall_s": 10.0,
                                      "total_cost_usd": 0.01, "priced": True})
        p.with_suffix(".usage.json").write_text(json.dumps(u))
        judge_paths.append(str(p))
    table_paths = []
    if cells:
        t = root / "cells.csv"
        pd.DataFrame([{"kind": "judge", "near_constant": False, **c} for c in cells]).to_csv(t, index=False)
        table_paths.append(str(t))
    return build(table_paths, data_paths, judge_paths, specs or BUILTIN, tables,
                 LeaderboardSettings.from_config(config or {}), pricing, savings, juries, None, families)


def table_cells(spec, row: str, value: float, n: int) -> list[dict]:
    """A judge's Table cells of every column of ``spec`` (value, interval +-0.05)."""
    from sumjudge.evidence.columns import columns_of

    return [{"table": c.table, "dataset": c.label, "dimension": c.dimension, "level": c.level, "row": row,
             "value": value, "ci_low": value - 0.05, "ci_high": value + 0.05, "n": n} for c in columns_of(spec)]
