"""Atomic Parquet/JSON writing with provenance metadata.

Every table the pipeline writes carries a JSON blob under the Parquet schema
metadata key ``sumjudge`` (what made it: code version, model, prompt hash, ...).
Files are written to a temporary name and renamed, so a crash never leaves a
half-written output that Snakemake would take for a finished one. The
temporary file gets the mode an ordinary ``open()`` would give (``0666`` minus
the process umask), not ``mkstemp``'s ``0600``: with umask 022 a collaborator
in the same group can read every output. :func:`tmp_beside` is the one place
that does this; every atomic write in the package goes through it, and every
text or JSON file is written by :func:`write_text` / :func:`write_json`
(``durable=True``: fsync'd before the rename, for the judge cache and the batch
journal, which must survive a crash). :func:`sha256_file` is the one file hash.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__

META_KEY = b"sumjudge"


def current_umask() -> int:
    """The process umask (read without changing it where /proc allows)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no /proc: set and restore at once
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode ``open(path, "w")`` would give a new file: 0666 minus the umask."""
    return 0o666 & ~current_umask()


def tmp_beside(path: str | os.PathLike, prefix: str | None = None) -> Path:
    """An empty temporary file in ``path``'s folder (created if needed), to rename onto
    ``path``, with the umask's mode (see the module docstring)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=prefix or f".{path.name}.", suffix=".part")
    try:
        os.fchmod(fd, file_mode())
    finally:
        os.close(fd)
    return Path(name)


def write_parquet(df: pd.DataFrame, path: str | os.PathLike, meta: dict[str, Any] | None = None) -> None:
    """Write ``df`` to ``path`` atomically, with ``meta`` stored in the schema metadata."""
    path = Path(path)
    table = pa.Table.from_pandas(df, preserve_index=False)
    info = {"code_version": __version__, **(meta or {})}
    merged = dict(table.schema.metadata or {})
    merged[META_KEY] = json.dumps(info, sort_keys=True, default=str).encode()
    table = table.replace_schema_metadata(merged)
    tmp = tmp_beside(path)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """Return the provenance metadata written by :func:`write_parquet`."""
    raw = (pq.read_schema(path).metadata or {}).get(META_KEY)
    return json.loads(raw) if raw else {}


def write_text(text: str, path: str | os.PathLike, *, durable: bool = False, prefix: str | None = None) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: a temporary file beside it, renamed.
    ``durable``: flushed and fsync'd before the rename (a crash leaves the old file or the
    new one, never an empty one). ``prefix``: the temporary file's name prefix."""
    path = Path(path)
    tmp = tmp_beside(path, prefix)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(obj: Any, path: str | os.PathLike, *, compact: bool = False, ensure_ascii: bool = True,
               durable: bool = False, prefix: str | None = None) -> None:
    """Write ``obj`` as JSON with sorted keys, atomically (:func:`write_text`). By default
    indented with a final newline, anything else as ``str``; ``compact``: one line, as
    ``json.dump(obj, sort_keys=True)`` writes it (a value JSON cannot hold is an error)."""
    if compact:
        text = json.dumps(obj, sort_keys=True, ensure_ascii=ensure_ascii)
    else:
        text = json.dumps(obj, indent=2, sort_keys=True, default=str, ensure_ascii=ensure_ascii) + "\n"
    write_text(text, path, durable=durable, prefix=prefix)


def sha256_file(path: str | os.PathLike, block: int = 1 << 22) -> str:
    """The sha256 (hex) of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(block):
            digest.update(chunk)
    return digest.hexdigest()


# results/judge/<judge>/<dataset>/<variant>.parquet: the judge stage's outputs, read by the tables,
# the leaderboard and the imported-scores rule alike (here, below all of them)
SWAPPED = "_swapped"  # results/judge/<judge>/<dataset>/<variant>_swapped.parquet: the pair asked the other way round
JUDGE_PATH = re.compile(r"(?:^|/)judge/(?P<judge>[^/]+)/(?P<dataset>[^/]+)/(?P<variant>[^/]+)\.parquet$")


def parse_judge_path(path: str | os.PathLike) -> tuple[str, str, str] | None:
    """(judge, dataset, variant) of a judge output path, or None."""
    m = JUDGE_PATH.search(str(path).replace("\\", "/"))
    return (m["judge"], m["dataset"], m["variant"]) if m else None
