"""QAGS (Wang et al. 2020): one row per summary sentence with its 3 yes/no votes.

``label`` is the majority vote (at least 2 of 3 "yes" => supported), the rule
that reproduces BARTScore's summary-level ``fact`` score exactly.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .readers import DataError, iter_jsonl, require


def prepare(jsonl_path: str | Path) -> pd.DataFrame:
    rows = []
    for lineno, rec in iter_jsonl(jsonl_path):
        doc_id = lineno - 1  # BARTScore's doc id is the 0-based line number
        where = f"{jsonl_path}, line {lineno}"
        require(rec, ["article", "summary_sentences"], where)
        sentences = rec["summary_sentences"]
        summary = " ".join(s.get("sentence", "") for s in sentences)
        for k, sent in enumerate(sentences):
            require(sent, ["sentence", "responses"], f"{where}, sentence {k}")
            answers = [r.get("response") for r in sent["responses"]]
            if not answers or any(a not in ("yes", "no") for a in answers):
                raise DataError(f"{where}, sentence {k}: responses must be 'yes' or 'no', "
                                f"found {answers!r}")
            votes = [int(a == "yes") for a in answers]
            rows.append({
                "unit_id": f"{doc_id}/{k}", "doc_id": doc_id, "sentence_idx": k,
                "article": rec["article"], "summary": summary, "sentence": sent["sentence"],
                "votes": votes, "workers": [r.get("worker_id") for r in sent["responses"]],
                "n_yes": sum(votes), "label": int(2 * sum(votes) > len(votes)),
            })
    return pd.DataFrame(rows)
