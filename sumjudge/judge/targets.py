"""What the judge rules produce and read, from the config (used by workflow/rules/judge.smk)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .protocols import VARIANTS, prompt_file


def variants(dataset: str, judge_cfg: dict[str, Any]) -> list[str]:
    """The prompt variants judged for a dataset (SummEval: judge.summeval_variants)."""
    if dataset == "summeval":
        return [v for v in judge_cfg["summeval_variants"] if v in VARIANTS["summeval"]]
    return list(VARIANTS[dataset])


def output(results: str, judge: str, dataset: str, variant: str, ext: str = "parquet") -> str:
    return f"{results}/judge/{judge}/{dataset}/{variant}.{ext}"


def outputs(results: str, judges: list[str], datasets: list[str], judge_cfg: dict[str, Any]) -> list[str]:
    return [output(results, j, d, v, ext) for j in judges for d in datasets for v in variants(d, judge_cfg)
            for ext in ("parquet", "usage.json")]


def prompt_dir(judge_cfg: dict[str, Any], workflow_dir: str) -> str:
    """judge.prompt_dir, or the workflow's prompts/ relative to the working directory
    (so a checkout elsewhere does not count as changed inputs)."""
    return judge_cfg.get("prompt_dir") or os.path.relpath(Path(workflow_dir) / "prompts")


def prompt_path(directory: str, dataset: str, variant: str) -> str:
    return str(Path(directory) / Path(prompt_file(dataset, variant)).name)


def threads(spec: dict[str, Any]) -> int:
    """An embedded judge computes on this machine's cores; a remote one only waits."""
    return int(spec["server"]["n_threads"]) if spec["embedded"] else 1
