"""DialSummEval (Gao and Wan, NAACL 2022): 100 SAMSum dialogues x 14 systems, Likert 1-5.

Three pinned sources (docs/data.md, "DialSummEval"):

- ``annotation_campus/human_judgment.jsonl``: the dialogues, the 1,400 judged
  summaries and the three campus annotators' scores on SummEval's four
  dimensions. A list position is one annotator across all lines (the authors'
  README), so ``{dim}_expert{k}`` is the person at position ``k + 1``.
- ``annotation_AMT/raw/Batch_*_batch_results.csv``: five MTurk workers per summary
  (7,000 assignments, with worker ids), which the authors did not use: kept as
  crowd columns ``{dim}_turker{k}`` with ids ``turker{k}_worker`` (slot ``k`` = the
  ``k``-th assignment of the HIT in file order; the same slot is not the same worker
  across summaries), like SummEval's turkers.
- FacEval's ``data/samsum.test.jsonl``: the cased SAMSum reference (system A of the
  campus file is the same text lower-cased and tokenized) and the dialogue with one
  turn per line, which is what the judge reads.

**The coherence defect.** Positions 2 and 3 give identical coherence scores in all
1,400 lines (PROVENANCE.md). The rule (:func:`duplicate_positions`): a later position
whose scores on a dimension equal an earlier position's in every line is a copy, not
a second person. Its column is left empty (``coherence_expert2`` is NaN), its values
are kept in ``duplicate_coherence_expert2`` (so the defect stays checkable), and the
gold ``coherence`` is the mean of the two independent annotators (the other three
dimensions: of all three).

Every count of PROVENANCE.md is checked here (:func:`check_counts`); a file that
does not reproduce one stops the preparation, naming the file and the count.
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import BUILTIN
from .readers import DataError, iter_jsonl, require

DIMENSIONS = BUILTIN["dialsummeval"].dimensions  # consistency, relevance, fluency, coherence
N_EXPERTS = 3
N_TURKERS = 5
SYSTEMS = {"A": "GOLD", "B": "LONGEST_3", "C": "LEAD_3", "D": "PGN", "E": "Transformer", "F": "BART",
           "G": "PEGASUS", "H": "UniLM", "I": "CODS", "J": "ConvoSumm", "K": "MV_BART", "L": "PLM",
           "M": "PNEP", "N": "S_BART"}  # model_type_dict of reproduce/analysis/analysis.py
AMT_COLUMNS = {"coherence": "Answer.Coherance", "consistency": "Answer.Consistency",  # sic: Coherance
               "fluency": "Answer.Fluency", "relevance": "Answer.Relevance"}

# PROVENANCE.md, "Verified counts"
EXPECTED = {
    "lines": 1400, "dialogues": 100, "systems": 14, "faceval_lines": 819,
    # score counts 1/2/3/4/5 per dimension and campus position (1, 2, 3)
    "campus_scores": {
        "coherence": ((2, 22, 294, 981, 101), (8, 76, 188, 330, 798), (8, 76, 188, 330, 798)),
        "consistency": ((142, 90, 306, 788, 74), (193, 114, 228, 189, 676), (125, 164, 370, 401, 340)),
        "fluency": ((0, 17, 367, 1003, 13), (4, 33, 97, 242, 1024), (12, 21, 104, 381, 882)),
        "relevance": ((90, 99, 572, 496, 143), (103, 325, 535, 307, 130), (132, 54, 172, 194, 848)),
    },
    "duplicates": {("coherence", 1, 2): 1400},     # (dimension, earlier, later position index): lines
    "positions_2_3_agree": {"consistency": 502, "fluency": 840, "relevance": 351},
    "whole_dict_equal": {(1, 2): 99, (0, 1): 9, (0, 2): 10},
    "amt_rows": 7000, "amt_files": 5, "amt_rows_per_file": 1400, "amt_workers": 283,
    "amt_workers_per_file": (198, 186, 159, 167, 156),
    "amt_summary_exact": 6915,
    "amt_scores": {"coherence": (169, 1176, 2834, 2103, 718), "consistency": (139, 1142, 2939, 2081, 699),
                   "fluency": (143, 1018, 2737, 2388, 714), "relevance": (149, 982, 2694, 2585, 590)},
    "reference_folded_equal": 100,
}


class CountError(DataError):
    """A pinned file does not reproduce a count of its PROVENANCE.md."""


def fold(text: str) -> str:
    """Lower-case alphanumerics only: the folding PROVENANCE.md matches texts under."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def expect(what: str, found, expected, path) -> None:
    if found != expected:
        raise CountError(f"{path}: {what} is {found}, PROVENANCE.md says {expected}; the file is not the pinned "
                         "one (delete it and fetch it again) or the reader is wrong")


