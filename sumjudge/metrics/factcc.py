"""FactCC (Kryscinski et al. 2020): a BERT classifier of (premise, claim) pairs into
CORRECT (the claim is supported by the premise) or INCORRECT.

Default checkpoint: ``manueldeprada/FactCC``, the authors' released weights in
transformers format (labels ``CORRECT``/``INCORRECT``). Inputs are
``[CLS] premise [SEP] claim [SEP]``, the premise truncated so the pair fits in
``max_length`` (512) tokens. How its decisions answer the REALSumm and QAGS
questions: :func:`sumjudge.metrics.units.claims_for` / ``answer_questions``.
"""
from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pandas as pd

from .loading import encode_pairs, library_versions, longest_first_batches, load_pretrained, pick_device, resolve_model, set_threads
from .units import answer_questions, claims_for

CONFIG_KEY = "metrics.factcc.model"
_SUPPORTED_NAMES = ("correct", "consistent", "entailment", "entailed", "supported", "factual")

log = logging.getLogger(__name__)


def supported_index(id2label: dict, configured: int | None = None) -> int:
    """Which output class means "supported": the configured index, else the label named
    CORRECT (or consistent/entailment/...), else 0 (FactCC's order: CORRECT first)."""
    if configured is not None:
        return int(configured)
    for idx, name in sorted((int(k), str(v).lower()) for k, v in (id2label or {}).items()):
        if name in _SUPPORTED_NAMES:
            return idx
    log.warning("no label named CORRECT in %s; taking class 0 as 'supported' (FactCC's order)", id2label)
    return 0


class FactCC:
    def __init__(self, model: str = "manueldeprada/FactCC", batch_size: int = 16, max_length: int = 512,
                 supported_label: int | None = None, device: str = "auto", threads: int | None = None,
                 config_key: str = CONFIG_KEY):
        self.resolved = resolve_model(model, config_key)
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        set_threads(threads)
        self.device = pick_device(device)
        self.tokenizer = load_pretrained(AutoTokenizer, self.resolved, config_key)
        self.model = load_pretrained(AutoModelForSequenceClassification, self.resolved,
                                     config_key).to(self.device).eval()
        self.supported = supported_index(self.model.config.id2label, supported_label)
        self.batch_size, self.max_length = int(batch_size), int(max_length)
        self._torch = torch

    def prob_supported(self, premises: list[str], claims: list[str], progress: bool = True) -> np.ndarray:
        torch = self._torch
        out = np.zeros(len(premises), dtype=float)
        for idx in longest_first_batches([len(p) for p in premises], self.batch_size, "FactCC", progress):
            enc = encode_pairs(self.tokenizer, [premises[i] for i in idx], [claims[i] for i in idx],
                               self.max_length, padding=True, return_tensors="pt")
            enc = {k: v.to(self.device) for k, v in enc.items()}
            with torch.no_grad():
                logits = self.model(**enc).logits.float()
            out[idx] = torch.softmax(logits, dim=-1)[:, self.supported].cpu().numpy()
        return out

    def provenance(self) -> dict[str, Any]:
        return {"metric": "factcc", **self.resolved.provenance(), "device": self.device,
                "batch_size": self.batch_size, "max_length": self.max_length,
                "supported_label": self.supported, "id2label": dict(self.model.config.id2label),
                "libraries": library_versions()}


def score_dataset(df: pd.DataFrame, dataset: str, scorer: FactCC, realsumm_premise: str = "sentence",
                  threshold: float = 0.5, progress: bool = True) -> pd.DataFrame:
    """REALSumm: ``unit_id``, ``scu_pred``, ``scu_prob``; QAGS: ``unit_id``, ``pred``, ``prob``; + ``model``."""
    claims = claims_for(df, dataset, realsumm_premise)
    prob = scorer.prob_supported(claims.premises, claims.claims, progress)
    out = answer_questions(df, dataset, claims, prob, threshold)
    out["model"] = scorer.resolved.configured
    return out


def job(settings: dict[str, Any], device: str, threads: int, part: str | None = None):
    """Rule ``metric`` (:mod:`sumjudge.metrics.learned`): the classifier from ``metrics.factcc``,
    its score function ``(df, spec) -> table`` (premise and threshold from the settings) and
    its provenance."""
    scorer = FactCC(model=settings["model"], batch_size=settings["batch_size"], max_length=settings["max_length"],
                    device=device, threads=threads)
    premise, threshold = settings["realsumm_premise"], settings["threshold"]
    return (scorer, lambda df, spec: score_dataset(df, spec, scorer, premise, threshold),
            lambda: {**scorer.provenance(), "realsumm_premise": premise, "threshold": threshold})
