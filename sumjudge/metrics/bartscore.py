"""BARTScore (Yuan et al. 2021), implemented here from the paper's definition.

BARTScore of a target y given a source x under a seq2seq model is the mean
log-likelihood of y's tokens:

    BARTScore(x -> y) = (1/|y|) * sum_t log p(y_t | y_<t, x)

with uniform token weights; y is the target as the tokenizer encodes it (BART:
``<s> ... </s>``), x is truncated to ``max_length`` tokens (1024 for BART).
The paper's three directions:

- ``s_h``  source -> hypothesis  (faithfulness),   x = article, y = summary
- ``r_h``  reference -> hypothesis (precision),    x = reference, y = summary
- ``h_r``  hypothesis -> reference (recall),       x = summary, y = reference

each with ``facebook/bart-large`` (columns ``bartscore_*``) and
``facebook/bart-large-cnn`` (``bartscore_cnn_*``). A unit with several references
(SummEval) gets the mean over references. Scores are <= 0; higher is better.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .loading import library_versions, load_pretrained, longest_first_batches, pick_device, resolve_model, set_threads
from .units import assemble, mean_over_references, sides_for

DIRECTIONS = ("s_h", "h_r", "r_h")
CHECKPOINTS = {"bart": "bartscore_", "bart_cnn": "bartscore_cnn_"}   # config key -> column prefix


class BARTScore:
    def __init__(self, model: str = "facebook/bart-large", config_key: str = "metrics.bartscore.models.bart",
                 batch_size: int = 4, max_length: int = 1024, device: str = "auto", threads: int | None = None):
        self.resolved = resolve_model(model, config_key)
        import torch
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        set_threads(threads)
        self.device = pick_device(device)
        self.tokenizer = load_pretrained(AutoTokenizer, self.resolved, config_key)
        self.model = load_pretrained(AutoModelForSeq2SeqLM, self.resolved, config_key).to(self.device).eval()
        self.batch_size, self.max_length = int(batch_size), int(max_length)
        self._torch = torch

    def score(self, sources: list[str], targets: list[str], progress: bool = True, desc: str = "") -> np.ndarray:
        """Mean target-token log-likelihood of each (source, target) pair."""
        torch = self._torch
        out = np.zeros(len(sources), dtype=float)
        sizes = [len(s) + len(t) for s, t in zip(sources, targets)]
        for idx in longest_first_batches(sizes, self.batch_size, f"BARTScore {desc}".strip(), progress):
            src = self.tokenizer([sources[i] for i in idx], max_length=self.max_length, truncation=True,
                                 padding=True, return_tensors="pt")
            tgt = self.tokenizer([targets[i] for i in idx], max_length=self.max_length, truncation=True,
                                 padding=True, return_tensors="pt")
            labels = tgt["input_ids"].clone()
            mask = tgt["attention_mask"].bool()
            labels[~mask] = -100
            with torch.no_grad():
                logits = self.model(input_ids=src["input_ids"].to(self.device),
                                    attention_mask=src["attention_mask"].to(self.device),
                                    labels=labels.to(self.device)).logits.float()
            logp = torch.log_softmax(logits, dim=-1)
            gold = tgt["input_ids"].to(self.device).unsqueeze(-1)
            token_logp = logp.gather(-1, gold).squeeze(-1) * mask.to(self.device)
            mean = token_logp.sum(-1) / mask.to(self.device).sum(-1).clamp(min=1)
            out[idx] = mean.cpu().numpy()
        return out

    def provenance(self) -> dict[str, Any]:
        return {**self.resolved.provenance(), "device": self.device, "batch_size": self.batch_size,
                "max_length": self.max_length}


def score_checkpoint(df: pd.DataFrame, dataset: str, scorer: BARTScore, prefix: str,
                     progress: bool = True) -> pd.DataFrame:
    """``unit_id`` + ``{prefix}s_h``, ``{prefix}h_r``, ``{prefix}r_h`` (TLDR: ``_0``/``_1``)."""
    columns = {}
    for side in sides_for(df, dataset):
        columns[f"{prefix}s_h{side.suffix}"] = scorer.score(side.sources, side.hypotheses, progress,
                                                            desc=f"s_h{side.suffix}")
        # r_h: reference -> hypothesis; h_r: hypothesis -> reference (mean over references)
        columns[f"{prefix}r_h{side.suffix}"] = mean_over_references(
            side, lambda h, r: scorer.score(r, h, progress, desc=f"r_h{side.suffix}"))
        columns[f"{prefix}h_r{side.suffix}"] = mean_over_references(
            side, lambda h, r: scorer.score(h, r, progress, desc=f"h_r{side.suffix}"))
    return pd.DataFrame({"unit_id": df["unit_id"].to_numpy(), **columns})


def merge_checkpoints(df: pd.DataFrame, dataset: str, parts: dict[str, pd.DataFrame],
                      models: dict[str, str]) -> pd.DataFrame:
    """Join the per-checkpoint tables into the ``bartscore`` table, in ``df``'s row order:
    six score columns (TLDR: twelve plus six ``_choice``), ``model_bart``,
    ``model_bart_cnn`` and ``model`` (both, ``bart=...; bart_cnn=...``)."""
    columns = {}
    for key in CHECKPOINTS:
        part = parts[key].set_index("unit_id").reindex(df["unit_id"])
        if part.isna().all(axis=1).any():
            missing = part.index[part.isna().all(axis=1)][:3].tolist()
            raise ValueError(f"BARTScore part {key!r} lacks units, e.g. {missing}")
        for col in part.columns:
            if col.startswith(CHECKPOINTS[key]) and (key == "bart_cnn" or not col.startswith("bartscore_cnn_")):
                columns[col] = part[col].to_numpy()
    out = assemble(df, dataset, columns)
    for key in CHECKPOINTS:
        out[f"model_{key}"] = models[key]
    out["model"] = "; ".join(f"{k}={models[k]}" for k in CHECKPOINTS)
    return out


def bartscore_provenance(scorer: BARTScore, key: str) -> dict[str, Any]:
    return {"metric": "bartscore", "checkpoint": key, "column_prefix": CHECKPOINTS[key],
            **scorer.provenance(), "definition": "mean token log-likelihood of the target",
            "directions": {"s_h": "article -> summary", "r_h": "reference -> summary",
                           "h_r": "summary -> reference"},
            "references": "mean over references", "implementation": "sumjudge (from the paper)",
            "libraries": library_versions()}


def job(settings: dict[str, Any], device: str, threads: int, part: str | None = None):
    """Rule ``metric`` (:mod:`sumjudge.metrics.learned`): one checkpoint ``part`` (``bart`` or
    ``bart_cnn``, ``metrics.bartscore.models.<part>``): its scorer, its three directions
    ``(df, spec) -> table`` and its provenance; rule ``metric_bartscore`` joins the two."""
    scorer = BARTScore(model=settings["models"][part], config_key=f"metrics.bartscore.models.{part}",
                       batch_size=settings["batch_size"], max_length=settings["max_length"], device=device,
                       threads=threads)
    return (scorer, lambda df, spec: score_checkpoint(df, spec, scorer, CHECKPOINTS[part]),
            lambda: bartscore_provenance(scorer, part))
