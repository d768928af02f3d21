"""BERTScore F1 (Zhang et al. 2020) with PyPI's ``bert-score``.

Default model: bert-score's default for English, ``roberta-large`` with the
representation of layer 17, no IDF weighting, no baseline rescaling (rescaling
is a fixed affine map per model, so it changes no rank correlation nor pairwise
choice). A unit with several references gets the *mean* F1 over its references
(bert-score's own multi-reference mode would take the maximum).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .loading import ModelUnavailable, library_versions, pick_device, resolve_model, set_threads
from .units import assemble, mean_over_references, sides_for

CONFIG_KEY = "metrics.bertscore.model"
COLUMN = "bertscore"


def default_layer(model: str, resolved_location: str) -> int:
    """bert-score's layer for a known model; else the model's last layer."""
    from bert_score.utils import model2layers
    from transformers import AutoConfig

    if model in model2layers:
        return model2layers[model]
    config = AutoConfig.from_pretrained(resolved_location)
    return int(getattr(config, "num_hidden_layers", getattr(config, "n_layers", 0)))


def _bert_score_safe(location: str) -> str:
    """bert-score picks the model class from the *name*: any path containing "t5" loads
    as T5, one starting with "scibert" as SciBERT. A local directory whose path happens to
    contain those is reached through a symlink whose name cannot (hex digits only)."""
    if "t5" not in location and not location.startswith("scibert"):
        return location
    if not Path(location).is_dir():
        return location  # a hub id: bert-score's naming rules are meant for those
    import hashlib
    import tempfile

    link = Path(tempfile.gettempdir()) / f"bertscore-{hashlib.sha1(location.encode()).hexdigest()}"
    if "t5" in str(link):
        return location
    if not link.exists():
        try:
            link.symlink_to(Path(location).resolve(), target_is_directory=True)
        except FileExistsError:
            pass
    return str(link)


class BERTScore:
    def __init__(self, model: str = "roberta-large", num_layers: int | None = None, idf: bool = False,
                 batch_size: int = 32, device: str = "auto", threads: int | None = None,
                 config_key: str = CONFIG_KEY):
        self.resolved = resolve_model(model, config_key)
        set_threads(threads)
        self.device = pick_device(device)
        self.num_layers = int(num_layers) if num_layers is not None else default_layer(model, self.resolved.location)
        self.idf = bool(idf)
        self.batch_size = int(batch_size)
        from bert_score import BERTScorer

        try:
            self.scorer = BERTScorer(model_type=_bert_score_safe(self.resolved.location), num_layers=self.num_layers,
                                     idf=False, batch_size=self.batch_size, device=self.device, lang="en")
        except (OSError, ValueError) as err:
            raise ModelUnavailable(f"model {model!r} (config key {config_key}) could not be loaded: "
                                   f"{str(err)[:300]}") from None
        self.prefix_space_fixed = self._restore_prefix_space()

    def _restore_prefix_space(self) -> bool:
        """bert-score 0.3.13 asks RoBERTa/GPT-2 tokenizers for ``add_prefix_space=True`` per
        call; transformers 5 ignores that per-call flag, so the first word would be encoded
        without its leading space (unlike bert-score under transformers 4). Load the
        tokenizer with the flag set once instead."""
        from bert_score.utils import GPT2Tokenizer, RobertaTokenizer
        from transformers import AutoTokenizer

        tok = self.scorer._tokenizer
        if not isinstance(tok, (GPT2Tokenizer, RobertaTokenizer)):
            return False
        if tok.convert_ids_to_tokens(tok.encode("word", add_special_tokens=False))[0].startswith("\u0120"):
            return False
        self.scorer._tokenizer = AutoTokenizer.from_pretrained(self.resolved.location, add_prefix_space=True)
        return True

    def f1(self, hypotheses: list[str], references: list[str], progress: bool = True) -> np.ndarray:
        """F1 of each (hypothesis, reference) pair."""
        if not hypotheses:
            return np.zeros(0)
        if self.idf:
            self.scorer.compute_idf(references)
        _, _, f1 = self.scorer.score(hypotheses, references, verbose=progress, batch_size=self.batch_size)
        return f1.cpu().numpy().astype(float)

    def provenance(self) -> dict[str, Any]:
        return {"metric": "bertscore", **self.resolved.provenance(), "num_layers": self.num_layers,
                "idf": self.idf, "rescale_with_baseline": False, "device": self.device,
                "prefix_space_fixed": self.prefix_space_fixed,
                "batch_size": self.batch_size, "references": "mean F1 over references",
                "libraries": library_versions("bert-score")}


def score_dataset(df: pd.DataFrame, dataset: str, scorer: BERTScore, progress: bool = True) -> pd.DataFrame:
    """``unit_id``, ``bertscore`` (TLDR: ``bertscore_0``/``_1``/``_choice``), ``model``."""
    columns = {}
    for side in sides_for(df, dataset):
        columns[COLUMN + side.suffix] = mean_over_references(
            side, lambda h, r: scorer.f1(h, r, progress=progress))
    out = assemble(df, dataset, columns)
    out["model"] = scorer.resolved.configured
    return out


def job(settings: dict[str, Any], device: str, threads: int, part: str | None = None):
    """Rule ``metric`` (:mod:`sumjudge.metrics.learned`): the scorer from ``metrics.bertscore``,
    its score function ``(df, spec) -> table`` and its provenance."""
    scorer = BERTScore(model=settings["model"], num_layers=settings["num_layers"], idf=settings["idf"],
                       batch_size=settings["batch_size"], device=device, threads=threads)
    return scorer, lambda df, spec: score_dataset(df, spec, scorer), scorer.provenance