def duplicate_positions(scores: np.ndarray) -> dict[int, int]:
    """``{later: earlier}`` positions whose scores (lines x positions) are equal in every line."""
    out: dict[int, int] = {}
    for later in range(1, scores.shape[1]):
        for earlier in range(later):
            if earlier not in out and np.array_equal(scores[:, earlier], scores[:, later]):
                out[later] = earlier
                break
    return out


def _campus(path: Path) -> list[dict]:
    records = []
    for lineno, rec in iter_jsonl(path):
        where = f"{path}, line {lineno}"
        require(rec, ["id", "dialogue", "summary", "annotations", "model_id"], where)
        ann = rec["annotations"]
        if len(ann) != N_EXPERTS or any(set(a) != set(DIMENSIONS) for a in ann):
            raise DataError(f"{where}: expected {N_EXPERTS} annotation dicts with keys {', '.join(DIMENSIONS)}")
        if any(not isinstance(a[d], int) or not 1 <= a[d] <= 5 for a in ann for d in DIMENSIONS):
            raise DataError(f"{where}: a score outside the integers 1-5: {ann}")
        if rec["model_id"] not in SYSTEMS:
            raise DataError(f"{where}: unknown system letter {rec['model_id']!r}; known: {''.join(SYSTEMS)}")
        records.append({**rec, "_where": where})
    return records


def _amt(path: Path) -> list[dict]:
    """Rows of one MTurk batch-results export: the header has 36 fields, data rows 34
    (the trailing Approve, Reject are missing), so the rows are zipped with the header."""
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        need = ["HITId", "WorkerId", "Input.model_type", "Input.dialogue", "Input.summary", *AMT_COLUMNS.values()]
        missing = [c for c in need if c not in header]
        if missing:
            raise DataError(f"{path}: header lacks {', '.join(missing)}")
        rows = []
        for rowno, fields in enumerate(reader, start=1):
            if len(fields) not in (len(header), len(header) - 2):
                raise DataError(f"{path}, row {rowno}: {len(fields)} fields, expected {len(header)} or "
                                f"{len(header) - 2}; the file is damaged: delete it and fetch it again")
            row = dict(zip(header, fields))
            for dim, col in AMT_COLUMNS.items():
                if row[col] not in ("1", "2", "3", "4", "5"):
                    raise DataError(f"{path}, row {rowno}: {col} is {row[col]!r}, not 1-5")
            rows.append({**row, "_where": f"{path}, row {rowno}"})
    return rows


def _dist(values) -> tuple[int, ...]:
    c = Counter(int(v) for v in values)
    return tuple(c.get(k, 0) for k in range(1, 6))


