"""The SummEval-shaped units the judge's unit tests send to the fake OpenAI server."""
from __future__ import annotations

import pandas as pd


def summeval_units(n: int, markers: dict[int, str] | None = None, repeat: int = 20) -> pd.DataFrame:
    """``n`` summaries, four per article (``d<i // 4>``); ``markers``: text appended to
    summary ``i``, which the fake server reads as faults to inject; ``repeat``: how many
    times the article's sentence is repeated (its length in the prompt)."""
    markers = markers or {}
    return pd.DataFrame([{"unit_id": f"d{i // 4}/s{i}", "doc_id": f"d{i // 4}",
                          "article": f"Article number {i // 4}. " * repeat,
                          "summary": f"Summary {i}. {markers.get(i, '')}".strip()} for i in range(n)])
