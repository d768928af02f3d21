"""REALSumm (Bhandari et al. 2020): 100 documents x 24 systems with Pyramid SCUs.

One row per summary, with the document's real SCUs (BLANK slots dropped) and,
per SCU, the crowd's presence votes and the derived label. The label is a strict
majority of ``p`` votes (votes * 2 > assignments); a tie (2-2 with four
assignments) counts as absent by default (``tie="absent"``), which reproduces the
published LitePyramid recall of every summary. ``tie="present"`` is offered for
sensitivity analysis.

The AMT result files name documents by ``eventId`` (``cnndm<N>``); BARTScore's
pickle by an integer. The two are joined by matching the judged summary text.
"""
from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

from .readers import DataError, iter_csv, read_pickle

N_SLOTS = 16
BLANK = "BLANK"


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _scu_list(path: Path) -> dict[str, list[tuple[int, str]]]:
    scus: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for rowno, row in iter_csv(path):
        try:
            qid = int(row["questionId"])
        except (KeyError, ValueError) as err:
            raise DataError(f"{path}, row {rowno}: bad or missing questionId") from err
        if row["questionText"].strip() != BLANK:
            scus[row["eventId"]].append((qid, row["questionText"].strip()))
    return {e: sorted(v) for e, v in scus.items()}


def _label(present: int, votes: int, tie: str) -> bool:
    if 2 * present == votes:
        return tie == "present"
    return 2 * present > votes


def prepare(pickle_path: str | Path, scu_list_path: str | Path,
            rating_files: list[str | Path], tie: str = "absent") -> pd.DataFrame:
    if tie not in ("absent", "present"):
        raise ValueError(f"tie must be 'absent' or 'present', not {tie!r}")
    data = read_pickle(pickle_path)
    scus = _scu_list(Path(scu_list_path))
    by_text: dict[tuple[str, str], set[int]] = defaultdict(set)
    for doc_id, doc in data.items():
        for system, entry in doc["sys_summs"].items():
            by_text[(system, _norm(entry["sys_summ"]))].add(doc_id)

    votes: dict[tuple[str, str], dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    event_docs: dict[str, Counter] = defaultdict(Counter)
    for path in map(Path, rating_files):
        for rowno, row in iter_csv(path):
            where = f"{path}, row {rowno}"
            try:
                event, system = row["Input.eventId"], row["Input.summaryId"] + ".txt"
                qids = [int(q) for q in ast.literal_eval(row["Input.qIdList"])]
                answers = [row[f"Answer.S{i}Answer"] for i in range(1, N_SLOTS + 1)]
            except (KeyError, ValueError, SyntaxError) as err:
                raise DataError(f"{where}: cannot read eventId, summaryId, qIdList or the "
                                f"S1..S{N_SLOTS} answers ({err!r}); the file is damaged") from err
            if len(qids) != N_SLOTS or any(a not in ("p", "n") for a in answers):
                raise DataError(f"{where}: expected {N_SLOTS} question ids and answers 'p'/'n', "
                                f"found {len(qids)} ids and {sorted(set(answers))}")
            for doc in by_text.get((system, _norm(row["Input.summary_text"])), ()):
                event_docs[event][doc] += 1
            for qid, answer in zip(qids, answers):
                votes[(event, system)][qid].append(int(answer == "p"))

    event_to_doc = {}
    for event, counts in event_docs.items():
        (doc, n), *rest = counts.most_common()
        if rest and rest[0][1] == n:
            raise DataError(f"REALSumm event {event}: summary texts match several documents")
        event_to_doc[event] = doc

    rows = []
    for (event, system), per_q in sorted(votes.items()):
        if event not in event_to_doc:
            raise DataError(f"REALSumm event {event}: no summary text matches {pickle_path}")
        doc_id = event_to_doc[event]
        doc = data[doc_id]
        if system not in doc["sys_summs"]:
            continue  # e.g. a system judged by the crowd but absent from the released scores
        real = scus.get(event, [])
        present = [sum(per_q[q]) for q, _ in real]
        n_votes = [len(per_q[q]) for q, _ in real]
        labels = [_label(p, n, tie) for p, n in zip(present, n_votes)]
        rows.append({
            "unit_id": f"{doc_id}/{system.removesuffix('.txt')}",
            "doc_id": doc_id, "event_id": event, "system": system.removesuffix(".txt"),
            "article": doc["src"], "reference": doc["ref_summ"],
            "summary": doc["sys_summs"][system]["sys_summ"],
            "scu_ids": [q for q, _ in real], "scus": [t for _, t in real],
            "scu_votes_present": present, "scu_n_votes": n_votes, "scu_labels": labels,
            "litepyramid_recall": sum(labels) / len(labels) if labels else float("nan"),
        })
    return pd.DataFrame(rows).sort_values(["doc_id", "system"]).reset_index(drop=True)
