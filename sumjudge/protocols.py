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
- which table kind it feeds (``table_kind``: ``correlation`` or ``accuracy``).

This module imports nothing from the stages: the parser is named by its dotted
path and imported when first used (as the dataset readers are in
:mod:`sumjudge.datasets`), so the import graph stays acyclic.

=========== ====================================================== ===========
protocol    human judgement                                        table kind
=========== ====================================================== ===========
``likert``  a score per dimension (SummEval, Newsroom: 1-5)         correlation
``pairwise`` which of two summaries is better (TLDR)                accuracy
``pyramid`` is each semantic content unit (SCU) in the summary      accuracy
``binary``  is this summary sentence supported by the article (QAGS) accuracy
=========== ====================================================== ===========
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

# kinds of a user-file column (validated by sumjudge.data.custom)
COLUMN_KINDS = {
    "id": "a string or an integer",
    "text": "a string",
    "number": "a number",
    "binary": "0 or 1",
    "texts": "a list of strings",
    "binaries": "a list of 0/1 values",
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
    custom_cluster: str = "doc_id"         # resampling cluster of accuracy intervals
    accuracy_dimension: str | None = None  # the `dimension` cell of an accuracy table
    metric_family: str | None = None       # the metric family it can have: reference | factuality
    metric_prediction: str | None = None   # prediction column of a factuality metric table
    per_item: bool = False                 # a unit holds a list of decisions (Pyramid: one per SCU)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

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

    def extra_columns(self, reply: str | None, parsed, entry: Mapping[str, Any] | None,
                      dimensions: Sequence[str] = ()) -> dict[str, Any]:
        """Columns beside the labels of one judge-table row (``reply`` None: an API error)."""
        return {}

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
        return {"Article": row[spec.article_column], "Summary": row["summary"],
                "Dimensions": ", ".join(spec.dimensions)}

    def parse(self, reply, finish_reason, unit, dimensions=()):
        return resolve(self.parser)(reply, dimensions, finish_reason, summary=unit.get("summary"),
                                    article=unit.get("article"))

    def uses_logprobs(self):
        return True

    def extra_columns(self, reply, parsed, entry, dimensions=()):
        """``{dim}_weighted``: the logprob-weighted score (NaN without logprobs)."""
        if reply is None:
            return {f"{d}_weighted": math.nan for d in dimensions}
        weighted = resolve("sumjudge.judge.parse:weighted_likert")(reply, parsed.spans,
                                                                    (entry or {}).get("logprobs"))
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
    def unit_fields(self, row, spec):
        return {"Article": row[spec.article_column], "Title": row.get("title") or "",
                "Subreddit": row.get("subreddit") or "",
                "Summary_0": row["summary_0"], "Summary_1": row["summary_1"]}

    def parse(self, reply, finish_reason, unit, dimensions=()):
        return resolve(self.parser)(reply, finish_reason)


class Pyramid(Protocol):
    def unit_fields(self, row, spec):
        return {"Summary": row["summary"], "SCUs": format_scus(row["scus"]),
                "Article": row.get(spec.article_column) or ""}

    def parse(self, reply, finish_reason, unit, dimensions=()):
        return resolve(self.parser)(reply, len(unit["scus"]), finish_reason)


class Binary(_OneLabel):
    def unit_fields(self, row, spec):
        return {"Article": row[spec.article_column], "Sentence": row["sentence"],
                "Summary": row.get("summary") or ""}

    def parse(self, reply, finish_reason, unit, dimensions=()):
        return resolve(self.parser)(reply, finish_reason)


def format_scus(scus) -> str:
    return "\n".join(f"{i}. {scu}" for i, scu in enumerate(scus, 1))


_PARSE = "sumjudge.judge.parse:"

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (
    Likert(
        name="likert", table_kind="correlation",
        columns=(Column("doc_id", "id"), Column("system", "id"), Column("article", "text"),
                 Column("summary", "text"), Column("reference", "text", required=False)),
        unit_key=("doc_id", "system"), summary_columns=("summary",),
        prompt_fields=frozenset({"Article", "Summary"}), judge_labels=(),
        default_prompt="prompts/likert.txt", parser=_PARSE + "parse_likert",
        metric_family="reference"),
    Pairwise(
        name="pairwise", table_kind="accuracy",
        columns=(Column("pair_id", "id"), Column("article", "text"), Column("summary_0", "text"),
                 Column("summary_1", "text"), Column("label", "binary"),
                 Column("doc_id", "id", required=False), Column("reference", "text", required=False)),
        unit_key=("pair_id",), summary_columns=("summary_0", "summary_1"),
        prompt_fields=frozenset({"Summary_0", "Summary_1"}), judge_labels=("choice",),
        default_prompt="prompts/pairwise_tldr.txt", parser=_PARSE + "parse_pairwise",
        custom_gold=("label",), custom_cluster="doc_id", accuracy_dimension="pairwise",
        metric_family="reference"),
    Pyramid(
        name="pyramid", table_kind="accuracy",
        columns=(Column("doc_id", "id"), Column("system", "id"), Column("summary", "text"),
                 Column("scus", "texts"), Column("labels", "binaries")),
        unit_key=("doc_id", "system"), summary_columns=("summary",),
        prompt_fields=frozenset({"Summary", "SCUs"}), judge_labels=("scu_labels",),
        default_prompt="prompts/pyramid_realsumm.txt", parser=_PARSE + "parse_pyramid",
        custom_gold=("labels",), custom_cluster="unit_id", accuracy_dimension="SCU_presence",
        metric_family="factuality", metric_prediction="scu_pred", per_item=True),
    Binary(
        name="binary", table_kind="accuracy",
        columns=(Column("doc_id", "id"), Column("system", "id"), Column("article", "text"),
                 Column("sentence", "text"), Column("label", "binary"),
                 Column("summary", "text", required=False)),
        unit_key=("doc_id", "system", "sentence"), summary_columns=("summary",),
        prompt_fields=frozenset({"Sentence"}), judge_labels=("label",),
        default_prompt="prompts/binary_qags.txt", parser=_PARSE + "parse_binary",
        custom_gold=("label",), custom_cluster="summary_id", accuracy_dimension="factuality",
        metric_family="factuality", metric_prediction="pred"),
)}


def get(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; known: {', '.join(PROTOCOLS)}") from None
