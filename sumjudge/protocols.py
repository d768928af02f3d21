"""The four human evaluation protocols of the paper (Section 3), one object each.

A :class:`Protocol` says everything the stages need to know about a protocol, so
that no stage branches on its name:

- which columns a user's own file must have (``columns``, ``unit_key``; see
  ``custom_datasets`` in docs/extending.md) and which are the summaries
  (``summary_columns``);
- which placeholders a prompt template cannot do without (``prompt_fields``) and
  how one dataset row fills them (:meth:`Protocol.unit_fields`);
- which label columns a judge table holds (:meth:`Protocol.label_columns`), how a
  reply is parsed (:meth:`Protocol.parse`, delegating to
  :mod:`sumjudge.judge.parse`) and typed (:meth:`Protocol.coerce`);
- which table kind it feeds (``table_kind``: ``correlation`` or ``accuracy``);
- what the later stages ask of it: what a unit is in words (``unit_words``, the
  caveats), what a 0/1 answer means (``answer_names``, the behaviour table), how
  long a reply typically is (:meth:`Protocol.expected_output_tokens`, the cost
  estimate), whether its two summaries can be asked the other way round
  (``swappable``, ``judge.pairwise_orders``), the columns of another tool's scores
  file (``import_columns``, :mod:`sumjudge.judge.imported`), what a factuality
  metric asks of a unit (``claim_column``, ``premise_column``), how a user's file
  gets its ids (:meth:`Protocol.add_ids`) and what a row of it must satisfy beyond
  its columns (:meth:`Protocol.row_problem`).

A stage asks these; it never compares a protocol's name (``tests/test_protocol_branches.py``
fails on a branch on a protocol name outside this module and :mod:`sumjudge.datasets`).

This module imports nothing from the stages: the parser is named by its dotted
path and imported when first used (as the dataset readers are in
:mod:`sumjudge.datasets`), so the import graph stays acyclic.

protocol    human judgement                                        table kind
=========== ====================================================== ===========
``likert``       a score per dimension (SummEval, Newsroom: 1-5; a dataset     correlation
                 may declare its own ``scale``: SQuALITY 0-100)
            may declare its own ``scale``: SQuALITY 0-100)
``pairwise`` which of two summaries is better (TLDR)                accuracy
``pyramid`` is each semantic content unit (SCU) in the summary      accuracy
``binary``  is this summary sentence supported by the article (QAGS) accuracy
=========== ====================================================== ===========
=======
================ ======================================================== ===========
protocol         human judgement                                          table kind
================ ======================================================== ===========
``likert``       a score per dimension (SummEval, Newsroom: 1-5; a dataset     correlation
                 may declare its own ``scale``: SQuALITY 0-100)
``pairwise``     which of two summaries is better (TLDR)                  accuracy
``pairwise_tie`` the same, with a tie answer (HELM news: "Equally Good")  accuracy
``pyramid``      is each semantic content unit (SCU) in the summary       accuracy
``binary``       is this summary sentence supported by the article (QAGS) accuracy
================ ======================================================== ===========
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

# kinds of a user-file column (validated by sumjudge.data.custom)
COLUMN_KINDS = {
    "id": "a string or an integer",
    "text": "a string",
    "number": "a number",
    "flag": "0 or 1",
    "texts": "a list of strings",
    "flags": "a list of 0/1 values",
    "choice3": "0, 1 or 2 (2: a tie)",
}


@dataclass(frozen=True)
class Column:
    """One column of a user's dataset file."""

    name: str
    kind: str              # a key of COLUMN_KINDS
    required: bool = True


