"""Small stand-in models for the metric tests, built once per test session (about 15 s)
into a temporary folder by :mod:`sumjudge.metrics.tiny`."""
from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import torch

# the models are tiny: one thread is as fast, and much faster when other jobs share the cores
torch.set_num_threads(1)


@lru_cache(maxsize=None)
def tiny_models() -> dict[str, Path]:
    from sumjudge.metrics.tiny import build_all

    root = Path(tempfile.mkdtemp(prefix="sumjudge-tiny-models-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return build_all(root)


def local_metrics_config(models: dict[str, Path], datasets: dict[str, list[str]] | None = None) -> dict:
    """The `metrics` config block pointing every metric at the stand-ins."""
    ds = datasets or {}
    ref = ["summeval", "newsroom", "tldr"]
    fact = ["realsumm", "qags_cnn", "qags_xsum"]
    return {
        "run": ["bertscore", "moverscore", "bartscore", "factcc", "dae"],
        "device": "cpu",
        "bertscore": {"model": str(models["minilm"]), "num_layers": None, "idf": False, "batch_size": 32,
                      "datasets": ds.get("bertscore", ref)},
        "moverscore": {"model": str(models["minilm"]), "n_gram": 1, "batch_size": 32,
                       "datasets": ds.get("moverscore", ref)},
        "bartscore": {"models": {"bart": str(models["bart"]), "bart_cnn": str(models["bart_cnn"])},
                      "batch_size": 8, "max_length": 512, "datasets": ds.get("bartscore", ref)},
        "factcc": {"model": str(models["factcc"]), "batch_size": 32, "max_length": 512,
                   "realsumm_premise": "sentence", "threshold": 0.5, "datasets": ds.get("factcc", fact)},
        "dae": {"model": str(models["dae"]), "parser": str(models["spacy_parser"]), "batch_size": 8,
                "max_length": 512, "max_arcs": 20, "aggregate": "all_arcs", "realsumm_premise": "sentence",
                "threshold": 0.5, "datasets": ds.get("dae", fact)},
    }
