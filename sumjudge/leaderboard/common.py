"""A small helper the leaderboard's columns share: length bias."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..datasets import DatasetSpec
from ..stats import bias


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
