"""Before any work: the manual steps the learned metrics about to run still need.

:func:`manual_steps` asks, for every metric with a job about to run, whether each of its
models can be had here (:func:`sumjudge.metrics.loading.resolve_model`: a local
directory, the hub cache, or the hub when it is reachable) and whether DAE's spaCy
pipeline is installed. It is the learned metrics' part of the workflow's one preflight
(:mod:`sumjudge.preflight`, which lists every step in one message). Nothing is
downloaded or loaded.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Iterable, Mapping

from sumjudge.metrics.loading import ModelUnavailable, resolve_model

# metric -> [(config key under metrics.<metric>, files the model directory must hold)]
MODEL_KEYS = {
    "bertscore": [("model", ("config.json",))],
    "moverscore": [("model", ("config.json",))],
    "bartscore": [("models.bart", ("config.json",)), ("models.bart_cnn", ("config.json",))],
    "factcc": [("model", ("config.json",))],
    "dae": [("model", ())],
}


def _get(section: Mapping, dotted: str):
    for part in dotted.split("."):
        section = section[part]
    return section


def spacy_pipeline_installed(name: str) -> bool:
    """A spaCy pipeline given as a package name (importable) or a directory (on disk)."""
    return Path(name).expanduser().is_dir() or importlib.util.find_spec(name) is not None


def manual_steps(metrics: Mapping, pending: Iterable[str]) -> list[str]:
    """One line per missing model or parser of the metrics in ``pending`` (names from
    ``metrics.run`` whose outputs are not all built)."""
    steps = []
    for metric in pending:
        cfg = metrics[metric]
        for key, files in MODEL_KEYS.get(metric, []):
            config_key = f"metrics.{metric}.{key}"
            how = None
            if metric == "dae":
                from sumjudge.metrics.dae import HOW_TO_GET as how
            try:
                resolve_model(str(_get(cfg, key)), config_key, files=files, how_to_get=how)
            except ModelUnavailable as err:
                steps.append(f"{metric}: {err}")
        if metric == "dae" and not spacy_pipeline_installed(str(cfg["parser"])):
            steps.append(f"dae: spaCy pipeline {cfg['parser']!r} (config key metrics.dae.parser) is not installed: "
                         f"`.venv/bin/python -m spacy download {cfg['parser']}` on a machine with access, "
                         "or point metrics.dae.parser at its unpacked directory")
    return steps
