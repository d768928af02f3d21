"""Readers for the raw upstream formats, with errors that name file and row.

Pickles are read with a restricted unpickler that accepts builtin containers and
scalars only, so a tampered download cannot run code.
"""
from __future__ import annotations

import csv
import json
import pickle
from pathlib import Path
from typing import Any, Iterator

from ..errors import UserError


class DataError(UserError, ValueError):
    """A raw file does not have the shape the preparer expects."""


class _BuiltinsOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str):  # pickle's API
        raise pickle.UnpicklingError(
            f"refusing to load global {module}.{name}: only builtin types are allowed"
        )


def read_pickle(path: str | Path) -> Any:
    try:
        with open(path, "rb") as fh:
            return _BuiltinsOnly(fh).load()
    except (pickle.UnpicklingError, EOFError, ValueError) as err:
        raise DataError(
            f"{path}: not a readable builtins-only pickle ({err}). Delete the file and "
            "let the download rule fetch it again."
        ) from err


def read_json(path: str | Path) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as err:
        raise DataError(f"{path}: invalid JSON at line {err.lineno}: {err.msg}") from err


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, record)``; a bad line raises naming file and line."""
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise DataError(
                    f"{path}, line {lineno}: invalid JSON ({err.msg}). The file is "
                    "damaged: delete it and fetch it again."
                ) from err
            if not isinstance(record, dict):
                raise DataError(f"{path}, line {lineno}: expected a JSON object")
            yield lineno, record


def iter_csv(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(row_number, row)`` with 1-based data-row numbers (header is row 0)."""
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        for rowno, row in enumerate(reader, start=1):
            if None in row or any(v is None for v in row.values()):
                raise DataError(
                    f"{path}, row {rowno}: has {len(reader.fieldnames or [])} header "
                    "fields but a different number of values. The file is damaged: "
                    "delete it and fetch it again."
                )
            yield rowno, row


def require(record: dict, keys: list[str], where: str) -> None:
    missing = [k for k in keys if k not in record]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")


def check_counts(path: str | Path, found: dict[str, Any], expected: dict[str, Any],
                 source: str = "PROVENANCE.md") -> None:
    """Raise naming the file and every count that differs from the verified one (``expected``:
    the counts the dataset's ``source`` states for the pinned file)."""
    bad = [f"{key}: expected {want!r}, found {found.get(key)!r}" for key, want in expected.items()
           if found.get(key) != want]
    if bad:
        raise DataError(f"{path}: {len(bad)} count(s) differ from the verified counts of the pinned file "
                        f"({source}): " + "; ".join(bad) + ". The file is not the pinned version or was "
                        "edited: check its sha256 (sumjudge/data/sources.py) and fetch it again.")
