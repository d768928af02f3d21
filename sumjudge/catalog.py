"""The paper's tables: which datasets, prompt variants, levels and columns each has.

Tables 1-5 come from the registry (each built-in dataset's ``paper_table`` and
``table``; Table 5 holds both QAGS sets). The facts the registry cannot say live here
and only here: Table 6 is SummEval's prompt variants (which ones are judged:
``judge.summeval_variants``) with each expert against the three-expert mean;
Tables 7 and 8 read every judged dataset; Table 9 adds SummEval's fluency against
coherence (Section 4.3); Table 3's scoring of metric ties is configured at
``tldr.metric_ties``. Every other module asks this one: ``tests/test_dataset_branches.py``
fails on a dataset-name literal outside the registry (:mod:`sumjudge.datasets`), this
catalog and the data readers (:mod:`sumjudge.data`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .datasets import BUILTIN, DatasetSpec, get

# a correlation table's levels (= sumjudge.stats.correlation.LEVELS, which this module does not
# import: the judge rules read the catalog, and the statistics need scipy; a test keeps them equal)
LEVELS = ("sample", "system", "dataset")


@dataclass(frozen=True)
class PaperTable:
    name: str                        # results/tables/<name>.csv and .tex
    label: str                       # "Table 1" ...
    kind: str                        # correlation | accuracy | variants | replies
    datasets: tuple[str, ...] = ()   # whose rows it has (replies: () = every judged dataset)
    variants: tuple[str, ...] = ("base",)  # the prompt variants its judge rows read
    levels: tuple[str, ...] = ()     # correlation levels; ("accuracy",) for an accuracy table
    columns: tuple[str, ...] = ()    # its dimensions (correlation) or accuracy dimensions

    @property
    def specs(self) -> tuple[DatasetSpec, ...]:
        return tuple(BUILTIN[d] for d in self.datasets)

    @property
    def spec(self) -> DatasetSpec:
        """The one dataset of a one-dataset table."""
        if len(self.datasets) != 1:
            raise ValueError(f"{self.label} has {len(self.datasets)} datasets, not one: use .specs")
        return BUILTIN[self.datasets[0]]


def _registry_tables() -> dict[str, PaperTable]:
    """Tables 1-5: the registry's built-in datasets with a ``paper_table``, by ``table``."""
    grouped: dict[str, list[DatasetSpec]] = {}
    for spec in BUILTIN.values():
        if spec.paper_table and spec.table:
            grouped.setdefault(spec.table, []).append(spec)
    out = {}
    for table, specs in grouped.items():
        first = specs[0]
        correlation = first.table_kind == "correlation"
        out[table] = PaperTable(
            table, first.paper_table, first.table_kind, tuple(s.name for s in specs),
            levels=LEVELS if correlation else ("accuracy",),
            columns=first.dimensions if correlation else tuple(dict.fromkeys(s.accuracy_dimension for s in specs)))
    return out


_VARIANTS_DATASET = "summeval"
TABLES: dict[str, PaperTable] = {
    **_registry_tables(),
    "table6": PaperTable("table6", "Table 6", "variants", (_VARIANTS_DATASET,),
                         variants=BUILTIN[_VARIANTS_DATASET].variants, levels=LEVELS,
                         columns=BUILTIN[_VARIANTS_DATASET].dimensions),
    "table7": PaperTable("table7", "Table 7", "replies", variants=()),  # (): every judged dataset and variant
    "table8": PaperTable("table8", "Table 8", "replies", variants=()),
    # invalid replies of every judged dataset, and SummEval's fluency against coherence (Section 4.3)
    "table9": PaperTable("table9", "Table 9", "replies", (_VARIANTS_DATASET,), variants=BUILTIN[_VARIANTS_DATASET].variants,
                         levels=("dataset",), columns=("fluency", "coherence")),
}
VARIANTS_TABLE = TABLES["table6"]
FLUENCY_COHERENCE = TABLES["table9"]

# dataset -> config key judge.<key> choosing which of its prompt variants are judged (Table 6)
SELECTED_VARIANTS: dict[str, str] = {_VARIANTS_DATASET: "summeval_variants"}
# (config section, key) of Table 3's scoring of a metric tie: it decides the table only, not the dataset
METRIC_TIES_KEY: tuple[str, str] = ("tldr", "metric_ties")


def variants(dataset: "str | DatasetSpec", judge_cfg: dict[str, Any]) -> list[str]:
    """The prompt variants judged for a dataset (Table 6's dataset: the config key
    :data:`SELECTED_VARIANTS` names, judge.summeval_variants; used by the judge rules and
    :class:`sumjudge.settings.RunSettings`)."""
    spec = get(dataset)
    if spec.name in SELECTED_VARIANTS:
        return [v for v in judge_cfg[SELECTED_VARIANTS[spec.name]] if v in spec.variants]
    return list(spec.variants)


def judged_datasets(datasets: list[str], judge_cfg: dict[str, Any]) -> list[str]:
    """The built-in datasets the judges judge: those of ``judge.datasets`` among ``datasets``
    (in that order), then every dataset of ``datasets`` beyond the paper (no paper table:
    judged like a user's dataset, so naming it in ``datasets`` is the one line that adds
    it; docs/data.md)."""
    listed = [d for d in judge_cfg["datasets"] if d in datasets]
    return listed + [d for d in datasets if d not in listed and not get(d).paper_table]


def of_kind(kind: str) -> dict[str, PaperTable]:
    return {n: t for n, t in TABLES.items() if t.kind == kind}
