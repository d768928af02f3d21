"""Do two results folders hold the same numbers? (``python -m sumjudge.share compare A B``)

A collaborator who rebuilt from a shared archive, or anyone who upgraded the code and
reran, wants to know which outputs changed and where. Every file under both folders (not a
symlink: :func:`.archive.files_under`, the export's walk) is paired by its path; the
downloads, the judge cache and share's own records are left out (``SKIP``). A table (``.parquet``, ``.csv``) is compared cell by cell, exactly (NaN equals
NaN; a float must be the same float), and its differing columns are named; a ``.json`` file
names its differing top-level keys; any other file is compared byte for byte.
Definitions: docs/sharing.md, "Comparing two results folders".
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .archive import files_under

SKIP = ("raw", "cache", "share")          # downloads, the judge cache, an import's records
TABLES = (".parquet", ".csv")

IDENTICAL, SAME_CELLS, DIFFERS = "identical", "same cells", "differs"
ONLY_A, ONLY_B = "only in A", "only in B"


@dataclass
class FileDiff:
    path: str                                         # relative to both folders
    status: str                                       # one of the five above
    where: list[str] = field(default_factory=list)    # the differing columns or keys
    notes: list[str] = field(default_factory=list)    # a table's columns on one side only, order, rows


def _files(root: Path, skip: tuple[str, ...]) -> set[str]:
    return {m.arcname for m in files_under(root, root, skip=[root / s for s in skip])}


def _read_table(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path, keep_default_na=False)


def table_structure(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """How two frames' shapes differ: the columns only one has, the column order, the row count."""
    out = []
    gone, new = [c for c in a.columns if c not in b.columns], [c for c in b.columns if c not in a.columns]
    if gone:
        out.append(f"only in A: {', '.join(map(str, gone))}")
    if new:
        out.append(f"only in B: {', '.join(map(str, new))}")
    if not gone and not new and list(a.columns) != list(b.columns):
        out.append("column order")
    if len(a) != len(b):
        out.append(f"rows {len(a)} vs {len(b)}")
    return out


def table_difference(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """The columns both frames have whose cells differ ([] when the row counts differ: no
    cell pairs with another)."""
    if len(a) != len(b):
        return []
    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    return [str(c) for c in a.columns if c in b.columns and not a[c].equals(b[c])]


def json_difference(a: object, b: object) -> list[str]:
    """The top-level keys whose values differ (the whole document when either is not a mapping)."""
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return [] if a == b else ["(whole document)"]
    return sorted(str(k) for k in a.keys() | b.keys() if a.get(k) != b.get(k))


def compare_file(a: Path, b: Path) -> tuple[list[str], list[str]] | None:
    """None when the bytes are equal; else (where the contents differ, notes on a table's
    shape): both empty when only the bytes do."""
    if a.read_bytes() == b.read_bytes():
        return None
    if a.suffix in TABLES:
        ta, tb = _read_table(a), _read_table(b)
        return table_difference(ta, tb), table_structure(ta, tb)
    if a.suffix == ".json":
        try:
            return json_difference(json.loads(a.read_text()), json.loads(b.read_text())), []
        except (json.JSONDecodeError, UnicodeDecodeError):
            pass
    return ["(bytes)"], []


def compare_results(a: str | Path, b: str | Path, skip: tuple[str, ...] = SKIP) -> list[FileDiff]:
    """One :class:`FileDiff` per file under ``a`` or ``b``, sorted by path."""
    a, b = Path(a), Path(b)
    for root in (a, b):
        if not root.is_dir():
            raise FileNotFoundError(f"{root}: not a results folder (no such directory)")
    fa, fb = _files(a, skip), _files(b, skip)
    out = []
    for rel in sorted(fa | fb):
        if rel not in fb:
            out.append(FileDiff(rel, ONLY_A))
        elif rel not in fa:
            out.append(FileDiff(rel, ONLY_B))
        else:
            found = compare_file(a / rel, b / rel)
            if found is None:
                out.append(FileDiff(rel, IDENTICAL))
            else:
                where, notes = found
                out.append(FileDiff(rel, DIFFERS if where or notes else SAME_CELLS, where, notes))
    return out


def report(diffs: list[FileDiff], a: str | Path, b: str | Path) -> str:
    """Counts per status, then one line per file that is not identical."""
    counts = {s: sum(d.status == s for d in diffs) for s in (IDENTICAL, SAME_CELLS, DIFFERS, ONLY_A, ONLY_B)}
    lines = [f"A = {a}, B = {b}: {len(diffs)} files; " + ", ".join(f"{s} {n}" for s, n in counts.items())]
    for d in diffs:
        if d.status != IDENTICAL:
            parts = d.notes + ([", ".join(d.where)] if d.where else [])
            lines.append(f"  {d.status:<10} {d.path}" + (f": {'; '.join(parts)}" if parts else ""))
    return "\n".join(lines)
