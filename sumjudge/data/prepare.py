"""Turn a dataset's files into its tidy table (one row per judged unit).

What feeds a dataset is declared in :mod:`sumjudge.datasets`: its reader and the
pinned files of each reader *role*. :func:`source_files` selects those files
(``{role: [pinned local path, ...]}``, see :mod:`sumjudge.data.sources`);
:func:`prepare_dataset` gets the local files by the same roles (``inputs``), so
the same code runs on ``results/raw`` and on a mirror directory, and no file is
recognised by its name.
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from ..datasets import DATASETS, DatasetSpec
from ..datasets import get as dataset_spec
from ..protocols import resolve
from .sources import SOURCES

__all__ = ["DATASETS", "source_files", "pinned_paths", "locate", "apply_subset", "prepare_dataset"]


def source_files(name: "str | DatasetSpec", options: Mapping[str, Any] | None = None) -> dict[str, list[str]]:
    """``{role: [pinned local path, ...]}`` of a built-in dataset (honours e.g. ``tldr.batches``).

    A user's dataset (``custom_datasets``) has one role, ``path``: its own file.
    """
    spec = dataset_spec(name, options)
    if spec.custom:
        return {"path": [spec.path]}
    section = (options or {}).get(spec.options_key) if spec.options_key else None
    pinned = [s.local_path for s in SOURCES]
    out = {}
    for role in spec.sources:
        paths = role.select(pinned, section)
        if not paths or (not role.many and len(paths) != 1):
            raise ValueError(f"dataset {spec.name!r}: role {role.role!r} ({role.pattern}) matches "
                             f"{len(paths)} pinned files in sumjudge/data/sources.py; "
                             f"{'at least one' if role.many else 'exactly one'} expected")
        out[role.role] = paths
    return out


def pinned_paths(sources: Mapping[str, list[str]]) -> list[str]:
    """All files of :func:`source_files` in one list, in the order of sources.py (provenance)."""
    chosen = {p for paths in sources.values() for p in paths}
    ordered = [s.local_path for s in SOURCES if s.local_path in chosen]
    return ordered + sorted(chosen - set(ordered))


def locate(sources: Mapping[str, list[str]], root: str | Path) -> dict[str, list[str]]:
    """The local files of :func:`source_files` under a mirror (or results/raw) directory."""
    return {role: [str(Path(root) / p) for p in paths] for role, paths in sources.items()}


def apply_subset(df: pd.DataFrame, docs: int | None = None, units: int | None = None) -> pd.DataFrame:
    """Keep the first ``docs`` documents (sorted ids) and then the first ``units`` rows."""
    if docs and "doc_id" in df:
        keep = sorted(df["doc_id"].unique())[:docs]
        df = df[df["doc_id"].isin(keep)]
    elif docs and "post_id" in df:
        keep = list(dict.fromkeys(df["post_id"]))[:docs]
        df = df[df["post_id"].isin(keep)]
    if units:
        df = df.head(units)
    return df.reset_index(drop=True)


def reader_arguments(spec: DatasetSpec, inputs: Mapping[str, Any],
                     options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments of the dataset's reader: its files by role (a list for a
    ``many`` role, else the one path), the reader options of its config section
    that are set, and the spec's fixed arguments."""
    many = {r.role: r.many for r in spec.sources}
    kwargs: dict[str, Any] = {}
    for role, value in inputs.items():
        paths = [str(value)] if isinstance(value, (str, Path)) else [str(v) for v in value]
        if many.get(role, False):
            kwargs[role] = sorted(paths)
        elif len(paths) != 1:
            raise ValueError(f"dataset {spec.name!r}: role {role!r} takes one file, got {len(paths)}")
        else:
            kwargs[role] = paths[0]
    wanted = {r.role for r in spec.sources} if not spec.custom else {"path"}
    if set(kwargs) != wanted:
        raise ValueError(f"dataset {spec.name!r} needs files for {', '.join(sorted(wanted))}; "
                         f"got {', '.join(sorted(kwargs)) or 'none'}")
    section = ((options or {}).get(spec.options_key) or {}) if spec.options_key else {}
    kwargs.update({k: section[k] for k in spec.reader_options if k in section})
    kwargs.update(dict(spec.reader_kwargs))
    return kwargs


def prepare_dataset(name: "str | DatasetSpec", inputs: Mapping[str, Any],
                    options: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Read a dataset's files (``inputs``: ``{role: path or [paths]}``) with its reader,
    then apply ``options['subset'][name]``."""
    options = options or {}
    spec = dataset_spec(name, options)
    reader = resolve(spec.reader)
    kwargs = reader_arguments(spec, inputs, options)
    inspect.signature(reader).bind(**kwargs)  # a registry entry that does not fit its reader fails here
    df = reader(**kwargs)
    subset = (options.get("subset") or {}).get(spec.name) or {}
    return apply_subset(df, subset.get("docs"), subset.get("units"))
