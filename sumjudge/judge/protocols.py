"""Which protocol judges which dataset, with which prompt files and label columns.

The facts live in :mod:`sumjudge.datasets` (one spec per dataset) and
:mod:`sumjudge.protocols` (one object per protocol: ``likert``, ``pairwise``,
``pyramid``, ``binary``); the names below are the views of them that the judge
stage used before the registry, kept until its callers ask the registry directly.

A *variant* is a different prompt for the same protocol. ``base`` is the paper's
plain prompt (Figures 1-4); SummEval also has the Section 4.3 variants ``def``
(+dimension definitions), ``def_ins`` (+definitions and step-by-step instructions)
and ``sys_prompt`` (+a system message).
"""
from __future__ import annotations

from ..datasets import BUILTIN
from ..datasets import get as _spec

DATASET_PROTOCOL: dict[str, str] = {n: s.protocol for n, s in BUILTIN.items()}
DATASETS = tuple(DATASET_PROTOCOL)
LIKERT_DIMENSIONS: dict[str, tuple[str, ...]] = {n: s.dimensions for n, s in BUILTIN.items() if s.dimensions}
VARIANTS: dict[str, tuple[str, ...]] = {n: s.variants for n, s in BUILTIN.items()}
ALL_VARIANTS = tuple(dict.fromkeys(v for s in BUILTIN.values() for v in s.variants))
PROMPT_FILES: dict[tuple[str, str], str] = {(n, v): f for n, s in BUILTIN.items() for v, f in s.prompts}
# Units that share this column share the article (or post): they are sent one after
# the other so a local server can reuse the article's cached prefix.
GROUP_COLUMN: dict[str, str] = {n: s.doc_column for n, s in BUILTIN.items()}

# Words a reply may use for a dimension. The paper's Figure 1 prompt calls SummEval's
# consistency "faithfulness"; the +def variants call it "consistency".
DIMENSION_ALIASES: dict[str, tuple[str, ...]] = {
    "consistency": ("consistency", "faithfulness", "factual consistency", "factuality"),
    "relevance": ("relevance", "relevancy"),
    "fluency": ("fluency",),
    "coherence": ("coherence", "coherency"),
    "informativeness": ("informativeness",),
}


def protocol(dataset: str) -> str:
    return _spec(dataset).protocol


def prompt_file(dataset: str, variant: str) -> str:
    return _spec(dataset).prompt_file(variant)


def label_columns(dataset: str) -> tuple[str, ...]:
    """The parsed-label columns of a judge table for this dataset."""
    return _spec(dataset).label_columns
