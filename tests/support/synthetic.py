"""Synthetic judge outputs in the judge stage's contract (docs/tables.md), for
testing the tables without a model: human labels plus seeded noise, a share of
invalid replies, and replies that explain themselves."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

LIKERT = {"summeval": ("consistency", "relevance", "fluency", "coherence"),
          "newsroom": ("coherence", "fluency", "informativeness", "relevance")}
REASONS = ("refusal: I'm sorry", "rewrote_summary", "continued_summary", "missing_dimension: fluency")


def judge_table(human: pd.DataFrame, dataset: str, variant: str = "base", samples: int = 1, seed: int = 0,
                invalid_rate: float = 0.05, noise: float = 0.8, model: str = "stub-model-1",
                weighted: bool = False) -> pd.DataFrame:
    """``weighted``: Likert tables also get ``<dimension>_weighted`` (G-Eval's score)."""
    rng = np.random.default_rng([seed, len(variant), samples])
    rows = []
    for s in range(samples):
        for _, u in human.iterrows():
            bad = rng.random() < invalid_rate
            row = {"unit_id": u["unit_id"], "sample": s, "status": "invalid" if bad else "ok",
                   "invalid_reason": REASONS[rng.integers(len(REASONS))] if bad else None,
                   "prompt_hash": hashlib.sha256(f"{dataset}/{variant}".encode()).hexdigest()[:16],
                   "model": model}
            if dataset in LIKERT:
                for d in LIKERT[dataset]:
                    row[d] = float(np.clip(np.round(u[d] + rng.normal(0, noise)), 1, 5))
                    if weighted:
                        row[d + "_weighted"] = np.nan if bad else float(np.clip(u[d] + rng.normal(0, noise), 1, 5))
                text = "\n".join(f"{d.capitalize()}: {int(row[d])}" for d in LIKERT[dataset])
                if rng.random() < 0.2:
                    text += "\nThe summary misses the main point of the article and repeats itself twice."
            elif dataset == "tldr":
                row["choice"] = float(u["choice"] if rng.random() < 0.7 else 1 - u["choice"])
                text = f"Summary {int(row['choice'])}"
            elif dataset == "realsumm":
                labels = [bool(v) if rng.random() < 0.8 else not bool(v) for v in u["scu_labels"]]
                if labels and rng.random() < 0.1:
                    labels[0] = None
                row["scu_labels"] = labels
                text = "\n".join(f"{i + 1}. {'Yes' if v else 'No'}" for i, v in enumerate(labels))
            else:
                row["label"] = float(u["label"] if rng.random() < 0.8 else 1 - u["label"])
                text = "Yes" if row["label"] else "No"
            if bad:
                text = "I'm sorry, but I cannot rate this summary without more context about it."
            row["reply"] = text
            rows.append(row)
    df = pd.DataFrame(rows)
    for col in ("choice", "label"):  # the judge stage writes nullable integers
        if col in df:
            df[col] = pd.array([None if np.isnan(v) else int(v) for v in df[col]], dtype="Int64")
    return df


def write_judge(human: pd.DataFrame, dataset: str, out: str | Path, variant: str = "base", **kw) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df = judge_table(human, dataset, variant, **kw)
    df.to_parquet(out, index=False)
    n = len(df)
    out.with_suffix(".usage.json").write_text(json.dumps({
        "requests_sent": n, "cache_hits": 0, "input_tokens": 900 * n, "output_tokens": 20 * n,
        "cost_usd": round(0.002 * 0.92 * n, 6)}))
    return out


def tidy(x: np.ndarray, y: np.ndarray) -> pd.DataFrame:
    """Documents x systems matrices of a metric (``x``) and a human score (``y``) as the
    long table the correlation levels read: doc_id, system, metric, human."""
    d, s = x.shape
    return pd.DataFrame({"doc_id": np.repeat([f"d{i:02d}" for i in range(d)], s),
                         "system": np.tile([f"s{j:02d}" for j in range(s)], d),
                         "metric": x.ravel(), "human": y.ravel()})