def prepare(campus_path: str | Path, amt_files: list[str | Path], samsum_path: str | Path) -> pd.DataFrame:
    campus_path, samsum_path = Path(campus_path), Path(samsum_path)
    amt_files = [Path(p) for p in amt_files]
    campus = _campus(campus_path)
    samsum = {}
    for lineno, rec in iter_jsonl(samsum_path):
        require(rec, ["id", "dialogue", "summary"], f"{samsum_path}, line {lineno}")
        samsum[str(rec["id"])] = rec
    expect("the number of lines", len(samsum), EXPECTED["faceval_lines"], samsum_path)

    # --- campus counts
    expect("the number of lines", len(campus), EXPECTED["lines"], campus_path)
    keys = Counter((r["id"], r["model_id"]) for r in campus)
    expect("the number of distinct (id, model_id)", len(keys), EXPECTED["lines"], campus_path)
    ids = sorted({r["id"] for r in campus})
    expect("the number of dialogues", len(ids), EXPECTED["dialogues"], campus_path)
    per_id = Counter(r["id"] for r in campus)
    expect("the dialogues without 14 lines", sorted(i for i, n in per_id.items() if n != EXPECTED["systems"]), [],
           campus_path)
    missing = [i for i in ids if i not in samsum]
    expect("the dialogue ids missing from the SAMSum test split", missing, [], samsum_path)
    scores = {d: np.array([[a[d] for a in r["annotations"]] for r in campus]) for d in DIMENSIONS}
    for dim in DIMENSIONS:
        for k in range(N_EXPERTS):
            expect(f"the {dim} score counts 1/2/3/4/5 of position {k + 1}", _dist(scores[dim][:, k]),
                   EXPECTED["campus_scores"][dim][k], campus_path)
    duplicates = {(d, e, later): len(campus) for d in DIMENSIONS
                  for later, e in duplicate_positions(scores[d]).items()}
    expect("the (dimension, earlier, later position) pairs equal in every line", duplicates,
           EXPECTED["duplicates"], campus_path)
    agree = {d: int((scores[d][:, 1] == scores[d][:, 2]).sum()) for d in EXPECTED["positions_2_3_agree"]}
    expect("the lines where positions 2 and 3 agree", agree, EXPECTED["positions_2_3_agree"], campus_path)
    whole = {pair: sum(r["annotations"][pair[0]] == r["annotations"][pair[1]] for r in campus)
             for pair in EXPECTED["whole_dict_equal"]}
    expect("the lines with identical annotation dicts (positions)", whole, EXPECTED["whole_dict_equal"], campus_path)
    for r in campus:
        turns = samsum[r["id"]]["dialogue"].rstrip()
        if r["dialogue"] != "| " + " | ".join(turns.split("\n")):
            raise CountError(f"{r['_where']}: the dialogue of {r['id']} is not FacEval's ({samsum_path}) with its "
                             "turns joined by ' | '; PROVENANCE.md says 100/100 are")
    ref_equal = sum(fold(r["summary"]) == fold(samsum[r["id"]]["summary"]) for r in campus if r["model_id"] == "A")
    expect("the system-A summaries equal to the cased reference after folding", ref_equal,
           EXPECTED["reference_folded_equal"], campus_path)

    # --- AMT
    expect("the number of AMT batch files", len(amt_files), EXPECTED["amt_files"], amt_files[0].parent
           if amt_files else "annotation_AMT/raw")
    by_folded = {fold(samsum[i]["dialogue"]): i for i in ids}
    summary_of = {(r["id"], r["model_id"]): r["summary"] for r in campus}
    hits: dict[tuple[str, str], list[dict]] = {}
    hit_key: dict[str, tuple[str, str]] = {}
    workers_per_file, exact, all_rows = [], 0, []
    for path in sorted(amt_files):
        rows = _amt(path)
        expect("the number of rows", len(rows), EXPECTED["amt_rows_per_file"], path)
        workers_per_file.append(len({r["WorkerId"] for r in rows}))
        for r in rows:
            doc = by_folded.get(fold(re.sub(r"</?p>", "", r["Input.dialogue"])))
            if doc is None:
                raise CountError(f"{r['_where']}: its dialogue matches no campus dialogue under folding; "
                                 "PROVENANCE.md says all 7,000 rows do")
            key = (doc, r["Input.model_type"])
            if key not in summary_of:
                raise CountError(f"{r['_where']}: ({doc}, {key[1]}) is not a campus summary")
            if hit_key.setdefault(r["HITId"], key) != key:
                raise CountError(f"{r['_where']}: HIT {r['HITId']} covers two summaries")
            if fold(r["Input.summary"]) != fold(summary_of[key]):
                raise CountError(f"{r['_where']}: its summary differs from the campus summary of {key} beyond "
                                 "non-alphanumeric characters")
            exact += r["Input.summary"] == summary_of[key]
            hits.setdefault(key, []).append(r)
            all_rows.append(r)
    expect("the number of AMT rows", len(all_rows), EXPECTED["amt_rows"], "annotation_AMT/raw")
    expect("the workers per batch file", tuple(workers_per_file), EXPECTED["amt_workers_per_file"],
           "annotation_AMT/raw")
    expect("the number of distinct workers", len({r["WorkerId"] for r in all_rows}), EXPECTED["amt_workers"],
           "annotation_AMT/raw")
    expect("the rows whose summary equals the campus summary exactly", exact, EXPECTED["amt_summary_exact"],
           "annotation_AMT/raw")
    bad = [k for k in summary_of if len(hits.get(k, [])) != N_TURKERS
           or len({r["WorkerId"] for r in hits[k]}) != N_TURKERS]
    expect("the summaries without 5 assignments by 5 distinct workers", bad, [], "annotation_AMT/raw")
    for dim, col in AMT_COLUMNS.items():
        expect(f"the {col} counts 1/2/3/4/5", _dist(r[col] for r in all_rows), EXPECTED["amt_scores"][dim],
               "annotation_AMT/raw")

    # --- the table
    dup = {(d, later): e for (d, e, later) in duplicates}
    order = {s: i for i, s in enumerate(SYSTEMS)}
    rows = []
    for i, r in sorted(enumerate(campus), key=lambda t: (t[1]["id"], order[t[1]["model_id"]])):
        doc, system = r["id"], r["model_id"]
        row = {"unit_id": f"{doc}/{system}", "doc_id": doc, "system": system, "system_name": SYSTEMS[system],
               "article": samsum[doc]["dialogue"].rstrip(), "summary": r["summary"],
               "reference": samsum[doc]["summary"].strip()}
        for dim in DIMENSIONS:
            people = []
            for k in range(N_EXPERTS):
                value = float(scores[dim][i, k])
                if (dim, k) in dup:
                    row[f"duplicate_{dim}_expert{k}"] = value
                    row[f"{dim}_expert{k}"] = np.nan
                else:
                    row[f"{dim}_expert{k}"] = value
                    people.append(value)
            row[dim] = float(np.mean(people))
        for k, a in enumerate(hits[(doc, system)]):
            row[f"turker{k}_worker"] = a["WorkerId"]
            for dim, col in AMT_COLUMNS.items():
                row[f"{dim}_turker{k}"] = float(a[col])
        rows.append(row)
    return pd.DataFrame(rows)
