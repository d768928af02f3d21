"""The learned metrics (issue 4) as one registry, for the one rule ``metric``
(workflow/rules/metrics.smk, ``scripts/metric.py``).

Each :class:`LearnedMetric` is one value of the rule's ``{metric}`` wildcard, so one
output ``results/metrics/<name>/<dataset>.parquet`` per dataset: BERTScore, MoverScore,
FactCC, DAE, and BARTScore's two checkpoints (``bartscore/bart``, ``bartscore/bart_cnn``;
rule ``metric_bartscore`` joins them into ``results/metrics/bartscore/<dataset>.parquet``).
What differs between them lives in their modules: each has ``job(settings, device,
threads, part)`` returning its scorer (built first, so a missing model stops the job
within seconds), its score function ``(df, spec) -> table`` and its provenance.

This module imports all five, so the rule's ``code`` param (sumjudge/share/code.py)
covers all five: an edit to one learned metric reruns every learned-metric job
(docs/sharing.md). ROUGE (its own rule) does not import it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pandas as pd

from .. import datasets as _ds
from ..io import write_parquet
from . import bartscore, bertscore, dae, factcc, moverscore


@dataclass(frozen=True)
class LearnedMetric:
    name: str             # the {metric} wildcard: results/metrics/<name>/<dataset>.parquet
    module: ModuleType    # its scorer and score function (``job``)
    family: str           # the datasets it scores: DatasetSpec.metric_families
    part: str | None = None  # BARTScore: the checkpoint (metrics.bartscore.models.<part>)

    @property
    def settings_key(self) -> str:
        """Its config section, ``metrics.<key>``."""
        return self.module.__name__.rpartition(".")[2]

    def job(self, settings: dict[str, Any], device: str, threads: int):
        """(scorer, score(df, spec) -> table, provenance() -> dict) from ``metrics.<key>``."""
        return self.module.job(settings, device, threads, self.part)


LEARNED: dict[str, LearnedMetric] = {m.name: m for m in (
    LearnedMetric("bertscore", bertscore, "reference"),
    LearnedMetric("moverscore", moverscore, "reference"),
    LearnedMetric("bartscore/bart", bartscore, "reference", part="bart"),
    LearnedMetric("bartscore/bart_cnn", bartscore, "reference", part="bart_cnn"),
    LearnedMetric("factcc", factcc, "factuality"),
    LearnedMetric("dae", dae, "factuality"),
)}


def get(name: str) -> LearnedMetric:
    try:
        return LEARNED[name]
    except KeyError:
        raise KeyError(f"unknown learned metric {name!r}; known: {', '.join(LEARNED)}") from None


def scored_dataset(metric: str, spec: "_ds.DatasetSpec") -> str:
    """The dataset's name when ``metric`` scores it (its family is among the dataset's
    ``metric_families``); a clear error for a target such as
    results/metrics/factcc/summeval.parquet."""
    m = get(metric)
    if m.family not in spec.metric_families:
        raise ValueError(f"results/metrics/{metric}/{spec.name}.parquet: {metric} scores datasets with "
                         f"{m.family} metrics; {spec.name} has {', '.join(spec.metric_families) or 'none'}")
    return spec.name


def score_file(make_job: Callable[[], tuple], data: str | Path, output: str | Path, dataset: str,
               config: dict[str, Any], log: logging.Logger) -> pd.DataFrame:
    """Build the scorer (a missing model raises ``ModelUnavailable`` before any data is
    read), score ``data`` with the dataset's spec (looked up once with ``config``: a user's
    dataset from ``custom_datasets``), write ``output`` atomically with its provenance."""
    spec = _ds.get(dataset, config)
    scorer, score, provenance = make_job()
    df = pd.read_parquet(data)
    log.info("%s: scoring %d units with %s on %s", dataset, len(df), scorer.resolved.configured, scorer.device)
    out = score(df, spec)
    write_parquet(out, output, {"dataset": dataset, **provenance()})
    log.info("%s: wrote %s (%d rows; columns %s)", dataset, output, len(out), list(out.columns))
    return out
