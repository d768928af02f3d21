"""DAE, dependency-arc entailment (Goyal & Durrett 2020), implemented here from
the paper's definition. Read docs/metrics.md ("DAE: what differs") before
quoting a number: the parser is not the original one.

The model: a transformer encoder (ELECTRA-base in the released checkpoints) reads
``[CLS] premise [SEP] hypothesis [SEP]``. For every dependency arc
(relation, head word, child word) of the hypothesis, the arc is represented by

    [ E(child) ; E(head) ; E(relation) ]

where E(word) is the encoder state of the word's last word piece and
E(relation) the [CLS] state of the encoder run on the relation label alone;
a linear layer (``dep_label_classifier``, 3H -> 2) gives p(entailed) as class 1.
Arcs of relations that carry no content are skipped (punct, root, det, case,
aux, auxpass, dep, cop, mark), at most ``max_arcs`` (20) per hypothesis.

A hypothesis is supported iff every arc is entailed (``aggregate: all_arcs``:
its probability is the minimum over arcs); ``aggregate: mean`` uses the mean
arc probability instead (the score the authors' evaluation script prints).
A hypothesis without any arc left has nothing that could be unsupported:
probability 1.

Checkpoint layout read here (that of the authors' release, a transformers
``save_pretrained`` directory): ``config.json`` of the encoder, its tokenizer,
and one weights file (``model.safetensors`` or ``pytorch_model.bin``) holding
the encoder under its base-model prefix (``electra.``) and
``dep_label_classifier.{weight,bias}``.

Parser: the original parses hypotheses with Stanford CoreNLP 3.9.1 (enhanced
dependencies, Java), which no package registry here provides. This module
parses with a spaCy pipeline (config ``metrics.dae.parser``: a package name or
a directory). spaCy's English labels (ClearNLP style) differ from CoreNLP's,
so the relation representations the released classifier saw in training are
not the ones it gets here: the numbers are DAE's architecture and weights on a
different parse, not the original metric.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .loading import (ModelUnavailable, ResolvedModel, encode_pairs, library_versions, load_pretrained, pick_device,
                      longest_first_batches, resolve_model, set_threads, unavailable_message)
from .units import answer_questions, claims_for

CONFIG_KEY = "metrics.dae.model"
PARSER_KEY = "metrics.dae.parser"
IGNORED_RELATIONS = frozenset({"punct", "ROOT", "root", "det", "case", "aux", "auxpass", "dep", "cop", "mark"})
HEAD_PREFIX = "dep_label_classifier."
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
HOW_TO_GET = ("the DAE authors distribute their checkpoints (dae, dae_w_syn, dae_w_syn_w_hallu) "
              "from the link in the README of github.com/tagoyal/dae-factuality, not on the model hub; "
              "unpack one")
PARSER_HOW_TO_GET = ("install a spaCy English pipeline with a dependency parser, e.g. "
                     "`python -m spacy download en_core_web_sm` on a machine with access, or copy "
                     "its directory here")


def load_parser(name: str, config_key: str = PARSER_KEY):
    """A spaCy pipeline with a dependency parser (package name or directory)."""
    import spacy

    try:
        nlp = spacy.load(name, exclude=["ner", "lemmatizer", "textcat"])
    except (OSError, ImportError, ValueError) as err:
        raise ModelUnavailable(unavailable_message(name, config_key, f"spaCy cannot load it ({str(err)[:200]})",
                                                   PARSER_HOW_TO_GET)) from None
    if "parser" not in nlp.pipe_names:
        raise ModelUnavailable(f"spaCy pipeline {name!r} (config key {config_key}) has no dependency parser")
    return nlp


def _weights_file(resolved: ResolvedModel, config_key: str) -> Path:
    if resolved.source == "local":
        for name in WEIGHT_FILES:
            if (Path(resolved.location) / name).exists():
                return Path(resolved.location) / name
        raise ModelUnavailable(f"DAE checkpoint {resolved.location!r} (config key {config_key}) has none of "
                               f"{', '.join(WEIGHT_FILES)}")
    from huggingface_hub import hf_hub_download

    for name in WEIGHT_FILES:
        try:
            return Path(hf_hub_download(resolved.location, name))
        except Exception:  # noqa: BLE001 -- any hub client error (they differ by version): try the next name
            continue
    raise ModelUnavailable(unavailable_message(resolved.configured, config_key, "no weights file", HOW_TO_GET))


def _read_state_dict(path: Path) -> dict:
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(path))
    import torch

    return torch.load(str(path), map_location="cpu", weights_only=True)


class DAE:
    def __init__(self, model: str = "models/dae/dae_w_syn", parser: str = "en_core_web_sm", batch_size: int = 8,
                 max_length: int = 512, max_arcs: int = 20, aggregate: str = "all_arcs", entailed_label: int = 1,
                 device: str = "auto", threads: int | None = None, config_key: str = CONFIG_KEY,
                 parser_key: str = PARSER_KEY):
        if aggregate not in ("all_arcs", "mean"):
            raise ValueError("metrics.dae.aggregate must be 'all_arcs' or 'mean'")
        self.resolved = resolve_model(model, config_key, how_to_get=HOW_TO_GET)
        self.parser_name = parser
        self.nlp = load_parser(parser, parser_key)
        import torch
        from transformers import AutoConfig, AutoModel, AutoTokenizer

        set_threads(threads)
        self.device = pick_device(device)
        self.tokenizer = load_pretrained(AutoTokenizer, self.resolved, config_key)
        config = load_pretrained(AutoConfig, self.resolved, config_key)
        encoder = AutoModel.from_config(config)
        state = _read_state_dict(_weights_file(self.resolved, config_key))
        prefix = f"{encoder.base_model_prefix}."
        enc_state = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
        missing, _ = encoder.load_state_dict(enc_state, strict=False)
        missing = [k for k in missing if not k.endswith("position_ids")]
        if missing or HEAD_PREFIX + "weight" not in state:
            raise ModelUnavailable(
                f"{model!r} (config key {config_key}) is not a DAE checkpoint: "
                + (f"encoder weights missing under '{prefix}' (e.g. {missing[:3]})" if missing
                   else f"no '{HEAD_PREFIX}weight'"))
        hidden = config.hidden_size
        head = torch.nn.Linear(3 * hidden, 2)
        head.load_state_dict({"weight": state[HEAD_PREFIX + "weight"], "bias": state[HEAD_PREFIX + "bias"]})
        self.encoder = encoder.to(self.device).eval()
        self.head = head.to(self.device).eval()
        self.batch_size, self.max_length, self.max_arcs = int(batch_size), int(max_length), int(max_arcs)
        self.aggregate, self.entailed = aggregate, int(entailed_label)
        self._torch = torch
        self._label_cache: dict[str, Any] = {}

    # --- parsing ------------------------------------------------------------
    def arcs(self, hypotheses: list[str]) -> dict[str, tuple[list[str], list[tuple[str, int, int]]]]:
        """Per distinct hypothesis: its words and (relation, child index, head index) arcs."""
        out = {}
        uniq = sorted(set(hypotheses))
        for text, doc in zip(uniq, self.nlp.pipe(uniq, batch_size=64)):
            words = [t.text for t in doc]
            arcs = [(t.dep_, t.i, t.head.i) for t in doc
                    if t.head.i != t.i and t.dep_ not in IGNORED_RELATIONS and not t.is_space
                    and not t.head.is_space][: self.max_arcs]
            out[text] = (words, arcs)
        return out

    def words(self, texts: list[str]) -> dict[str, list[str]]:
        uniq = sorted(set(texts))
        return {t: [tok.text for tok in doc if not tok.is_space]
                for t, doc in zip(uniq, self.nlp.tokenizer.pipe(uniq))}

    # --- model --------------------------------------------------------------
    def _label_vectors(self, labels: list[str]):
        torch = self._torch
        todo = [lab for lab in dict.fromkeys(labels) if lab not in self._label_cache]
        if todo:
            enc = self.tokenizer(todo, padding=True, return_tensors="pt").to(self.device)
            with torch.no_grad():
                cls = self.encoder(**enc).last_hidden_state[:, 0]
            for lab, vec in zip(todo, cls):
                self._label_cache[lab] = vec
        return torch.stack([self._label_cache[lab] for lab in labels])

    def arc_probs(self, premise_words: list[list[str]], parses: list[tuple[list[str], list]]) -> list[np.ndarray]:
        """p(entailed) of every arc of each hypothesis given its premise (one batch)."""
        torch = self._torch
        enc = encode_pairs(self.tokenizer, premise_words, [p[0] for p in parses], self.max_length,
                           is_split_into_words=True, padding=True, return_tensors="pt")
        rows, child_pos, head_pos, labels, owner = [], [], [], [], []
        for b, (_, arcs) in enumerate(parses):
            last_piece = {}
            seq = enc.sequence_ids(b)
            for pos, word in enumerate(enc.word_ids(b)):
                if word is not None and seq[pos] == 1:
                    last_piece[word] = pos
            for rel, child, head in arcs:
                if child in last_piece and head in last_piece:
                    rows.append(b)
                    child_pos.append(last_piece[child])
                    head_pos.append(last_piece[head])
                    labels.append(rel)
                    owner.append(b)
        result = [np.zeros(0) for _ in parses]
        if not rows:
            return result
        with torch.no_grad():
            hidden = self.encoder(**{k: v.to(self.device) for k, v in enc.items()}).last_hidden_state
            r = torch.tensor(rows, device=self.device)
            feats = torch.cat([hidden[r, torch.tensor(child_pos, device=self.device)],
                               hidden[r, torch.tensor(head_pos, device=self.device)],
                               self._label_vectors(labels)], dim=-1)
            probs = torch.softmax(self.head(feats).float(), dim=-1)[:, self.entailed].cpu().numpy()
        owner = np.asarray(owner)
        return [probs[owner == b] for b in range(len(parses))]

    def prob_supported(self, premises: list[str], hypotheses: list[str], progress: bool = True) -> np.ndarray:
        parses = self.arcs(hypotheses)
        prem_words = self.words(premises)
        out = np.ones(len(premises), dtype=float)
        for idx in longest_first_batches([len(p) for p in premises], self.batch_size, "DAE", progress):
            per_arc = self.arc_probs([prem_words[premises[i]] or ["."] for i in idx],
                                     [parses[hypotheses[i]] for i in idx])
            for i, probs in zip(idx, per_arc):
                if len(probs):
                    out[i] = probs.min() if self.aggregate == "all_arcs" else probs.mean()
        return out

    def provenance(self) -> dict[str, Any]:
        import spacy

        meta = getattr(self.nlp, "meta", {}) or {}
        return {"metric": "dae", **self.resolved.provenance(), "parser": self.parser_name,
                "parser_pipeline": f"{meta.get('lang', '?')}_{meta.get('name', '?')} {meta.get('version', '?')}",
                "original_parser": "Stanford CoreNLP 3.9.1 enhanced dependencies (not used here)",
                "ignored_relations": sorted(IGNORED_RELATIONS), "max_arcs": self.max_arcs,
                "aggregate": self.aggregate, "entailed_label": self.entailed, "device": self.device,
                "batch_size": self.batch_size, "max_length": self.max_length,
                "implementation": "sumjudge (from the paper)",
                "libraries": {**library_versions("spacy"), "spacy": spacy.__version__}}


def model_label(model: str, parser: str) -> str:
    return f"{model} (parser: {parser})"


def score_dataset(df: pd.DataFrame, dataset: str, scorer: DAE, realsumm_premise: str = "sentence",
                  threshold: float = 0.5, progress: bool = True) -> pd.DataFrame:
    """REALSumm: ``unit_id``, ``scu_pred``, ``scu_prob``; QAGS: ``unit_id``, ``pred``, ``prob``;
    + ``model`` and ``parser``. ``model`` names the parser too (``<checkpoint> (parser: <parser>)``):
    even the authors' checkpoint is not the original DAE on a spaCy parse, and the tables
    label a row whose model is not the paper's."""
    claims = claims_for(df, dataset, realsumm_premise)
    prob = scorer.prob_supported(claims.premises, claims.claims, progress)
    out = answer_questions(df, dataset, claims, prob, threshold)
    out["model"] = model_label(scorer.resolved.configured, scorer.parser_name)
    out["parser"] = scorer.parser_name
    return out


def job(settings: dict[str, Any], device: str, threads: int, part: str | None = None):
    """Rule ``metric`` (:mod:`sumjudge.metrics.learned`): the arc classifier and spaCy parser
    from ``metrics.dae``, its score function ``(df, spec) -> table`` (premise and threshold
    from the settings) and its provenance."""
    scorer = DAE(model=settings["model"], parser=settings["parser"], batch_size=settings["batch_size"],
                 max_length=settings["max_length"], max_arcs=settings["max_arcs"], aggregate=settings["aggregate"],
                 device=device, threads=threads)
    premise, threshold = settings["realsumm_premise"], settings["threshold"]
    return (scorer, lambda df, spec: score_dataset(df, spec, scorer, premise, threshold),
            lambda: {**scorer.provenance(), "realsumm_premise": premise, "threshold": threshold})
