"""A robustness run's results folder built from a stand-in grid (the smoke test of
benchmarks/prompt_family_design_judge.py): ``data/summeval.parquet`` and one judge table per
template of the shipped SummEval Likert family, every template on every document (the full
grid; ``ten_point`` answers on its 1-10 scale)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .prompt_grid import grid

DIMS = ("consistency", "relevance", "fluency", "coherence")
FAMILY = Path(__file__).resolve().parents[2] / "prompts" / "families" / "summeval_likert"


def human_frame(human: np.ndarray) -> pd.DataFrame:
    """A SummEval-shaped table of a ``D x S`` human matrix: units ``dDD-sSS``, document and
    system ids, an article whose length grows with the document (the design's stratification
    key), the same human score on every dimension."""
    d, s = np.indices(human.shape)
    frame = pd.DataFrame({"unit_id": [f"d{a:02d}-s{b:02d}" for a, b in zip(d.ravel(), s.ravel())],
                          "doc_id": [f"d{a:02d}" for a in d.ravel()], "system": [f"s{b:02d}" for b in s.ravel()],
                          "article": ["x" * (10 + a) for a in d.ravel()]})
    return frame.assign(**{dim: human.ravel() for dim in DIMS})


def judge_table(frame: pd.DataFrame, scores: np.ndarray, docs=None) -> pd.DataFrame:
    """A judge table of ``frame``'s units with ``scores`` (``D x S``) on every dimension; only
    the documents ``docs`` (None: every one)."""
    t = frame[["unit_id", "doc_id"]].assign(sample=0, status="ok", **{dim: scores.ravel() for dim in DIMS})
    return t if docs is None else t[t["doc_id"].isin(docs)]


def write(results: Path, judge: str = "qwen-1.5b", n_docs: int = 12, seed: int = 0) -> Path:
    templates = sorted(p.stem for p in FAMILY.glob("*.txt"))
    scores, human, _ = grid(len(templates), n_docs, 16, np.linspace(0.3, 0.8, len(templates)), noise=0.3, seed=seed)
    frame = human_frame(human)
    (results / "data").mkdir(parents=True, exist_ok=True)
    frame.to_parquet(results / "data" / "summeval.parquet")
    folder = results / "robustness" / "judge" / judge / "summeval_likert"
    folder.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(templates):
        x = scores[i]
        if name == "ten_point":  # asked on 1-10: the family maps it back onto 1-5
            x = 1 + (x - 1) * 9 / 4
        judge_table(frame, x).to_parquet(folder / f"{name}.parquet")
    return results
