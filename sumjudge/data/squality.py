"""SQuALITY's human evaluation (Wang et al. 2022): 20 stories x 5 questions x 3 systems, 0-100.

Two pinned sources (docs/data.md, "SQuALITY"):

- ``data/human-eval/all-responses.jsonl``: per story, per question (``"0"``-``"4"``)
  and system (``bart``, ``bart-dpr``, ``human``) the judged response and 3 reviews,
  each with the reviewer's id (``2``, ``3``, ``6``, ``8``: four named persons), a
  0-100 rating and a rank (1-3 among the question's systems) per dimension.
- ``data/v1-3/txt/test.jsonl``: the stories, the question texts and 4 reference
  responses per question.

One unit = (story, question, system); ``doc_id`` = ``<story>/<question>``, so the
summary-level correlation ranks the 3 systems of one question, as the reviewers
did. Dimensions: ``correctness``, ``coverage`` (upstream ``selection``) and
``overall``, on the reviewers' own 0-100 scale (the registry's ``scale``).
Per-reviewer columns ``{dim}_expert{id}`` (NaN where that reviewer did not review
the unit: every unit has 3 of the 4) and ranks ``rank_{dim}_expert{id}``; the gold
``{dim}`` is the file's own mean of the 3 reviews (checked against them).

The ``human`` response is one of the question's 4 references in every question:
``references`` holds the other 3 (for all three systems of the question, so every
system is scored against the same references) and ``human_reference`` the index of
the left-out one. Every count of PROVENANCE.md is checked here.
"""
from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import BUILTIN
from .dialsummeval import CountError, expect
from .readers import DataError, iter_jsonl, require

DIMENSIONS = BUILTIN["squality"].dimensions  # correctness, coverage, overall
UPSTREAM = {"correctness": "correctness", "coverage": "selection", "overall": "overall"}
SYSTEMS = ("bart", "bart-dpr", "human")
REVIEWERS = ("2", "3", "6", "8")
N_REVIEWS = 3
N_QUESTIONS = 5

# PROVENANCE.md, "Verified counts"
EXPECTED = {
    "passages": 20, "units": 300, "reviews": 900, "test_stories": 52,
    "reviews_per_reviewer": {r: 225 for r in REVIEWERS}, "reviews_per_reviewer_system": 75,
    "reviewer_sets": 4, "passages_per_reviewer_set": 5,
    "tied_groups": {"correctness": 28, "coverage": 32, "overall": 17},
    "distinct_ratings": {"correctness": 85, "coverage": 87, "overall": 95},
    "multiples_of_5": {"correctness": 666, "coverage": 608, "overall": 513},
    "system_means": {"bart": (34.8, 15.6, 18.1), "bart-dpr": (45.4, 24.3, 27.9), "human": (94.1, 88.8, 91.3)},
    "human_reference_positions": (35, 25, 30, 10),
    "human_writers": 12,
    "spans": 3142, "reviews_with_spans": 755,
    "doc_words": (3499, 6369, 5016, 98511),   # min, max, median, total over the 20 stories
    "test_references": 1040, "test_writers": 22,
}


def _load_stories(path: Path) -> dict[str, dict]:
    out = {}
    for lineno, rec in iter_jsonl(path):
        where = f"{path}, line {lineno}"
        require(rec, ["metadata", "document", "questions"], where)
        if len(rec["questions"]) != N_QUESTIONS or any(len(q.get("responses", [])) != 4 for q in rec["questions"]):
            raise DataError(f"{where}: expected {N_QUESTIONS} questions with 4 responses each")
        out[str(rec["metadata"]["passage_id"])] = rec
    return out