def resolve(dotted: str) -> Callable:
    """``"package.module:function"`` -> the function (imported on first use)."""
    module, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Protocol:
    """What a protocol is; subclasses fill a prompt, parse a reply and type labels."""

    name: str
    table_kind: str                        # correlation | accuracy
    columns: tuple[Column, ...]            # a user's file (Likert: plus one number per dimension)
    unit_key: tuple[str, ...]              # columns that identify one unit: a repeat is an error
    summary_columns: tuple[str, ...]       # the judged summaries (pairwise: two)
    prompt_fields: frozenset[str]          # placeholders a template of this protocol must contain
    judge_labels: tuple[str, ...]          # label columns of a judge table (Likert: the dimensions)
    default_prompt: str                    # template for a user's dataset with `prompt: null`
    parser: str                            # dotted name of the parse function in sumjudge.judge.parse
    # the defaults of a user's dataset of this protocol (sumjudge.datasets.custom_spec)
    custom_gold: tuple[str, ...] = ()      # gold label columns (Likert: the dimensions)
    custom_cluster: str = "doc_id"         # resampling cluster (intervals, paired tests): the document
    accuracy_dimension: str | None = None  # the `dimension` cell of an accuracy table
    metric_family: str | None = None       # the metric family it can have: reference | factuality
    metric_prediction: str | None = None   # prediction column of a factuality metric table
    per_item: bool = False                 # a unit holds a list of decisions (Pyramid: one per SCU)
    per_dimension: bool = False            # a unit gets a score per dimension (Likert: the dataset's)
    scale: tuple[float, float] | None = None  # the lowest and highest score (Likert: 1-5)
    unit_words: str = "units"              # what one unit is, in words (the tables' caveats)
    answer_names: tuple[str, ...] = ()     # what answer 0, 1, ... means (a Likert answer is its score)
    expected_output: int = 0               # completion tokens of a reply that does what it is asked
    swappable: bool = False                # its two summaries can be asked the other way round
    length_bias: bool = False              # the leaderboard relates its answers to summary length
    import_columns: tuple[str, ...] = ()   # another tool's scores file (empty: no import)
    claim_column: str | None = None        # a factuality metric's claim(s) per unit ...
    premise_column: str | None = None      # ... checked against this column
    tie_answer: int | None = None          # the label of a tie answer (pairwise_tie: 2, "equally good"); None: no tie

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def has_tie(self) -> bool:
        """Whether an answer may be a tie (:attr:`tie_answer`; how a tie is scored: docs/statistics.md,
        "Pairwise with a tie")."""
        return self.tie_answer is not None

    @property
    def compares(self) -> bool:
        """Whether a unit is two summaries and the label says which is better (pairwise):
        a metric decides by comparing its two scores (a tie is possible), and Table 3
        prints some metric names differently."""
        return len(self.summary_columns) == 2

    def expected_output_tokens(self, row: Mapping[str, Any]) -> int:
        """A typical completion's tokens for one dataset row (the cost estimate)."""
        return self.expected_output

    # -- a user's file (sumjudge.data.custom) --------------------------------------
    def row_problem(self, row: Mapping[str, Any]) -> tuple[str, str] | None:
        """(problem, fix) when a checked row of a user's file is inconsistent, else None."""
        return None

    def add_ids(self, df):
        """Give a user's prepared table its ``unit_id`` (and other id columns; in place)."""
        df["unit_id"] = df["doc_id"] + "/" + df["system"]
        return df

    # -- judge tables -------------------------------------------------------------
    def label_columns(self, dimensions: Sequence[str] = ()) -> tuple[str, ...]:
        """The parsed-label columns of a judge table (Likert: ``dimensions``)."""
        return self.judge_labels

    def unit_fields(self, row: Mapping[str, Any], spec) -> dict[str, str]:
        """The placeholder values of one dataset row (``spec``: its DatasetSpec)."""
        raise NotImplementedError

    def parse(self, reply: str, finish_reason: str | None, unit: Mapping[str, Any],
              dimensions: Sequence[str] = ()):
        """The reply's labels as a :class:`sumjudge.judge.parse.Parsed`."""
        raise NotImplementedError

    def parse_for(self, spec, reply: str, finish_reason: str | None, unit: Mapping[str, Any]):
        """:meth:`parse` for one dataset (``spec``: its DatasetSpec): what the judge stage
        calls. Likert also reads the dataset's score range (``spec.likert_scale``)."""
        return self.parse(reply, finish_reason, unit, spec.dimensions)

    def extra_columns(self, reply: str | None, parsed, entry: Mapping[str, Any] | None,
                      dimensions: Sequence[str] = ()) -> dict[str, Any]:
        """Columns beside the labels of one judge-table row (``reply`` None: an API error)."""
        return {}

    def extra_columns_for(self, spec, reply: str | None, parsed, entry: Mapping[str, Any] | None) -> dict[str, Any]:
        """:meth:`extra_columns` for one dataset (``spec``: its DatasetSpec): what the judge
        stage calls. Likert also reads the dataset's score range."""
        return self.extra_columns(reply, parsed, entry, spec.dimensions)

    def uses_logprobs(self) -> bool:
        """Whether :meth:`extra_columns` reads the reply's logprobs (a judge's
        ``top_logprobs`` is sent for this protocol's requests only)."""
        return False

    def coerce(self, table, dimensions: Sequence[str] = ()):
        """Give the label columns of a judge table their dtype (in place; returns it)."""
        return table


