"""Before any work: the manual steps the learned metrics in ``metrics.run`` still need.

A default run should never start jobs that can only fail. :func:`manual_steps` asks, for
every metric whose outputs are not built yet, whether each of its models can be had
here (:func:`sumjudge.metrics.loading.resolve_model`: a local directory, the hub cache,
or the hub when it is reachable) and whether DAE's spaCy pipeline is installed. The
workflow calls it while it parses and stops with one message listing every step
(:func:`report`), or with nothing when all is there. Nothing is downloaded or loaded.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Iterable, Mapping

from sumjudge.metrics.loading import ModelUnavailable, resolve_model

# Snakemake invocations that build nothing: the check would only stand in their way
# (`--unlock` after a crash, `--lint`, `--report`, `--summary`, `--touch`, the graphs, ...).
NOT_BUILDING = frozenset({
    "--lint", "--unlock", "--report", "--summary", "-S", "--detailed-summary", "-D", "--list-rules", "-l",
    "--list", "--touch", "-t", "--cleanup-metadata", "--cm", "--list-changes", "--lc", "--list-input-changes",
    "--li", "--list-params-changes", "--lp", "--list-code-changes", "--dag", "--rulegraph", "--filegraph",
    "--archive", "--containerize", "--list-target-rules", "--lt", "--delete-all-output", "--delete-temp-output",
    "--cleanup-shadow", "--print-compilation", "--export-cwl", "--generate-unit-tests", "--conda-create-envs-only",
    "--list-conda-envs", "--conda-cleanup-envs"})


def applies(argv: Iterable[str], main_process: bool = True) -> bool:
    """Whether this Snakemake invocation should be checked: the main process of a run or a
    dry run (``-n`` is checked: it should not list jobs that can only fail), not a job's
    own process on a cluster node, nor a command that builds nothing."""
    return main_process and not any(a.split("=", 1)[0] in NOT_BUILDING for a in argv)


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


def report(steps: list[str], run: list[str]) -> str:
    """The one message that stops the workflow before any job starts."""
    keep = [m for m in run if not any(s.startswith(f"{m}:") for s in steps)]
    return ("the learned metrics in metrics.run need these manual steps before any job can succeed "
            "(nothing has run):\n" + "\n".join(f"  {i}. {s}" for i, s in enumerate(steps, 1))
            + "\nor leave those metrics out for this run: "
            + f"--config 'metrics={{run: [{', '.join(keep)}]}}' (docs/metrics.md, README 'What each paper row needs')")
