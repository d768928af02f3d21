"""Fetch one pinned upstream file, from a local mirror or from its upstream URL.

Every file is checked against the sha256 pinned in :mod:`sumjudge.data.sources`.
Output is written to a temporary file beside the target and renamed only after the
checksum matched, so a failed or interrupted fetch never leaves a half-written file.
"""
from __future__ import annotations

import os
import shutil
import urllib.request
from pathlib import Path

from ..errors import UserError
from ..io import sha256_file, tmp_beside
from .sources import BY_LOCAL_PATH, Source


class FetchError(UserError, RuntimeError):
    """A file could not be fetched or failed its checksum."""


def source_for(local_path: str) -> Source:
    try:
        return BY_LOCAL_PATH[local_path]
    except KeyError:
        raise FetchError(
            f"{local_path}: not a pinned source file; known files are listed in "
            "sumjudge/data/sources.py"
        ) from None


def _copy_from_mirror(source: Source, mirror: str | os.PathLike, tmp: Path) -> str:
    origin = Path(mirror) / source.local_path
    if not origin.is_file():
        raise FetchError(
            f"{source.local_path}: missing from the mirror (looked for {origin}). "
            f"Put the file there (upstream: {source.url}) or unset the config key "
            "'mirror' to download it."
        )
    shutil.copyfile(origin, tmp)
    return str(origin)


def _download(source: Source, tmp: Path, timeout: float) -> str:
    try:
        with urllib.request.urlopen(source.url, timeout=timeout) as resp, open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out)
    except OSError as err:  # URLError, HTTPError and socket errors are all OSError
        raise FetchError(
            f"{source.local_path}: download from {source.url} failed ({err}). "
            "Check the network, or set the config key 'mirror' to a directory that "
            "holds a copy laid out as <dataset>/<owner>+<repo>/<path>."
        ) from err
    return source.url


def fetch(local_path: str, dest: str | os.PathLike, mirror: str | None = None,
          timeout: float = 60.0) -> str:
    """Fetch the pinned file ``local_path`` to ``dest``; return where it came from.

    Raises :class:`FetchError` naming the file, expected and actual hash and what
    to do, and leaves nothing at ``dest`` in that case.
    """
    source = source_for(local_path)
    dest = Path(dest)
    tmp = tmp_beside(dest)
    try:
        origin = (_copy_from_mirror(source, mirror, tmp) if mirror
                  else _download(source, tmp, timeout))
        actual = sha256_file(tmp)
        if actual != source.sha256:
            raise FetchError(
                f"{source.local_path}: checksum mismatch (from {origin}).\n"
                f"  expected sha256 {source.sha256}\n"
                f"  actual   sha256 {actual}\n"
                "The file is corrupt, truncated or a different version. Delete it and "
                f"fetch it again from {source.url}; if upstream changed on purpose, "
                "update the pin in sumjudge/data/sources.py."
            )
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return origin
