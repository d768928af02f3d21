"""Small helpers the leaderboard's parts share: length bias, score matrices."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..datasets import DatasetSpec
from ..stats import bias
from ..stats.matrix import likert_matrix


def length_bias(spec: DatasetSpec, data: pd.DataFrame, labels: np.ndarray, margin: float) -> dict:
    """The judge's (or an annotator's) answers against summary length, per unit (docs: length bias)."""
    texts = list(spec.proto.summary_columns) if spec.proto.length_bias else []
    if not texts or not set(texts) <= set(data.columns):
        return {}
    if spec.proto.compares:
        b = bias.longer_preference(labels, bias.words(data[texts[0]]), bias.words(data[texts[1]]), margin)
    else:
        b = bias.length_correlation(labels, bias.words(data[texts[0]]))
    return {"length_bias": b.value, "length_bias_n": b.n}


def frame(spec: DatasetSpec, data: pd.DataFrame) -> tuple[pd.DataFrame, list, list]:
    d2 = data.assign(_doc=data[spec.cluster_column].astype(str), _sys=data[spec.system_column].astype(str))
    return d2, sorted(d2["_doc"].unique()), sorted(d2["_sys"].unique())


def matrix(d2, values, docs, systems) -> np.ndarray:
    return likert_matrix(d2.assign(_v=values), "_v", docs, systems, doc="_doc", system="_sys")
