"""A user's own dataset (config key ``custom_datasets``): read, check, tidy.

The file is ``.csv``, ``.jsonl`` (one JSON object per line) or ``.parquet``, by its
extension. Its columns are those of its protocol (:mod:`sumjudge.protocols`,
listed in docs/extending.md); a Likert dataset also has one numeric column per
entry of ``dimensions``. Any other column is kept as it is.

Every problem stops with one :class:`~sumjudge.data.readers.DataError` naming
the file, the line (CSV, JSONL) or row (Parquet), and the fix: a missing column,
a wrong type, an empty file, a label out of range, a repeated unit. Nothing is
written before the whole file has passed (the rule writes atomically).

In a CSV file a list column (``scus``, ``labels``) is a JSON list in one cell,
e.g. ``"[""The cat sat."", ""It was red.""]"`` and ``"[1, 0]"``.

The prepared table adds ``unit_id`` (Likert, Pyramid: ``doc_id/system``;
pairwise: ``pair_id``; binary: ``doc_id/system/k`` for the k-th sentence of that
summary, in file order) and, for binary, ``summary_id`` (``doc_id/system``, the
resampling cluster) and ``sentence_idx``. A pairwise file without ``doc_id``
gets ``doc_id = pair_id`` (every pair its own cluster).
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pandas as pd

from ..protocols import COLUMN_KINDS, Column, get as get_protocol
from .readers import DataError, iter_jsonl

FORMATS = (".csv", ".jsonl", ".parquet")
_MISSING = object()


def _format(path: Path) -> str:
    ext = path.suffix.lower()
    if ext not in FORMATS:
        raise DataError(f"{path}: unknown format {ext or '(no extension)'!r}; give the file one of the "
                        f"extensions {', '.join(FORMATS)} (config key custom_datasets.<name>.path)")
    return ext


def file_columns(path: str | Path) -> list[str] | None:
    """The column names of a user's file, read cheaply (CSV header, first JSONL record,
    Parquet schema); None when the file is missing or unreadable (its rule reports it)."""
    path = Path(path)
    try:
        ext = _format(path)
        if ext == ".parquet":
            import pyarrow
            import pyarrow.parquet as pq

            try:
                return list(pq.read_schema(path).names)
            except pyarrow.ArrowException:  # a damaged Parquet file: its prepare rule says why
                return None
        with open(path, encoding="utf-8", newline="") as fh:
            if ext == ".csv":
                return next(csv.reader(fh), [])
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    return list(rec) if isinstance(rec, dict) else None
            return []
    except (OSError, ValueError, DataError, StopIteration):
        return None


# ----------------------------------------------------------------------- records

def _records(path: Path) -> tuple[list[str] | None, Iterator[tuple[str, dict[str, Any]]]]:
    """(file-wide header or None, iterator of (where, record)); CSV values are strings."""
    ext = _format(path)
    if ext == ".jsonl":
        return None, ((f"line {n}", rec) for n, rec in iter_jsonl(path))
    if ext == ".csv":
        fh = open(path, encoding="utf-8", newline="")
        reader = csv.DictReader(fh)
        header = list(reader.fieldnames or [])

        def rows():
            with fh:
                for row in reader:
                    where = f"line {reader.line_num}"
                    if None in row or any(v is None for v in row.values()):
                        raise DataError(f"{path}, {where}: has a different number of values than the "
                                        f"header's {len(header)} columns; quote cells that contain commas")
                    yield where, row
        return header, rows()
    try:
        df = pd.read_parquet(path)
    except Exception as err:  # pyarrow raises several kinds; re-raised as the DataError that says what to do
        raise DataError(f"{path}: not a readable Parquet file ({err}); write it again, e.g. with "
                        "pandas.DataFrame.to_parquet") from err
    return list(df.columns), ((f"row {i}", rec) for i, rec in enumerate(df.to_dict("records"), start=1))


def _is_missing(value: Any) -> bool:
    return value is None or value is _MISSING or (isinstance(value, float) and math.isnan(value))


def _as_list(value: Any, csv_cell: bool) -> Any:
    if csv_cell and isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _binary(value: Any, csv_cell: bool) -> int | None:
    """0/1 from 0, 1, True, False, 0.0, 1.0 (CSV: "0", "1"); None if not a 0/1 number."""
    if csv_cell and isinstance(value, str):
        value = value.strip()
        return {"0": 0, "1": 1, "0.0": 0, "1.0": 1}.get(value)
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer, float, np.floating)) and value in (0, 1):
        return int(value)
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _value(col: Column, value: Any, csv_cell: bool, fail) -> Any:
    """The checked value of one cell (``fail(problem, fix)`` raises)."""
    kind = col.kind
    if kind == "id":
        if isinstance(value, str) and value.strip():
            return value
        if _is_number(value) and float(value).is_integer():
            return str(int(value))
        fail(f"column '{col.name}' is {value!r}, not {COLUMN_KINDS[kind]}", "give every row an id")
    if kind == "text":
        if isinstance(value, str):
            return value
        fail(f"column '{col.name}' is {type(value).__name__} {value!r}, not {COLUMN_KINDS[kind]}",
             "write the text as a string")
    if kind == "number":
        if csv_cell and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                fail(f"column '{col.name}' is {value!r}, not a number", "write the score as a number, e.g. 3 or 4.5")
        if _is_number(value) and math.isfinite(float(value)):
            return float(value)
        fail(f"column '{col.name}' is {value!r}, not a number", "write the score as a number, e.g. 3 or 4.5")
    if kind == "flag":
        b = _binary(value, csv_cell)
        if b is None:
            number = _is_number(value) or (csv_cell and isinstance(value, str) and _float_or_none(value) is not None)
            fail(f"column '{col.name}' is {value!r}" + (", out of range" if number else f", not {COLUMN_KINDS[kind]}"),
                 _LABEL_FIX.get(col.name, "write 0 or 1"))
        return b
    if kind == "choice3":  # a pairwise label with a tie (protocol pairwise_tie)
        v = _float_or_none(value) if csv_cell and isinstance(value, str) else (
            float(value) if _is_number(value) else None)
        if v is None or v not in (0.0, 1.0, 2.0):
            fail(f"column '{col.name}' is {value!r}, not {COLUMN_KINDS[kind]}",
                 "write 0 (summary 0 is better), 1 (summary 1 is better) or 2 (a tie)")
        return int(v)
    value = _as_list(value, csv_cell)
    if not isinstance(value, (list, tuple)):
        fail(f"column '{col.name}' is {value!r}, not {COLUMN_KINDS[kind]}",
             "write a list" + (" as JSON in the cell, e.g. [\"a\", \"b\"]" if csv_cell else ""))
    if kind == "texts":
        if not all(isinstance(v, str) for v in value):
            fail(f"column '{col.name}' holds a value that is not a string", "make every item a string")
        return list(value)
    out = [_binary(v, False) for v in value]
    if any(v is None for v in out):
        bad = next(v for v, o in zip(value, out) if o is None)
        fail(f"column '{col.name}' holds {bad!r}, out of range", "every item must be 0 or 1 (1 = present)")
    return [bool(v) for v in out]


def _float_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


_LABEL_FIX = {
    "label": "write 0 or 1 (pairwise: the summary the humans preferred; binary: 1 = supported)",
}


# ------------------------------------------------------------------------ reader

def _columns(protocol: str, dimensions: Sequence[str] = (),
             annotator_columns: Sequence[str] = ()) -> tuple[list[Column], list[str], str]:
    """The file's columns, the required names, and the sentence that lists them."""
    proto = get_protocol(protocol)
    columns = list(proto.columns) + [Column(d, "number") for d in dimensions]
    kinds = {c.name: c.kind for c in columns}
    columns += [Column(a, kinds[a.rsplit("_", 1)[0]], required=False) for a in annotator_columns]
    required = [c.name for c in columns if c.required] + list(annotator_columns)
    need = (f"a {protocol} dataset needs the columns {', '.join(required)}"
            + (" (the last ones from `dimensions`)" if dimensions else ""))
    return columns, required, need


