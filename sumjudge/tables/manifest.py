"""``results/manifest.json``: what made a results directory.

Config snapshot, code version (``git describe``, else the package version),
sha256 of every prompt template, per judge output the model ids the server
reported and the prompt hashes it used, per metric output its model, and the
sha256 of every dataset table. A collaborator who receives ``results/`` can
tell from this file alone what produced it.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from .. import __version__
from ..io import read_meta
from .inputs import parse_judge_path, parse_metric_path
from .settings import TableSettings
from .workflow import config_digest

# judge table column -> manifest key listing its distinct values
_JUDGE_ID_COLUMNS = {"model": "models", "resolved_model": "resolved_models", "response_model": "response_models",
                     "model_id": "model_ids", "system_fingerprint": "system_fingerprints",
                     "prompt_hash": "prompt_hashes"}


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def code_version(repo: str | Path) -> str:
    """``git describe --always --dirty --tags`` of the code, else the package version."""
    try:
        out = subprocess.run(["git", "-C", str(repo), "describe", "--always", "--dirty", "--tags"],
                             capture_output=True, text=True, timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return f"sumjudge {__version__} (no git)"


def _unique(path: Path, column: str) -> list[str]:
    return sorted({str(v) for v in pd.read_parquet(path, columns=[column])[column].dropna().unique()})


def judge_entry(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    columns = set(pq.read_schema(path).names)
    entry: dict[str, Any] = {"file": str(path), "sha256": sha256_file(path)}
    for col, key in _JUDGE_ID_COLUMNS.items():
        if col in columns:
            entry[key] = _unique(path, col)
    meta = read_meta(path)
    if meta:
        entry["meta"] = meta
    usage = path.with_suffix(".usage.json")
    if usage.exists():
        entry["usage_file"] = str(usage)
    return entry


def metric_entry(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    columns = set(pq.read_schema(path).names)
    entry: dict[str, Any] = {"file": str(path), "sha256": sha256_file(path)}
    for col in sorted(c for c in columns if c == "model" or c.startswith("model_")):
        entry[col] = _unique(path, col)
    meta = read_meta(path)
    if meta:
        entry["meta"] = meta
    return entry


def build_manifest(config: dict[str, Any], repo: str | Path, prompts: list[str], judge_files: list[str],
                   metric_files: list[str], dataset_files: list[str],
                   judges_config: dict | list | None = None) -> dict[str, Any]:
    repo = Path(repo)
    judges: dict[str, Any] = {}
    # config `judges`: a mapping name -> settings (or a list of settings with `name`);
    # it names the environment variable of a key, never holds a key
    specs = judges_config.items() if isinstance(judges_config, dict) else \
        [(s.get("name"), s) for s in judges_config or [] if isinstance(s, dict)]
    for name, spec in specs:
        if name:
            judges[name] = {"config": spec, "outputs": {}}
    for p in sorted(judge_files):
        judge, dataset, variant = parse_judge_path(p)
        judges.setdefault(judge, {"config": None, "outputs": {}})["outputs"][f"{dataset}/{variant}"] = judge_entry(p)
    served_keys = ("models", "resolved_models", "response_models", "model_ids")
    for j in judges.values():
        j["served_model_ids"] = sorted({m for o in j["outputs"].values() for k in served_keys for m in o.get(k, [])})
    metrics = {}
    for p in sorted(metric_files):
        family, dataset = parse_metric_path(p)
        metrics[f"{family}/{dataset}"] = metric_entry(p)
    prompt_hashes = {}
    for p in sorted(prompts):
        path = Path(p)
        try:
            key = str(path.resolve().relative_to(repo.resolve()))
        except ValueError:
            key = str(path)
        prompt_hashes[key] = sha256_file(path)
    return {
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "code_version": code_version(repo),
        "package_version": __version__,
        "config": config,
        "config_sha256": config_digest(config),
        "statistics": TableSettings.from_config(config).provenance(),  # seeds, resamples, schemes
        "prompt_templates": prompt_hashes,
        "judges": judges,
        "metrics": metrics,
        "datasets": {Path(p).stem: {"file": p, "sha256": sha256_file(p), "meta": read_meta(p)}
                     for p in sorted(dataset_files)},
    }
