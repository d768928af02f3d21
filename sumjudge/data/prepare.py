"""Turn a dataset's fetched files into its tidy table (one row per judged unit).

``inputs`` maps each pinned source path (``<dataset>/<owner>+<repo>/<path>``, see
:mod:`sumjudge.data.sources`) to the local file that holds it, so the same code
runs on ``results/raw`` and on a mirror directory.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from . import newsroom, qags, realsumm, summeval, tldr
from .sources import DATASET_FILES

DATASETS = ("summeval", "newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum")


def source_files(name: str, options: dict[str, Any] | None = None) -> list[str]:
    """The pinned source paths a prepared dataset needs (honours the tldr batches)."""
    options = options or {}
    if name == "tldr":
        batches = options.get("tldr", {}).get("batches", ["batch13", "batch18"])
        return [s.local_path for s in DATASET_FILES["tldr"]
                if any(s.path.endswith(f"/{b}.json") for b in batches)]
    if name in ("qags_cnn", "qags_xsum"):
        stem = {"qags_cnn": "mturk_cnndm", "qags_xsum": "mturk_xsum"}[name]
        return [s.local_path for s in DATASET_FILES["qags"] if s.path.endswith(f"{stem}.jsonl")]
    if name not in DATASET_FILES:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    return [s.local_path for s in DATASET_FILES[name]]


def _pick(inputs: dict[str, str], suffix: str) -> list[str]:
    return [inputs[k] for k in sorted(inputs) if k.endswith(suffix)]


def apply_subset(df: pd.DataFrame, docs: int | None = None, units: int | None = None) -> pd.DataFrame:
    """Keep the first ``docs`` documents (sorted ids) and then the first ``units`` rows."""
    if docs and "doc_id" in df:
        keep = sorted(df["doc_id"].unique())[:docs]
        df = df[df["doc_id"].isin(keep)]
    elif docs and "post_id" in df:
        keep = list(dict.fromkeys(df["post_id"]))[:docs]
        df = df[df["post_id"].isin(keep)]
    if units:
        df = df.head(units)
    return df.reset_index(drop=True)


def prepare_dataset(name: str, inputs: dict[str, str], options: dict[str, Any] | None = None) -> pd.DataFrame:
    options = options or {}
    if name == "summeval":
        df = summeval.prepare(_pick(inputs, "SummEval/data.pkl")[0], _pick(inputs, "_annotations.jsonl"))
    elif name == "newsroom":
        df = newsroom.prepare(_pick(inputs, "Newsroom/data.pkl")[0], _pick(inputs, "newsroom.json")[0])
    elif name == "tldr":
        o = options.get("tldr", {})
        df = tldr.prepare(_pick(inputs, ".json"), o.get("splits"),
                          o.get("drop_reference_pairs", True), o.get("require_reference", True))
    elif name == "realsumm":
        ratings = [v for k, v in sorted(inputs.items()) if "SCU_rating_results" in k]
        df = realsumm.prepare(_pick(inputs, "REALSumm/data.pkl")[0], _pick(inputs, "SCUs_list.csv")[0],
                              ratings, options.get("realsumm", {}).get("tie", "absent"))
    elif name in ("qags_cnn", "qags_xsum"):
        df = qags.prepare(_pick(inputs, ".jsonl")[0])
    else:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    subset = (options.get("subset") or {}).get(name) or {}
    return apply_subset(df, subset.get("docs"), subset.get("units"))