def _missing(path: Path, header: Sequence[str], required: Sequence[str], need: str) -> str | None:
    """The one line for required columns absent from ``header`` (None: none absent)."""
    missing = [c for c in required if c not in header]
    if not missing:
        return None
    where = {".csv": "line 1 (header)", ".jsonl": "line 1"}.get(path.suffix.lower(), "schema")
    return (f"{path}, {where}: missing column(s) {', '.join(map(repr, missing))}; {need}: add or rename "
            "the column(s)")


def check_header(name: str, reader_kwargs: dict[str, Any], path: str | Path, prepared: bool = False) -> str | None:
    """Before any job (the workflow's dry run too): a user's file that is missing (unless
    its table is ``prepared`` already: a collaborator's copy of results/ needs no file), or
    whose header (CSV), first record (JSONL) or schema (Parquet) lacks a required column;
    None when it has them all or cannot be read cheaply (its rule then says why)."""
    path = Path(path)
    key = f"config key custom_datasets.{name}.path"
    if not path.is_file():
        return None if prepared else (f"{path}: no such file ({key}; a relative path is read from the working "
                                      f"directory {Path.cwd()}): fix the path")
    header = file_columns(path)
    if header is None:
        return None
    _, required, need = _columns(reader_kwargs["protocol"], reader_kwargs.get("dimensions", ()),
                                 reader_kwargs.get("annotator_columns", ()))
    problem = _missing(path, header, required, need)
    return f"{problem} ({key})" if problem else None


