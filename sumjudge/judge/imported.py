"""A judge's scores from another tool: ``judges: {<name>: {scores: <path>}}`` (docs/judge.md,
"Scores from another tool"). The file (.csv, .jsonl or .parquet) is validated against the
dataset table and turned into the judge stage's table (results/judge/<name>/<dataset>/base.parquet,
status ok, no request sent), so it enters every table and the leaderboard like any judge.

Columns per protocol, its protocol object's ``import_columns`` (one file may hold several
datasets when it has a ``dataset`` column):

- likert:   ``doc_id, system, dimension, score`` (optional ``sample``), score within the scale
- pairwise: ``unit_id, choice`` (0 or 1: the better of summary_0 / summary_1), optional ``sample``
- pairwise_tie: the same, ``choice`` 0, 1 or 2 (a tie); the base prompt's question only (HELM news: overall)
- binary:   ``doc_id, sentence_idx, label`` (0/1)
- pyramid:  ``doc_id, system, scu_index, label`` (0/1; every SCU of the summary)

The last column is the value; the ones before it name the unit (a protocol with
``per_dimension`` also names the dimension, one with ``per_item`` the item).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .errors import ScoresError  # raised here; importers name it from imported too


def read_scores(path: str | Path) -> pd.DataFrame:
    path = Path(path)
    if not path.exists():
        raise ScoresError(f"{path}: scores file not found (config judges.<name>.scores)")
    if path.suffix == ".csv":
        return pd.read_csv(path)
    if path.suffix == ".jsonl":
        return pd.read_json(path, lines=True)
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    raise ScoresError(f"{path}: unknown format {path.suffix!r}; use .csv, .jsonl or .parquet")


def _row(i) -> str:
    return f"row {int(i) + 2}"  # the file's line: header is line 1


def import_scores(path: str | Path, dataset, data: pd.DataFrame, judge: str = "imported") -> pd.DataFrame:
    """The judge table of ``dataset`` (a DatasetSpec) from a scores file; ScoresError names
    the file, the row and the fix."""
    df = read_scores(path)
    proto = dataset.protocol
    need = list(dataset.proto.import_columns)
    if not need:
        raise ScoresError(f"{path}: scores of a {proto} dataset ({dataset.name}) cannot be imported; "
                          "its protocol declares no import_columns (sumjudge/protocols.py)")
    if "dataset" in df:
        df = df[df["dataset"].astype(str) == dataset.name]
    missing = [c for c in need if c not in df]
    if missing:
        raise ScoresError(f"{path}: missing column(s) {missing} for the {proto} dataset {dataset.name}; "
                          f"expected columns {need} (docs/judge.md, 'Scores from another tool')")
    if "sample" not in df:
        df = df.assign(sample=0)
    keys = need[:-1] + ["sample"]  # the value is the last column
    dup = df.duplicated(keys, keep="first")
    if dup.any():
        i = dup.idxmax()
        raise ScoresError(f"{path}: {_row(i)} repeats {dict(df.loc[i, keys])}; keep one score per key")
    data = data.copy()
    data["unit_id"] = data["unit_id"].astype(str)
    if dataset.proto.per_dimension:
        ids = {(str(d), str(s)): u for u, d, s in zip(data["unit_id"], data["doc_id"], data["system"])}
        lo, hi = dataset.likert_scale or (1, 5)
        dims = set(dataset.dimensions)
        out = {}
        for i, r in df.iterrows():
            u = ids.get((str(r["doc_id"]), str(r["system"])))
            if u is None:
                raise ScoresError(f"{path}: {_row(i)}: (doc_id, system) ({r['doc_id']}, {r['system']}) is not a "
                                  f"{dataset.name} summary; fix the ids or drop the row")
            if r["dimension"] not in dims:
                raise ScoresError(f"{path}: {_row(i)}: dimension {r['dimension']!r} is not one of {sorted(dims)}")
            v = pd.to_numeric(pd.Series([r["score"]]), errors="coerce").iloc[0]
            if pd.isna(v) or not lo <= v <= hi:
                raise ScoresError(f"{path}: {_row(i)}: score {r['score']!r} outside the scale {lo}-{hi}")
            out.setdefault((u, int(r["sample"])), {})[r["dimension"]] = float(v)
        rows = [{"unit_id": u, "sample": s, **{d: vals.get(d, np.nan) for d in dataset.dimensions}}
                for (u, s), vals in out.items()]
        table = pd.DataFrame(rows)
        table["status"] = np.where(table[list(dataset.dimensions)].notna().all(axis=1), "ok", "invalid")
    elif dataset.proto.per_item:
        ids = {(str(d), str(s)): (u, len(lab)) for u, d, s, lab in
               zip(data["unit_id"], data["doc_id"], data["system"], data[dataset.gold_columns[0]])}
        out = {}
        for i, r in df.iterrows():
            hit = ids.get((str(r["doc_id"]), str(r["system"])))
            if hit is None or not 0 <= int(r["scu_index"]) < hit[1]:
                raise ScoresError(f"{path}: {_row(i)}: (doc_id, system, scu_index) ({r['doc_id']}, {r['system']}, "
                                  f"{r['scu_index']}) is not an SCU of a {dataset.name} summary")
            if r["label"] not in (0, 1, True, False):
                raise ScoresError(f"{path}: {_row(i)}: label {r['label']!r}; use 0 or 1")
            out.setdefault((hit[0], int(r["sample"])), [None] * hit[1])[int(r["scu_index"])] = bool(r["label"])
        lcol = dataset.label_columns[0]
        table = pd.DataFrame([{"unit_id": u, "sample": s, lcol: lab} for (u, s), lab in out.items()])
        table["status"] = ["ok" if all(x is not None for x in lab) else "invalid" for lab in table[lcol]]
    else:  # one label per unit: the key columns name it (pairwise: its unit_id)
        col, key = need[-1], need[:-1]
        allowed = tuple(range(max(2, len(dataset.proto.answer_names))))
        ids = {tuple(str(x) for x in k): u for u, *k in zip(data["unit_id"], *(data[c] for c in key))}
        unit = [ids.get(tuple(str(x) for x in k)) for k in zip(*(df[c] for c in key))]
        for i, u, v in zip(df.index, unit, df[col]):
            if u is None:
                raise ScoresError(f"{path}: {_row(i)}: not a unit of {dataset.name} ({dict(df.loc[i, need[:-1]])}); "
                                  "fix the ids or drop the row")
            if v not in allowed:  # pairwise_tie: 2 is its tie answer
                raise ScoresError(f"{path}: {_row(i)}: {col} {v!r}; use "
                                  + (" or ".join(map(str, allowed)) if len(allowed) == 2
                                     else ", ".join(map(str, allowed[:-1])) + f" or {allowed[-1]}"))
        table = pd.DataFrame({"unit_id": unit, "sample": df["sample"].astype(int).to_numpy(),
                              col: df[col].astype(int).to_numpy(), "status": "ok"})
    table["invalid_reason"] = np.where(table["status"] == "ok", None, "incomplete scores in the imported file")
    table["reply"] = None
    table["judge"] = judge
    table["model"] = f"scores:{Path(path).name}"
    table["cost_usd"] = 0.0
    table["score_mode"] = np.where(table["status"] == "ok", "imported", None)  # made by the other tool
    table["score_fallback"] = None
    return table.sort_values(["sample", "unit_id"]).reset_index(drop=True)


def usage(table: pd.DataFrame, judge: str, dataset: str, path: str) -> dict:
    return {"judge": judge, "dataset": dataset, "variant": "base", "imported_from": str(path),
            "n_units": int(table["unit_id"].nunique()), "n_rows": len(table), "requests_sent": 0,
            "cache_hits": 0, "total_cost_usd": 0.0, "cost_usd": 0.0, "priced": True, "wall_s": 0.0,
            "status": table["status"].value_counts().to_dict()}


def score_files(scores, datasets: list[str]) -> dict[str, str]:
    """``judges.<name>.scores`` as {dataset: file}: a mapping as given, or one file whose
    ``dataset`` column names the datasets it holds (read at workflow start)."""
    if isinstance(scores, dict):
        unknown = sorted(set(scores) - set(datasets))
        if unknown:
            raise ScoresError(f"config judges.<name>.scores names dataset(s) {unknown} not judged; judged: {datasets}")
        return {d: str(p) for d, p in scores.items()}
    df = read_scores(scores)
    if "dataset" not in df:
        raise ScoresError(f"{scores}: a single scores file needs a 'dataset' column (one of {datasets}); "
                          "or give scores: {<dataset>: <file>}")
    found = sorted(set(df["dataset"].astype(str)))
    unknown = [d for d in found if d not in datasets]
    if unknown:
        raise ScoresError(f"{scores}: dataset(s) {unknown} are not judged (judge.datasets: {datasets})")
    return {d: str(scores) for d in found}


def kept_output(path: str, score_files: dict, swapped: bool = False) -> bool:
    """Whether a judge output stays a target: an imported judge has only the base variant of
    the datasets its scores cover, and no swapped order (it sends nothing)."""
    from ..io import parse_judge_path

    judge, dataset, variant = parse_judge_path(path.replace(".usage.json", ".parquet"))
    if judge not in score_files:
        return True
    return not swapped and variant == "base" and dataset in score_files[judge]
