"""Which protocol judges which dataset, with which prompt files and label columns.

The facts live in :mod:`sumjudge.datasets` (one spec per dataset) and
:mod:`sumjudge.protocols` (one object per protocol: ``likert``, ``pairwise``,
``pyramid``, ``binary``); below are the accessors the judge stage uses by
dataset name, and the words a reply may use for a Likert dimension.

A *variant* is a different prompt for the same protocol. ``base`` is the paper's
plain prompt (Figures 1-4); SummEval also has the Section 4.3 variants ``def``
(+dimension definitions), ``def_ins`` (+definitions and step-by-step instructions)
and ``sys_prompt`` (+a system message).
"""
from __future__ import annotations

from ..datasets import get as _spec

# Words a reply may use for a dimension. The paper's Figure 1 prompt calls SummEval's
# consistency "faithfulness"; the +def variants call it "consistency".
DIMENSION_ALIASES: dict[str, tuple[str, ...]] = {
    "consistency": ("consistency", "faithfulness", "factual consistency", "factuality"),
    "relevance": ("relevance", "relevancy"),
    "fluency": ("fluency",),
    "coherence": ("coherence", "coherency"),
    "informativeness": ("informativeness",),
}


def protocol(dataset) -> str:
    return _spec(dataset).protocol


def prompt_file(dataset, variant: str) -> str:
    return _spec(dataset).prompt_file(variant)


def label_columns(dataset) -> tuple[str, ...]:
    """The parsed-label columns of a judge table for this dataset."""
    return _spec(dataset).label_columns
