"""The dataset registry: every fact about a dataset, declared once.

One frozen :class:`DatasetSpec` per dataset says which protocol judges it
(:mod:`sumjudge.protocols`), which pinned files feed it and in which role, its
columns (document, system, resampling cluster, gold labels or human scores,
article, reference), its Likert dimensions, how the tables label it, the
paper's table, which metric families apply, and its prompt variants. Every
stage reads it; ``workflow/rules/common.smk`` derives the wildcard constraints
from it, and ``tests/test_datasets.py`` checks that the config schema's enums
equal it.

The built-in datasets are :data:`BUILTIN`: the paper's six, and datasets beyond the
paper (``paper_table`` None: a table of their own, like a user's dataset, when named
in the config's ``datasets``; docs/data.md); a user's own datasets come from
the config key ``custom_datasets`` (:func:`custom_spec`, :func:`registry`; see
docs/extending.md). This module imports nothing from the stages: a dataset's
reader is named by its dotted path (``"sumjudge.data.summeval:prepare"``) and
imported by :mod:`sumjudge.data.prepare` when it runs. Which pinned file is
which lives in :mod:`sumjudge.data.sources`; a :class:`SourceRole` here only
selects among them by a glob pattern, so the registry never imports ``data/``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import Any, Callable, Iterable, Mapping

from .protocols import PROTOCOLS

METRIC_FAMILIES = ("reference", "factuality")  # reference: ROUGE, BERTScore, MoverScore, BARTScore
CUSTOM_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
CUSTOM_FORMATS = (".csv", ".jsonl", ".parquet")
# results/tables/<name>.* a user's dataset must not overwrite
RESERVED_TABLES = re.compile(r"^(table\d+|usage|replies|judge_vs_best|judge_behaviour|overview|"
                             r"published_vs_reproduced|cost_estimate)$")


class DatasetConfigError(ValueError):
    """A ``custom_datasets`` entry cannot be used as written."""


@dataclass(frozen=True)
class SourceRole:
    """Pinned files that play one role for a dataset's reader (its keyword argument).

    ``pattern`` is a glob over pinned local paths (``<folder>/<owner>+<repo>/<path>``,
    :mod:`sumjudge.data.sources`); a ``{key}`` field is filled from the dataset's
    config section (a list gives one pattern per item; a missing key matches all).
    ``many``: the reader gets a sorted list; else exactly one path.
    """

    role: str
    pattern: str
    many: bool = False

    def patterns(self, section: Mapping[str, Any] | None = None) -> list[str]:
        keys = re.findall(r"\{(\w+)\}", self.pattern)
        out = [self.pattern]
        for key in keys:
            values = (section or {}).get(key)
            values = ["*"] if values is None else [values] if isinstance(values, str) else list(values)
            out = [p.replace("{" + key + "}", str(v)) for p in out for v in values]
        return out

    def select(self, paths: Iterable[str], section: Mapping[str, Any] | None = None) -> list[str]:
        pats = self.patterns(section)
        return sorted(p for p in paths if any(fnmatch(p, pat) for pat in pats))


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    protocol: str                           # a key of sumjudge.protocols.PROTOCOLS
    label: str                              # how tables and the report name it
    paper_table: str | None = None          # "Table 1" ... (None: not in the paper)
    table: str | None = None                # results/tables/<table>.csv (Table 5 holds both QAGS)
    # where the rows come from
    folder: str | None = None               # upstream folder of its pinned files (results/raw/<folder>/...)
    sources: tuple[SourceRole, ...] = ()    # pinned files by reader role
    reader: str = "sumjudge.data.custom:prepare"
    options_key: str | None = None          # config section whose reader_options go to the reader
    reader_options: tuple[str, ...] = ()
    reader_kwargs: tuple[tuple[str, Any], ...] = ()  # fixed keyword arguments of the reader
    path: str | None = None                 # a user's dataset: its file
    custom: bool = False
    # columns of the prepared table
    doc_column: str = "doc_id"              # units sharing it share the article (request order, subsets)
    system_column: str | None = "system"
    cluster_column: str = "doc_id"          # resampling cluster of accuracy intervals
    article_column: str = "article"         # what the summary summarises (TLDR: the post)
    reference_column: str | None = None     # reference summary (SummEval: a list of 11)
    gold_columns: tuple[str, ...] = ()      # human labels / scores the judge is compared with
    dimensions: tuple[str, ...] = ()        # Likert: the dimensions asked for (= gold columns)
    accuracy_dimension: str | None = None   # the `dimension` cell of its accuracy table
    metric_families: tuple[str, ...] = ()   # which baseline metric families apply
    prompts: tuple[tuple[str, str], ...] = field(default=())  # (variant, template file), base first
    scale: tuple[float, float] | None = None  # Likert: the scores' range when not the protocol's (SQuALITY 0-100)
    prompt_columns: tuple[tuple[str, str], ...] = ()  # further (placeholder, column) a prompt reads (a question)

    @property
    def proto(self):
        """The :class:`sumjudge.protocols.Protocol` object."""
        return PROTOCOLS[self.protocol]

    @property
    def likert_scale(self) -> tuple[float, float] | None:
        """The lowest and highest score a judge is asked for and humans gave: the
        dataset's own ``scale``, else its protocol's."""
        return self.scale or self.proto.scale

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(v for v, _ in self.prompts)

    def prompt_file(self, variant: str = "base") -> str:
        for v, path in self.prompts:
            if v == variant:
                return path
        raise ValueError(f"dataset {self.name!r} has no prompt variant {variant!r}; "
                         f"it has: {', '.join(self.variants)}")

    @property
    def label_columns(self) -> tuple[str, ...]:
        """Parsed-label columns of its judge tables."""
        return self.proto.label_columns(self.dimensions)

    @property
    def table_kind(self) -> str:
        return self.proto.table_kind

    @property
    def summary_columns(self) -> tuple[str, ...]:
        return self.proto.summary_columns


_QAGS = dict(protocol="binary", paper_table="Table 5", table="table5", folder="qags",
             reader="sumjudge.data.qags:prepare", system_column=None, gold_columns=("label",),
             accuracy_dimension="factuality", metric_families=("factuality",),
             prompts=(("base", "prompts/binary_qags.txt"),))

BUILTIN: dict[str, DatasetSpec] = {s.name: s for s in (
    DatasetSpec(
        name="summeval", protocol="likert", label="SummEval", paper_table="Table 1", table="table1",
        folder="summeval", reader="sumjudge.data.summeval:prepare",
        sources=(SourceRole("pickle_path", "summeval/neulab+BARTScore/SUM/SummEval/data.pkl"),
                 SourceRole("annotation_files", "summeval/DAMO-NLP-SG+LLM_summeval/model_output_annotations/"
                                                "*_outputs_annotations.jsonl", many=True),
                 SourceRole("experts_path", "summeval/nitaytech+AltTest/data/summeval/human_annotations.json")),
        reference_column="references",
        gold_columns=("consistency", "relevance", "fluency", "coherence"),
        dimensions=("consistency", "relevance", "fluency", "coherence"),
        metric_families=("reference",),
        prompts=(("base", "prompts/likert_summeval.txt"), ("def", "prompts/likert_summeval_def.txt"),
                 ("def_ins", "prompts/likert_summeval_def_ins.txt"),
                 ("sys_prompt", "prompts/likert_summeval_sys_prompt.txt"))),
    DatasetSpec(
        name="newsroom", protocol="likert", label="Newsroom", paper_table="Table 2", table="table2",
        folder="newsroom", reader="sumjudge.data.newsroom:prepare",
        sources=(SourceRole("pickle_path", "newsroom/neulab+BARTScore/SUM/Newsroom/data.pkl"),
                 SourceRole("judgebench_path", "newsroom/dmg-illc+JUDGE-BENCH/data/newsroom/newsroom.json")),
        reference_column="reference",
        gold_columns=("coherence", "fluency", "informativeness", "relevance"),
        dimensions=("coherence", "fluency", "informativeness", "relevance"),
        metric_families=("reference",), prompts=(("base", "prompts/likert_newsroom.txt"),)),
    DatasetSpec(
        name="tldr", protocol="pairwise", label="TLDR", paper_table="Table 3", table="table3",
        folder="tldr", reader="sumjudge.data.tldr:prepare",
        sources=(SourceRole("batch_files", "tldr/redwoodresearch+mlab/comparisons/{batches}.json", many=True),),
        options_key="tldr", reader_options=("splits", "drop_reference_pairs", "require_reference"),
        doc_column="post_id", system_column=None, cluster_column="post_id", article_column="post",
        reference_column="reference", gold_columns=("choice",), accuracy_dimension="pairwise",
        metric_families=("reference",), prompts=(("base", "prompts/pairwise_tldr.txt"),)),
    DatasetSpec(
        name="realsumm", protocol="pyramid", label="REALSumm", paper_table="Table 4", table="table4",
        folder="realsumm", reader="sumjudge.data.realsumm:prepare",
        sources=(SourceRole("pickle_path", "realsumm/neulab+BARTScore/SUM/REALSumm/data.pkl"),
                 SourceRole("scu_list_path", "realsumm/neulab+REALSumm/human_annotations/SCUs_and_annotations/"
                                             "SCUs_list.csv"),
                 SourceRole("rating_files", "realsumm/neulab+REALSumm/human_annotations/SCUs_and_annotations/"
                                            "SCU_rating_results_*/*.csv", many=True)),
        options_key="realsumm", reader_options=("tie",),
        cluster_column="unit_id", reference_column="reference", gold_columns=("scu_labels",),
        accuracy_dimension="SCU_presence", metric_families=("factuality",),
        prompts=(("base", "prompts/pyramid_realsumm.txt"),)),
    DatasetSpec(name="qags_cnn", label="QAGS_CNN",
                sources=(SourceRole("jsonl_path", "qags/W4ngatang+qags/data/mturk_cnndm.jsonl"),), **_QAGS),
    DatasetSpec(name="qags_xsum", label="QAGS_XSUM",
                sources=(SourceRole("jsonl_path", "qags/W4ngatang+qags/data/mturk_xsum.jsonl"),), **_QAGS),
    # beyond the paper (issue 26; docs/data.md): no paper table, a table of their own like a user's dataset
    DatasetSpec(
        name="dialsummeval", protocol="likert", label="DialSummEval", table="dialsummeval",
        folder="dialsummeval", reader="sumjudge.data.dialsummeval:prepare",
        sources=(SourceRole("campus_path", "dialsummeval/kite99520+DialSummEval/annotation_campus/"
                                           "human_judgment.jsonl"),
                 SourceRole("amt_files", "dialsummeval/kite99520+DialSummEval/annotation_AMT/raw/"
                                         "Batch_*_batch_results.csv", many=True),
                 SourceRole("samsum_path", "dialsummeval/BinWang28+FacEval/data/samsum.test.jsonl")),
        reference_column="reference",
        gold_columns=("consistency", "relevance", "fluency", "coherence"),
        dimensions=("consistency", "relevance", "fluency", "coherence"),
        metric_families=("reference",), prompts=(("base", "prompts/likert_dialsummeval.txt"),)),
    DatasetSpec(
        name="squality", protocol="likert", label="SQuALITY", table="squality",
        folder="squality", reader="sumjudge.data.squality:prepare",
        sources=(SourceRole("responses_path", "squality/nyu-mll+SQuALITY/data/human-eval/all-responses.jsonl"),
                 SourceRole("stories_path", "squality/nyu-mll+SQuALITY/data/v1-3/txt/test.jsonl")),
        cluster_column="doc_id", reference_column="references",
        gold_columns=("correctness", "coverage", "overall"), dimensions=("correctness", "coverage", "overall"),
        metric_families=("reference",), scale=(0, 100), prompt_columns=(("Question", "question"),),
        prompts=(("base", "prompts/likert_squality.txt"),)),
)}

# the paper's datasets: the default config's `datasets` (the others are switched on there, docs/data.md)
DATASETS: tuple[str, ...] = tuple(n for n, s in BUILTIN.items() if s.paper_table)


# ------------------------------------------------------------------ a user's datasets

def custom_spec(name: str, entry: Mapping[str, Any], columns: Iterable[str] | None = None) -> DatasetSpec:
    """The spec of ``custom_datasets.<name>`` (``entry``: its config).

    ``columns``: the file's column names when known (the workflow peeks at the
    file); a Likert or pairwise dataset then has the reference metrics only if it
    has a ``reference`` column. Unknown columns (None) assume it has one.
    """
    key = f"custom_datasets.{name}"
    if not CUSTOM_NAME.match(name):
        raise DatasetConfigError(f"config key '{key}': a dataset name must be lower-case letters, digits "
                                 "and '_', starting with a letter (it is used in file names)")
    if name in BUILTIN:
        raise DatasetConfigError(f"config key '{key}': {name!r} is a built-in dataset; "
                                 "give your dataset another name")
    if RESERVED_TABLES.match(name):
        raise DatasetConfigError(f"config key '{key}': {name!r} is the name of one of the pipeline's own "
                                 "tables (results/tables/); give your dataset another name")
    protocol = entry.get("protocol")
    if protocol not in PROTOCOLS:
        raise DatasetConfigError(f"config key '{key}.protocol': {protocol!r} is not allowed; "
                                 f"allowed values: {', '.join(PROTOCOLS)}")
    path = str(entry.get("path") or "")
    if not path.endswith(CUSTOM_FORMATS):
        raise DatasetConfigError(f"config key '{key}.path': {path!r} must end in "
                                 f"{', '.join(CUSTOM_FORMATS)} (the format is read from the extension)")
    proto = PROTOCOLS[protocol]
    dims = tuple(entry.get("dimensions") or ())
    if proto.per_dimension and not dims:
        raise DatasetConfigError(f"config key '{key}.dimensions': a likert dataset needs its human-score "
                                 "columns here, e.g. [coherence, relevance]")
    if not proto.per_dimension and dims:
        raise DatasetConfigError(f"config key '{key}.dimensions': only a likert dataset has dimensions; "
                                 f"use [] for a {protocol} dataset")
    taken = {c.name for c in proto.columns} | {"unit_id"}
    if taken & set(dims):
        raise DatasetConfigError(f"config key '{key}.dimensions': {', '.join(sorted(taken & set(dims)))} "
                                 "is a column of every likert dataset, not a score; rename the score column")
    if len(set(dims)) != len(dims):
        raise DatasetConfigError(f"config key '{key}.dimensions': a dimension is listed twice")
    has_reference = "reference" in proto.column_names if columns is None else "reference" in set(columns)
    families = (proto.metric_family,) if proto.metric_family == "factuality" or (
        proto.metric_family == "reference" and has_reference) else ()
    return DatasetSpec(
        name=name, protocol=protocol, label=name, table=name, path=path, custom=True,
        reader="sumjudge.data.custom:prepare",
        reader_kwargs=(("protocol", protocol), ("dimensions", dims)),
        system_column="system" if any(c.name == "system" for c in proto.columns) else None,
        cluster_column=proto.custom_cluster,
        reference_column="reference" if proto.metric_family == "reference" else None,
        gold_columns=dims or proto.custom_gold, dimensions=dims,
        accuracy_dimension=proto.accuracy_dimension, metric_families=families,
        prompts=(("base", entry.get("prompt") or proto.default_prompt),))


def registry(config: Mapping[str, Any] | None = None,
             columns: Callable[[str], Iterable[str] | None] | None = None) -> dict[str, DatasetSpec]:
    """Built-in specs, then one per ``custom_datasets`` entry of ``config``.

    ``columns(path)`` may report a user's file's column names (see :func:`custom_spec`).
    """
    specs = dict(BUILTIN)
    for name, entry in ((config or {}).get("custom_datasets") or {}).items():
        specs[name] = custom_spec(name, entry or {}, columns(str((entry or {}).get("path"))) if columns else None)
    return specs


def get(dataset: "str | DatasetSpec", config: Mapping[str, Any] | None = None) -> DatasetSpec:
    """The spec of ``dataset`` (a name, or already a spec); custom names need ``config``."""
    if isinstance(dataset, DatasetSpec):
        return dataset
    specs = registry(config) if config and config.get("custom_datasets") else BUILTIN
    try:
        return specs[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; known: {', '.join(specs)}") from None


def names(specs: Mapping[str, DatasetSpec] | None = None, *, family: str | None = None,
          protocol: str | None = None, custom: bool | None = None, paper: bool | None = None) -> list[str]:
    """Dataset names in registry order, optionally of one metric family / protocol, a
    user's or not, the paper's (a ``paper_table``) or not."""
    return [n for n, s in (specs if specs is not None else BUILTIN).items()
            if (family is None or family in s.metric_families)
            and (protocol is None or s.protocol == protocol)
            and (custom is None or s.custom == custom)
            and (paper is None or bool(s.paper_table) == paper)]


def own_table(spec: DatasetSpec) -> bool:
    """Whether the dataset has a result table of its own (results/tables/<table>.csv),
    judged and scored like a user's dataset: a user's dataset, or a built-in one
    beyond the paper (no ``paper_table``)."""
    return spec.custom or not spec.paper_table


def schema_enums() -> dict[str, list[str]]:
    """The names the config schema allows, by its ``$defs`` entry (sumjudge.config.load_schema)."""
    return {"builtin_dataset": names(), "reference_dataset": names(family="reference"),
            "factuality_dataset": names(family="factuality"), "protocol": list(PROTOCOLS),
            "summeval_variant": list(BUILTIN["summeval"].variants)}


def folders(specs: Mapping[str, DatasetSpec] | None = None) -> list[str]:
    """Upstream folders of the pinned files (the `fetch` rule's wildcard constraint)."""
    return list(dict.fromkeys(s.folder for s in (specs or BUILTIN).values() if s.folder))


def alternation(values: Iterable[str]) -> str:
    """A wildcard constraint matching exactly ``values`` (none: matches nothing)."""
    values = list(values)
    return "|".join(re.escape(v) for v in values) if values else "(?!)"
