"""Which protocol judges which dataset, with which prompt files and label columns.

The paper uses four human evaluation protocols (Section 3):

- ``likert``   SummEval and Newsroom: four 1-5 scores in one reply
- ``pairwise`` TLDR: "Summary 0" or "Summary 1"
- ``pyramid``  REALSumm: Yes/No for every semantic content unit (SCU) of the reference
- ``binary``   QAGS: Yes/No, is the summary sentence supported by the article

A *variant* is a different prompt for the same protocol. ``base`` is the paper's
plain prompt (Figures 1-4); SummEval also has the Section 4.3 variants ``def``
(+dimension definitions), ``def_ins`` (+definitions and step-by-step instructions)
and ``sys_prompt`` (+a system message).
"""
from __future__ import annotations

DATASET_PROTOCOL: dict[str, str] = {
    "summeval": "likert",
    "newsroom": "likert",
    "tldr": "pairwise",
    "realsumm": "pyramid",
    "qags_cnn": "binary",
    "qags_xsum": "binary",
}

DATASETS = tuple(DATASET_PROTOCOL)

# Label columns of the Likert datasets: named exactly as the dataset's human columns.
LIKERT_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "summeval": ("consistency", "relevance", "fluency", "coherence"),
    "newsroom": ("coherence", "fluency", "informativeness", "relevance"),
}

# Words a reply may use for a dimension. The paper's Figure 1 prompt calls SummEval's
# consistency "faithfulness"; the +def variants call it "consistency".
DIMENSION_ALIASES: dict[str, tuple[str, ...]] = {
    "consistency": ("consistency", "faithfulness", "factual consistency", "factuality"),
    "relevance": ("relevance", "relevancy"),
    "fluency": ("fluency",),
    "coherence": ("coherence", "coherency"),
    "informativeness": ("informativeness",),
}

VARIANTS: dict[str, tuple[str, ...]] = {
    "summeval": ("base", "def", "def_ins", "sys_prompt"),
    "newsroom": ("base",),
    "tldr": ("base",),
    "realsumm": ("base",),
    "qags_cnn": ("base",),
    "qags_xsum": ("base",),
}
ALL_VARIANTS = ("base", "def", "def_ins", "sys_prompt")

# One template file per protocol and variant (relative to the project root).
PROMPT_FILES: dict[tuple[str, str], str] = {
    ("summeval", "base"): "prompts/likert_summeval.txt",
    ("summeval", "def"): "prompts/likert_summeval_def.txt",
    ("summeval", "def_ins"): "prompts/likert_summeval_def_ins.txt",
    ("summeval", "sys_prompt"): "prompts/likert_summeval_sys_prompt.txt",
    ("newsroom", "base"): "prompts/likert_newsroom.txt",
    ("tldr", "base"): "prompts/pairwise_tldr.txt",
    ("realsumm", "base"): "prompts/pyramid_realsumm.txt",
    ("qags_cnn", "base"): "prompts/binary_qags.txt",
    ("qags_xsum", "base"): "prompts/binary_qags.txt",
}

# Units that share this column share the article (or post): they are sent one after
# the other so a local server can reuse the article's cached prefix.
GROUP_COLUMN: dict[str, str] = {
    "summeval": "doc_id",
    "newsroom": "doc_id",
    "tldr": "post_id",
    "realsumm": "doc_id",
    "qags_cnn": "doc_id",
    "qags_xsum": "doc_id",
}


def protocol(dataset: str) -> str:
    try:
        return DATASET_PROTOCOL[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}") from None


def prompt_file(dataset: str, variant: str) -> str:
    try:
        return PROMPT_FILES[(dataset, variant)]
    except KeyError:
        raise ValueError(f"dataset {dataset!r} has no prompt variant {variant!r}; "
                         f"it has: {', '.join(VARIANTS.get(dataset, ()))}") from None


def label_columns(dataset: str) -> tuple[str, ...]:
    """The parsed-label columns of a judge table for this dataset."""
    p = protocol(dataset)
    if p == "likert":
        return LIKERT_DIMENSIONS[dataset]
    return {"pairwise": ("choice",), "pyramid": ("scu_labels",), "binary": ("label",)}[p]