class Likert(Protocol):
    def label_columns(self, dimensions: Sequence[str] = ()) -> tuple[str, ...]:
        return tuple(dimensions)

    def unit_fields(self, row, spec):
        """``{Article}``, ``{Summary}``, ``{Dimensions}``, and each of the dataset's
        ``prompt_columns`` (SQuALITY: ``{Question}``)."""
        return {"Article": row[spec.article_column], "Summary": row["summary"],
                "Dimensions": ", ".join(spec.dimensions),
                **{field: row[column] for field, column in spec.prompt_columns}}

    def parse_for(self, spec, reply, finish_reason, unit):
        return self.parse(reply, finish_reason, unit, spec.dimensions, spec.likert_scale)

    def parse(self, reply, finish_reason, unit, dimensions=(), scale=None):
        """``scale``: the dataset's (low, high) score range (None: the protocol's, 1-5)."""
        low, high = scale or self.scale
        return resolve(self.parser)(reply, dimensions, finish_reason, summary=unit.get("summary"),
                                    article=unit.get("article"), low=low, high=high)

    def uses_logprobs(self):
        return True

    def extra_columns_for(self, spec, reply, parsed, entry):
        return self.extra_columns(reply, parsed, entry, spec.dimensions, spec.likert_scale)

    def extra_columns(self, reply, parsed, entry, dimensions=(), scale=None):
        """``{dim}_weighted``: the logprob-weighted score (NaN without logprobs, and on a
        scale whose scores are not single digits, e.g. 0-100)."""
        if reply is None:
            return {f"{d}_weighted": math.nan for d in dimensions}
        low, high = scale or self.scale
        weighted = resolve("sumjudge.judge.parse:weighted_likert")(reply, parsed.spans,
                                                                    (entry or {}).get("logprobs"), low, high)
        return {f"{d}_weighted": weighted.get(d, math.nan) for d in dimensions}

    def coerce(self, table, dimensions=()):
        import pandas as pd

        for d in dimensions:
            table[d] = pd.to_numeric(table[d], errors="coerce").astype(float)
        return table


class _OneLabel(Protocol):
    """Pairwise and binary: one 0/1 label per unit, typed as nullable Int64."""

    def coerce(self, table, dimensions=()):
        import pandas as pd

        col = self.judge_labels[0]
        table[col] = pd.array(table[col].tolist(), dtype="Int64")
        return table


class Pairwise(_OneLabel):
    def add_ids(self, df):
        df["unit_id"] = df["pair_id"]
        df["doc_id"] = df["doc_id"].where(df["doc_id"].notna(), df["pair_id"]) if "doc_id" in df else df["pair_id"]
        return df

    def unit_fields(self, row, spec):
        return {"Article": row[spec.article_column], "Title": row.get("title") or "",
                "Subreddit": row.get("subreddit") or "",
                "Summary_0": row["summary_0"], "Summary_1": row["summary_1"]}

    def parse(self, reply, finish_reason, unit, dimensions=()):
        return resolve(self.parser)(reply, finish_reason)


class Pyramid(Protocol):
    def expected_output_tokens(self, row):
        return 4 * len(row["scus"]) + 2  # "12. Yes\n" per SCU

    def row_problem(self, row):
        if len(row["labels"]) != len(row["scus"]):
            return (f"{len(row['scus'])} SCUs but {len(row['labels'])} labels",
                    "give one label (0/1) per SCU, in the same order")
        return None

    def unit_fields(self, row, spec):
        return {"Summary": row["summary"], "SCUs": format_scus(row["scus"]),
                "Article": row.get(spec.article_column) or ""}

    def parse(self, reply, finish_reason, unit, dimensions=()):
        return resolve(self.parser)(reply, len(unit["scus"]), finish_reason)