def prepare(responses_path: str | Path, stories_path: str | Path) -> pd.DataFrame:
    responses_path, stories_path = Path(responses_path), Path(stories_path)
    stories = _load_stories(stories_path)
    expect("the number of stories", len(stories), EXPECTED["test_stories"], stories_path)
    refs = [r for s in stories.values() for q in s["questions"] for r in q["responses"]]
    expect("the number of reference responses", len(refs), EXPECTED["test_references"], stories_path)
    expect("the number of writer ids", len({r["worker_id"] for r in refs}), EXPECTED["test_writers"], stories_path)

    rows, reviews_all, human_pos, human_writers = [], [], [], set()
    for lineno, rec in iter_jsonl(responses_path):
        where = f"{responses_path}, line {lineno}"
        require(rec, ["passage-id", "questions"], where)
        pid = str(rec["passage-id"])
        if pid not in stories:
            raise CountError(f"{where}: story {pid} is not in {stories_path}; PROVENANCE.md says all 20 are")
        story = stories[pid]
        if sorted(rec["questions"]) != [str(k) for k in range(N_QUESTIONS)]:
            raise DataError(f"{where}: questions {sorted(rec['questions'])}, expected keys 0-4")
        for qk in sorted(rec["questions"], key=int):
            q = story["questions"][int(qk)]
            systems = rec["questions"][qk]
            if sorted(systems) != sorted(SYSTEMS):
                raise DataError(f"{where}, question {qk}: systems {sorted(systems)}, expected {', '.join(SYSTEMS)}")
            texts = [r["response_text"].strip() for r in q["responses"]]
            human = systems["human"]["response"].strip()
            if human not in texts:
                raise CountError(f"{where}, question {qk}: the human response is none of the question's 4 "
                                 f"references in {stories_path}; PROVENANCE.md says it is one in 100/100")
            h = texts.index(human)
            human_pos.append(h)
            human_writers.add(q["responses"][h]["worker_id"])
            reviewer_sets = set()
            for system in SYSTEMS:
                entry = systems[system]
                uw = f"{where}, question {qk}, {system}"
                require(entry, ["response", "reviews", "overall"], uw)
                if len(entry["reviews"]) != N_REVIEWS:
                    raise CountError(f"{uw}: {len(entry['reviews'])} reviews, PROVENANCE.md says {N_REVIEWS}")
                row = {"unit_id": f"{pid}/{qk}/{system}", "doc_id": f"{pid}/{qk}", "story_id": pid,
                       "question_index": int(qk), "system": system, "question": q["question_text"].strip(),
                       "article": story["document"].strip(), "summary": entry["response"].strip(),
                       "references": [t for j, t in enumerate(texts) if j != h], "human_reference": h}
                ids = tuple(sorted(str(r["worker_id"]) for r in entry["reviews"]))
                if len(set(ids)) != N_REVIEWS or not set(ids) <= set(REVIEWERS):
                    raise CountError(f"{uw}: reviewers {ids}, expected 3 distinct of {', '.join(REVIEWERS)}")
                reviewer_sets.add(ids)
                for dim in DIMENSIONS:
                    for rid in REVIEWERS:
                        row[f"{dim}_expert{rid}"] = np.nan
                        row[f"rank_{dim}_expert{rid}"] = np.nan
                for r in entry["reviews"]:
                    if r.get("system") != system:
                        raise CountError(f"{uw}: a review says system {r.get('system')!r}")
                    rid = str(r["worker_id"])
                    for dim, up in UPSTREAM.items():
                        value = r[f"{up}-rating"]
                        if not 0 <= value <= 100:
                            raise DataError(f"{uw}: reviewer {rid}'s {up}-rating {value} is outside 0-100")
                        row[f"{dim}_expert{rid}"] = float(value)
                        row[f"rank_{dim}_expert{rid}"] = float(r[f"{up}-rank"])
                    reviews_all.append({"question": (pid, qk), "system": system, "reviewer": rid, **r})
                for dim, up in UPSTREAM.items():
                    mean = float(entry["overall"][f"{up}-rating"])
                    own = np.nanmean([row[f"{dim}_expert{rid}"] for rid in REVIEWERS])
                    if abs(mean - own) > 1e-6:
                        raise CountError(f"{uw}: overall.{up}-rating {mean} is not the mean of its reviews "
                                         f"({own}); PROVENANCE.md says it is in 900/900 cells")
                    row[dim] = mean
                rows.append(row)
            if len(reviewer_sets) != 1:
                raise CountError(f"{where}, question {qk}: its 3 systems have different reviewers "
                                 f"{sorted(reviewer_sets)}; PROVENANCE.md says the same 3 in 100/100 questions")
    df = pd.DataFrame(rows)
    check_counts(df, reviews_all, human_pos, human_writers, responses_path)
    return df


