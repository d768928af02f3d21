"""Tables 1 and 2: Spearman correlation with human Likert scores at three levels."""
from __future__ import annotations

import pandas as pd

from ..stats.correlation import LEVELS, correlation_levels

DIMENSIONS = {
    "summeval": ("consistency", "relevance", "fluency", "coherence"),
    "newsroom": ("coherence", "fluency", "informativeness", "relevance"),
}
LABELS = {"summeval": "SummEval", "newsroom": "Newsroom"}
TABLES = {"summeval": "Table 1", "newsroom": "Table 2"}
ROUGE_ROWS = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L"}


def correlation_rows(human: pd.DataFrame, scores: pd.DataFrame, rows: dict[str, str], dataset: str,
                     method: str = "spearman", undefined: str = "zero") -> pd.DataFrame:
    """Long-form rows for every (score column, dimension, level).

    ``human`` is a prepared Likert dataset, ``scores`` has ``unit_id`` plus the
    columns named in ``rows`` (column -> printed row name).
    """
    merged = human.merge(scores, on="unit_id", how="inner", validate="one_to_one")
    if len(merged) != len(human):
        raise ValueError(f"{dataset}: scores cover {len(merged)} of {len(human)} units")
    out = []
    for column, row_name in rows.items():
        for dim in DIMENSIONS[dataset]:
            for level, res in correlation_levels(merged, column, dim, method=method,
                                                 undefined=undefined).items():
                out.append({"table": TABLES[dataset], "dataset": LABELS[dataset], "dimension": dim,
                            "level": level, "row": row_name, "value": res.value,
                            "n_groups": res.n_groups, "n_undefined": res.n_undefined})
    return pd.DataFrame(out)


def order_rows(df: pd.DataFrame, dataset: str) -> pd.DataFrame:
    dims = {d: i for i, d in enumerate(DIMENSIONS[dataset])}
    levels = {lv: i for i, lv in enumerate(LEVELS)}
    rows = {r: i for i, r in enumerate(dict.fromkeys(df["row"]))}
    key = df["row"].map(rows) * 100 + df["dimension"].map(dims) * 10 + df["level"].map(levels)
    return df.assign(_k=key).sort_values("_k").drop(columns="_k").reset_index(drop=True)
