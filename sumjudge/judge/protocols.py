"""The words a reply may use for a Likert dimension.

Which protocol judges which dataset, with which prompt files and label columns, is
the dataset's spec (:mod:`sumjudge.datasets`: ``spec.proto``, ``spec.prompt_file(variant)``,
``spec.label_columns``) and its protocol object's (:mod:`sumjudge.protocols`).

A *variant* is a different prompt for the same protocol. ``base`` is the paper's
plain prompt (Figures 1-4); SummEval also has the Section 4.3 variants ``def``
(+dimension definitions), ``def_ins`` (+definitions and step-by-step instructions)
and ``sys_prompt`` (+a system message).
"""
from __future__ import annotations

# Words a reply may use for a dimension. The paper's Figure 1 prompt calls SummEval's
# consistency "faithfulness"; the +def variants call it "consistency".
DIMENSION_ALIASES: dict[str, tuple[str, ...]] = {
    "consistency": ("consistency", "faithfulness", "factual consistency", "factuality"),
    "relevance": ("relevance", "relevancy"),
    "fluency": ("fluency",),
    "coherence": ("coherence", "coherency"),
    "informativeness": ("informativeness",),
    # SQuALITY (docs/data.md): its rubric's names, and the upstream file's "selection" for coverage
    "correctness": ("correctness",),
    "coverage": ("coverage", "selection"),
    "overall": ("overall quality", "overall"),
}