def check_counts(df: pd.DataFrame, reviews: list[dict], human_pos: list[int], human_writers: set,
                 path: Path) -> None:
    """The counts of PROVENANCE.md that need the whole file."""
    expect("the number of passages", df["story_id"].nunique(), EXPECTED["passages"], path)
    expect("the number of units", len(df), EXPECTED["units"], path)
    expect("the number of reviews", len(reviews), EXPECTED["reviews"], path)
    expect("the reviews per reviewer", dict(Counter(r["reviewer"] for r in reviews)),
           EXPECTED["reviews_per_reviewer"], path)
    per_sys = set(Counter((r["reviewer"], r["system"]) for r in reviews).values())
    expect("the reviews per reviewer and system", per_sys, {EXPECTED["reviews_per_reviewer_system"]}, path)
    sets = Counter()
    for _, g in df.groupby("story_id"):
        s = {tuple(rid for rid in REVIEWERS if not np.isnan(row[f"overall_expert{rid}"])) for _, row in g.iterrows()}
        if len(s) != 1:
            raise CountError(f"{path}: story {g['story_id'].iloc[0]} has {len(s)} reviewer sets; PROVENANCE.md "
                             "says the same 3 reviewers rate all 5 questions of a passage (20/20)")
        sets[s.pop()] += 1
    expect("the passages per 3-of-4 reviewer set", sorted(sets.values()),
           [EXPECTED["passages_per_reviewer_set"]] * EXPECTED["reviewer_sets"], path)
    by_group: dict[tuple, list[dict]] = {}
    for r in reviews:
        by_group.setdefault((r["question"], r["reviewer"]), []).append(r)
    ties = {}
    for dim, up in UPSTREAM.items():
        n_tied = 0
        for key, group in by_group.items():
            ranks = sorted(r[f"{up}-rank"] for r in group)
            if ranks != [1, 2, 3]:
                raise CountError(f"{path}: question {key[0]}, reviewer {key[1]}: {up} ranks {ranks}, not 1, 2, 3")
            for a in group:
                for b in group:
                    if a[f"{up}-rating"] > b[f"{up}-rating"] and a[f"{up}-rank"] > b[f"{up}-rank"]:
                        raise CountError(f"{path}: question {key[0]}, reviewer {key[1]}: a higher {up} rating "
                                         "has a worse rank")
            n_tied += len({r[f"{up}-rating"] for r in group}) < len(group)
        ties[dim] = n_tied
    expect("the (question, reviewer) groups with tied ratings", ties, EXPECTED["tied_groups"], path)
    ratings = {dim: [r[f"{up}-rating"] for r in reviews] for dim, up in UPSTREAM.items()}
    expect("the distinct ratings", {d: len(set(v)) for d, v in ratings.items()}, EXPECTED["distinct_ratings"], path)
    expect("the ratings that are multiples of 5", {d: sum(x % 5 == 0 for x in v) for d, v in ratings.items()},
           EXPECTED["multiples_of_5"], path)
    means = {s: tuple(round(float(np.mean([r[f"{up}-rating"] for r in reviews if r["system"] == s])), 1)
                      for up in UPSTREAM.values()) for s in SYSTEMS}
    expect("the rating means per system", means, EXPECTED["system_means"], path)
    expect("the positions of the human response among the references",
           tuple(Counter(human_pos).get(k, 0) for k in range(4)), EXPECTED["human_reference_positions"], path)
    expect("the writers of the human responses", len(human_writers), EXPECTED["human_writers"], path)
    spans = [len(r.get("annotations") or []) for r in reviews]
    expect("the highlighted spans", sum(spans), EXPECTED["spans"], path)
    expect("the reviews with a highlighted span", sum(n > 0 for n in spans), EXPECTED["reviews_with_spans"], path)
    words = [len(t.split()) for t in df.drop_duplicates("story_id")["article"]]
    expect("the story lengths in words (min, max, median, total)",
           (min(words), max(words), statistics.median(words), sum(words)), EXPECTED["doc_words"], path)