class Binary(_OneLabel):
    def add_ids(self, df):
        df["summary_id"] = df["doc_id"] + "/" + df["system"]
        df["sentence_idx"] = df.groupby("summary_id", sort=False).cumcount()
        df["unit_id"] = df["summary_id"] + "/" + df["sentence_idx"].astype(str)
        return df

    def unit_fields(self, row, spec):
        return {"Article": row[spec.article_column], "Sentence": row["sentence"],
                "Summary": row.get("summary") or ""}

    def parse(self, reply, finish_reason, unit, dimensions=()):
        return resolve(self.parser)(reply, finish_reason)


def format_scus(scus) -> str:
    return "\n".join(f"{i}. {scu}" for i, scu in enumerate(scus, 1))


_PARSE = "sumjudge.judge.parse:"

_PAIRWISE = Pairwise(
    name="pairwise", table_kind="accuracy",
    columns=(Column("pair_id", "id"), Column("article", "text"), Column("summary_0", "text"),
             Column("summary_1", "text"), Column("label", "flag"),
             Column("doc_id", "id", required=False), Column("reference", "text", required=False)),
    unit_key=("pair_id",), summary_columns=("summary_0", "summary_1"),
    prompt_fields=frozenset({"Summary_0", "Summary_1"}), judge_labels=("choice",),
    default_prompt="prompts/pairwise_tldr.txt", parser=_PARSE + "parse_pairwise",
    custom_gold=("label",), custom_cluster="doc_id", accuracy_dimension="pairwise",
    metric_family="reference", unit_words="summary pairs", answer_names=("summary 0", "summary 1"),
    expected_output=4, swappable=True, length_bias=True, import_columns=("unit_id", "choice"))

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (
    Likert(
        name="likert", table_kind="correlation",
        columns=(Column("doc_id", "id"), Column("system", "id"), Column("article", "text"),
                 Column("summary", "text"), Column("reference", "text", required=False)),
        unit_key=("doc_id", "system"), summary_columns=("summary",),
        prompt_fields=frozenset({"Article", "Summary"}), judge_labels=(),
        default_prompt="prompts/likert.txt", parser=_PARSE + "parse_likert",
        metric_family="reference", per_dimension=True, scale=(1, 5), unit_words="summaries", expected_output=40,
        length_bias=True, import_columns=("doc_id", "system", "dimension", "score")),
    _PAIRWISE,
    # the pairwise protocol with a third answer, a tie (HELM news); the TLDR protocol above is untouched
    replace(_PAIRWISE, name="pairwise_tie", columns=tuple(
        Column("label", "choice3") if c.name == "label" else c for c in _PAIRWISE.columns),
        default_prompt="prompts/pairwise_tie_helm_overall.txt", parser=_PARSE + "parse_pairwise_tie",
        answer_names=("summary 0", "summary 1", "tie"), swappable=False, tie_answer=2),
    Pyramid(
        name="pyramid", table_kind="accuracy",
        columns=(Column("doc_id", "id"), Column("system", "id"), Column("summary", "text"),
                 Column("scus", "texts"), Column("labels", "flags")),
        unit_key=("doc_id", "system"), summary_columns=("summary",),
        prompt_fields=frozenset({"Summary", "SCUs"}), judge_labels=("scu_labels",),
        default_prompt="prompts/pyramid_realsumm.txt", parser=_PARSE + "parse_pyramid",
        custom_gold=("labels",), custom_cluster="doc_id", accuracy_dimension="SCU_presence",
        metric_family="factuality", metric_prediction="scu_pred", per_item=True,
        unit_words="summaries", answer_names=("absent", "present"),
        import_columns=("doc_id", "system", "scu_index", "label"), claim_column="scus", premise_column="summary"),
    Binary(
        name="binary", table_kind="accuracy",
        columns=(Column("doc_id", "id"), Column("system", "id"), Column("article", "text"),
                 Column("sentence", "text"), Column("label", "flag"),
                 Column("summary", "text", required=False)),
        unit_key=("doc_id", "system", "sentence"), summary_columns=("summary",),
        prompt_fields=frozenset({"Sentence"}), judge_labels=("label",),
        default_prompt="prompts/binary_qags.txt", parser=_PARSE + "parse_binary",
        custom_gold=("label",), custom_cluster="doc_id", accuracy_dimension="factuality",
        metric_family="factuality", metric_prediction="pred", unit_words="summary sentences",
        answer_names=("no", "yes"), expected_output=2, import_columns=("doc_id", "sentence_idx", "label"),
        claim_column="sentence", premise_column="article"),
)}


def get(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; known: {', '.join(PROTOCOLS)}") from None