def prepare(path: str | Path, protocol: str, dimensions: Sequence[str] = (),
            annotator_columns: Sequence[str] = ()) -> pd.DataFrame:
    """Read and check a user's dataset file; return its prepared table (see the module doc).

    ``annotator_columns``: each annotator's labels (``custom_datasets.<name>.annotators``),
    ``<gold>_<annotator>``; each must be in the file, of its gold column's kind, and may be
    empty where that annotator did not label the unit."""
    path = Path(path)
    proto = get_protocol(protocol)
    columns, required, need = _columns(protocol, dimensions, annotator_columns)
    header, records = _records(path)
    csv_cell = path.suffix.lower() == ".csv"
    if header is not None:
        problem = _missing(path, header, required, need)
        if problem:
            raise DataError(problem)

    rows, first_seen = [], {}
    key_cols = proto.unit_key
    for where, rec in records:
        def fail(problem: str, fix: str, where=where) -> None:
            raise DataError(f"{path}, {where}: {problem}; {fix}")

        row = dict(rec)
        for col in columns:
            value = rec.get(col.name, _MISSING)
            if csv_cell and value == "" and not col.required:
                value = _MISSING
            if _is_missing(value) or (csv_cell and value == "" and col.kind in ("id", "number", "flag", "choice3")):
                if col.name in annotator_columns and col.name not in rec:
                    fail(f"missing column '{col.name}'", f"{need}: add it to every line")
                if col.required:
                    if value is _MISSING and header is None:
                        fail(f"missing column '{col.name}'", f"{need}: add it to every line")
                    fail(f"column '{col.name}' is empty", f"give it {COLUMN_KINDS[col.kind]}")
                if col.name in rec:
                    row[col.name] = None  # an optional column left empty in this row
                continue
            row[col.name] = _value(col, value, csv_cell, fail)
        problem = proto.row_problem(row)
        if problem:
            fail(*problem)
        key = tuple(row[c] for c in key_cols)
        if key in first_seen:
            fail(f"{' / '.join(key_cols)} {' / '.join(map(repr, key))} repeats {first_seen[key]}",
                 "every unit must appear once: remove the repeat or give it another id")
        first_seen[key] = where
        rows.append(row)
    if not rows:
        raise DataError(f"{path}: the file has no rows; {need}, and at least one row")
    return _tidy(pd.DataFrame(rows), proto, [c.name for c in columns])


def _tidy(df: pd.DataFrame, proto, columns: list[str]) -> pd.DataFrame:
    """Add the ids (the protocol object's); the protocol's columns first, any others after them."""
    df = proto.add_ids(df)
    for col in ("label",):
        if col in df:
            df[col] = df[col].astype(int)
    first = ["unit_id"] + [c for c in columns + ["summary_id", "sentence_idx"] if c in df and c != "unit_id"]
    return df[first + [c for c in df.columns if c not in first]].reset_index(drop=True)
