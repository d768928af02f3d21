"""What each learned metric scores on each prepared dataset, and how the per-pair
numbers become the output table (see docs/metrics.md for the rules).

Reference-based metrics (BERTScore, MoverScore, BARTScore) see one *side* per
summary column: SummEval and Newsroom have one (``summary``), TLDR two
(``summary_0``, ``summary_1``, scored separately and compared afterwards).
A unit with several references (SummEval: 11) gets the mean over its references.

Factuality metrics (FactCC, DAE) answer yes/no questions about *claims* against
*premises*; :func:`claims_for` lists them for REALSumm (SCUs against the summary)
and QAGS (summary sentences against the article).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from .. import datasets
from ..datasets import DatasetSpec
from .loading import split_sentences

REFERENCE_DATASETS = tuple(datasets.names(family="reference"))
FACTUALITY_DATASETS = tuple(datasets.names(family="factuality"))


@dataclass
class Side:
    """One summary column of a dataset with what it is compared against."""

    suffix: str                # "" or "_0" / "_1" (TLDR)
    hypotheses: list[str]
    references: list[list[str]]
    sources: list[str]


def _family(dataset: "str | DatasetSpec", family: str) -> DatasetSpec:
    spec = datasets.get(dataset)
    if family not in spec.metric_families:
        known = REFERENCE_DATASETS if family == "reference" else FACTUALITY_DATASETS
        raise ValueError(f"{family == 'reference' and 'reference-based' or family} metrics are defined for "
                         f"{', '.join(known)}, not {spec.name!r}")
    return spec


def sides_for(df: pd.DataFrame, dataset: "str | DatasetSpec") -> list[Side]:
    """One side per summary column of the dataset's protocol (TLDR: the post is the
    "article"); a reference cell that is a list (SummEval) holds several references."""
    spec = _family(dataset, "reference")
    if spec.reference_column not in df:
        raise ValueError(f"dataset {spec.name!r} has no column {spec.reference_column!r}: "
                         "reference-based metrics need a reference summary per unit")
    refs = [[r] if isinstance(r, str) else list(r) for r in df[spec.reference_column]]
    # ROUGE needs no article; a metric that does fails on the None
    sources = list(df[spec.article_column]) if spec.article_column in df else [None] * len(df)
    return [Side(col[len("summary"):], list(df[col]), refs, sources) for col in spec.summary_columns]


def mean_over_references(side: Side, pair_score: Callable[[list[str], list[str]], Sequence[float]],
                         swap: bool = False) -> np.ndarray:
    """Score every (hypothesis, reference) pair of ``side`` in one call and average
    per unit. ``pair_score(a, b)`` gets hypotheses as ``a`` (references if ``swap``)."""
    hyps, refs, owner = [], [], []
    for i, (h, rs) in enumerate(zip(side.hypotheses, side.references)):
        for r in rs:
            hyps.append(h)
            refs.append(r)
            owner.append(i)
    flat = np.asarray(pair_score(refs, hyps) if swap else pair_score(hyps, refs), dtype=float)
    owner = np.asarray(owner)
    sums = np.bincount(owner, weights=flat, minlength=len(side.hypotheses))
    counts = np.bincount(owner, minlength=len(side.hypotheses))
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def pairwise_choice(score_0: np.ndarray, score_1: np.ndarray) -> np.ndarray:
    """TLDR: the summary with the higher score wins (0 or 1); equal scores, or a
    missing score, are a tie (-1), which never matches a human choice."""
    s0, s1 = np.asarray(score_0, float), np.asarray(score_1, float)
    out = np.where(s1 > s0, 1, np.where(s0 > s1, 0, -1))
    return out.astype(int)


def assemble(df: pd.DataFrame, dataset: "str | DatasetSpec", columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """``unit_id`` + the score columns; a pairwise dataset (TLDR) also gets
    ``{score}_choice`` per score."""
    out = pd.DataFrame({"unit_id": df["unit_id"].to_numpy()})
    for name, values in columns.items():
        out[name] = np.asarray(values, dtype=float)
    if len(datasets.get(dataset).summary_columns) == 2:
        bases = sorted({c[:-2] for c in columns if c.endswith(("_0", "_1"))})
        for base in bases:
            out[f"{base}_choice"] = pairwise_choice(out[f"{base}_0"], out[f"{base}_1"])
    return out


# --- factuality questions -------------------------------------------------------

@dataclass
class Claims:
    """Flat (premise, claim) pairs and how they roll up into unit answers.

    ``unit[i]`` is the row of the dataset that pair ``i`` belongs to and ``item[i]``
    the SCU index (REALSumm) or the Punkt sentence index within the QAGS sentence.
    """

    premises: list[str]
    claims: list[str]
    unit: np.ndarray
    item: np.ndarray
    part: np.ndarray      # which premise sentence (REALSumm "sentence" mode), else 0


def claims_for(df: pd.DataFrame, dataset: "str | DatasetSpec", realsumm_premise: str = "sentence") -> Claims:
    """REALSumm: is SCU *j* present in the summary? Each SCU is a claim; its premise is
    either each Punkt sentence of the summary (``sentence``: present if some sentence
    supports it) or the whole summary (``summary``).

    QAGS: is this summary sentence supported by the article? The premise is the
    article; the sentence is split with Punkt (nearly always one piece) and every
    piece must be supported.
    """
    spec = _family(dataset, "factuality")
    proto = spec.proto  # its claim_column is checked against its premise_column
    premises, claims, unit, item, part = [], [], [], [], []
    if not (proto.claim_column and proto.premise_column):
        raise ValueError(f"factuality metrics have no question for the {spec.protocol} protocol")
    if proto.per_item:  # a list of claims per unit (REALSumm: SCUs against the summary's sentences)
        if realsumm_premise not in ("sentence", "summary"):
            raise ValueError(f"realsumm_premise must be 'sentence' or 'summary', not {realsumm_premise!r}")
        for i, (summary, scus) in enumerate(zip(df[proto.premise_column], df[proto.claim_column])):
            pieces = split_sentences(summary) if realsumm_premise == "sentence" else [summary]
            pieces = pieces or [""]
            for j, scu in enumerate(scus):
                for k, piece in enumerate(pieces):
                    premises.append(piece)
                    claims.append(scu)
                    unit.append(i)
                    item.append(j)
                    part.append(k)
    else:  # one claim per unit, split into Punkt pieces (QAGS: a sentence against the article)
        for i, (article, sentence) in enumerate(zip(df[proto.premise_column], df[proto.claim_column])):
            for j, piece in enumerate(split_sentences(sentence) or [sentence]):
                premises.append(article)
                claims.append(piece)
                unit.append(i)
                item.append(j)
                part.append(0)
    return Claims(premises, claims, np.asarray(unit, int), np.asarray(item, int), np.asarray(part, int))


def answer_questions(df: pd.DataFrame, dataset: "str | DatasetSpec", claims: Claims, prob_supported: np.ndarray,
                     threshold: float = 0.5) -> pd.DataFrame:
    """Roll pair probabilities up into the dataset's question.

    REALSumm: an SCU's probability is the *maximum* over its premises (one summary
    sentence suffices); ``scu_pred`` = probability >= threshold, aligned with ``scus``.
    QAGS: a sentence's probability is the *minimum* over its Punkt pieces (all must
    hold); ``pred`` = 1 if probability >= threshold, else 0.
    """
    prob = np.asarray(prob_supported, dtype=float)
    out = pd.DataFrame({"unit_id": df["unit_id"].to_numpy()})
    proto = datasets.get(dataset).proto
    if proto.per_item:
        n_scus = [len(s) for s in df[proto.claim_column]]
        per_scu = [np.full(n, -np.inf) for n in n_scus]
        for u, j, p in zip(claims.unit, claims.item, prob):
            per_scu[u][j] = max(per_scu[u][j], p)
        out["scu_prob"] = [[float(x) for x in arr] for arr in per_scu]
        out["scu_pred"] = [[bool(x >= threshold) for x in arr] for arr in per_scu]
        return out
    per_unit = np.full(len(df), np.inf)
    np.minimum.at(per_unit, claims.unit, prob)
    out["prob"] = per_unit
    out["pred"] = (per_unit >= threshold).astype(int)
    return out
