"""Prompt families (config ``judge.prompt_families``; docs/robustness.md).

A family is a named set of templates for one dataset's protocol: every ``*.txt`` file of
its folder is one template (its name: the file's stem), so a template is one judge job's
input and editing it reruns that template's units only. A template may ask on another
scale than the dataset's (``scales``: ``{template: [1, 10]}``); its scores are parsed on
that scale and mapped back linearly to the dataset's. ``design``: each template scores
a stratified subset of documents (:mod:`.design`), or ``null``: every document (the full
grid).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import datasets as _ds
from .assignment import assign

# Documents a template of a subset design should score at least: the stand-in's templates scored
# 21 at 2.5x on 100 documents, where a typical quantile came within 0.02 of the full grid's; on
# the embedded judge's 10 documents (2-3 a template) the quantiles were 0.07-0.14 off
# (docs/robustness.md, "How many requests 0.02 takes").
MIN_TEMPLATE_DOCUMENTS = 20


def thin_design_note(fewest: int) -> str:
    """What to tell a user whose subset design gives a template ``fewest`` documents ("" when
    enough): the rule's page and log and the plan say it."""
    if fewest >= MIN_TEMPLATE_DOCUMENTS:
        return ""
    return (f"its subset design gives a template {fewest} document(s), fewer than {MIN_TEMPLATE_DOCUMENTS}, so its "
            "quantiles can be far from the full grid's (0.07-0.14 on 10 documents with the embedded judge; "
            "docs/robustness.md, \"How many requests 0.02 takes\"); score every template on every document "
            "(design: null) or more documents")


@dataclass(frozen=True)
class Family:
    name: str
    dataset: str
    folder: str
    templates: tuple[str, ...]
    scales: dict[str, tuple[float, float]] = field(default_factory=dict)
    per_document: float | None = 2.5   # the design's prompts per document (2.5: 2 and 3 alternately); None: the full grid
    seed: int = 0

    def to_params(self) -> dict[str, Any]:
        """Plain values for a rule's params (what Snakemake compares); :meth:`from_params` reads them."""
        return {"name": self.name, "dataset": self.dataset, "folder": self.folder, "templates": list(self.templates),
                "scales": {t: list(s) for t, s in self.scales.items()}, "per_document": self.per_document,
                "seed": self.seed}

    @classmethod
    def from_params(cls, p: dict[str, Any]) -> "Family":
        return cls(p["name"], p["dataset"], p["folder"], tuple(p["templates"]),
                   {t: tuple(s) for t, s in p["scales"].items()}, p["per_document"], p["seed"])

    def template_path(self, template: str) -> str:
        return str(Path(self.folder) / f"{template}.txt")

    def spec(self, template: str) -> _ds.DatasetSpec:
        """The dataset's spec, on the template's scale when it asks on its own."""
        spec = _ds.get(self.dataset)
        return dataclasses.replace(spec, scale=self.scales[template]) if template in self.scales else spec

    def assignment(self, table: pd.DataFrame) -> tuple[pd.Index, np.ndarray]:
        """(the table's documents, sorted; the ``templates x documents`` mask of which template
        scores which): every cell (full grid), or the design's, stratified by the article's
        length (known before any request)."""
        spec = _ds.get(self.dataset)
        docs = table.groupby(spec.doc_column, sort=True)[spec.article_column].first()
        if self.per_document is None:
            return docs.index, np.ones((len(self.templates), len(docs)), dtype=bool)
        return docs.index, assign(len(docs), len(self.templates), self.per_document, docs.str.len().to_numpy(),
                                  self.seed)

    def documents(self, table: pd.DataFrame, template: str) -> list:
        """The documents ``template`` scores (:meth:`assignment`)."""
        docs, mask = self.assignment(table)
        return docs[mask[self.templates.index(template)]].tolist()

    def requests_ratio(self) -> float:
        """Requests of the family over those of one prompt on every unit."""
        return float(len(self.templates) if self.per_document is None else self.per_document)


def folder(path: str, workflow_dir: str) -> str:
    """A family's folder: absolute as given, else under the workflow's directory, relative
    to the working directory (as judge.prompt_dir's default)."""
    return path if os.path.isabs(path) else os.path.relpath(Path(workflow_dir) / path)


def families(judge_cfg: dict[str, Any], workflow_dir: str = ".") -> dict[str, Family]:
    """Every family of ``judge.prompt_families``, with the templates found in its folder."""
    out = {}
    for name, cfg in (judge_cfg.get("prompt_families") or {}).items():
        where = folder(cfg["dir"], workflow_dir)
        templates = tuple(sorted(p.stem for p in Path(where).glob("*.txt")))
        if len(templates) < 2:
            raise ValueError(f"judge.prompt_families.{name}: {where} holds {len(templates)} template(s) (*.txt); "
                             "a family needs at least two")
        scales = {t: tuple(s) for t, s in (cfg.get("scales") or {}).items()}
        unknown = sorted(set(scales) - set(templates))
        if unknown:
            raise ValueError(f"judge.prompt_families.{name}.scales names no template of {where}: {', '.join(unknown)}")
        design = cfg.get("design")
        out[name] = Family(name, cfg["dataset"], where, templates, scales,
                           None if design is None else _whole(float(design.get("prompts_per_document", 2.5))),
                           int((design or {}).get("seed", 0)))
    return out


def _whole(k: float) -> float | int:
    """2.0 as 2 (the design's label reads "2 prompts per document"), 2.5 as it is."""
    return int(k) if k == int(k) else k


def to_scale(scores, source: tuple[float, float], target: tuple[float, float]) -> np.ndarray:
    """Scores on ``source`` mapped linearly onto ``target`` (1-10 onto 1-5: 1 -> 1, 10 -> 5)."""
    (a, b), (c, d) = source, target
    return c + (np.asarray(scores, dtype=float) - a) * (d - c) / (b - a)


def template_tables(results: str, judge: str, family: Family) -> list[str]:
    """The judge tables of ``family``'s templates (rule ``robustness_judge``'s outputs)."""
    return [f"{results}/robustness/judge/{judge}/{family.name}/{t}.parquet" for t in family.templates]

