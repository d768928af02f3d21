"""A folder in the shape of the alt-test's own repository (github.com/nitaytech/AltTest:
``alt_test_example.ipynb`` and ``data/<dataset>/{human,llm}_annotations.json``), with two
small datasets whose winning rates and advantage probabilities are worked out by hand
(benchmarks/alttest_reproduce.py reads such a folder; tests/stats/test_alttest_reproduce.py).

``cat`` (labels, ``accuracy``, epsilon 0.2): three annotators label all 400 units "a".
  - ``good`` answers "b" on 40 units: against each annotator d_i = 1 on those 40 and 0
    elsewhere, mean 0.1 < 0.2, t = (0.1 - 0.2) / (0.3015 / 20) = -6.63: every H0 is
    rejected, winning rate 1.00; advantage 360/400 = 0.90.
  - ``bad`` answers "b" on 200: mean d 0.5 > 0.2, nothing rejected: 0.00; advantage 0.50.
``stars`` (scores, ``neg_rmse``, epsilon 0.2), 100 units: annotators h0 and h1 give 3,
  h2 gives 4 on units 0-49 and 3 elsewhere; ``llm`` gives 5 on units 50-59, 3 elsewhere.
  - leaving h0 (or h1) out: ties except units 50-59 (others 3, 3: the judge's 5 loses),
    d = 1 on 10 units, mean 0.1, t = -3.32, p = 0.0006;
  - leaving h2 out: others 3, 3; on 0-49 h2's 4 loses (d = -1), on 50-59 the judge's 5
    loses (d = 1): mean -0.4, t = -9.0;
  - Benjamini-Yekutieli over the three (thresholds 0.009, 0.018, 0.027 at q = 0.05)
    rejects all: winning rate 1.00; advantage (0.9 + 0.9 + 0.9) / 3 = 0.90.
"""
from __future__ import annotations

import json
from pathlib import Path

BY_HAND = {("cat", "good"): (1.00, 0.90), ("cat", "bad"): (0.00, 0.50), ("stars", "llm"): (1.00, 0.90)}


def write(folder: Path, published: dict[tuple[str, str], tuple[float, float]] = BY_HAND) -> Path:
    """The folder, its notebook printing ``published`` as the alt-test's notebook prints."""
    cat_h = {f"h{a}": {f"u{i}": "a" for i in range(400)} for a in range(3)}
    cat_f = {"good": {f"u{i}": "b" if i < 40 else "a" for i in range(400)},
             "bad": {f"u{i}": "b" if i < 200 else "a" for i in range(400)}}
    stars_h = {"h0": {f"u{i}": 3 for i in range(100)}, "h1": {f"u{i}": 3 for i in range(100)},
               "h2": {f"u{i}": 4 if i < 50 else 3 for i in range(100)}}
    stars_f = {"llm": {f"u{i}": 5 if 50 <= i < 60 else 3 for i in range(100)}}
    for name, humans, llms in (("cat", cat_h, cat_f), ("stars", stars_h, stars_f)):
        (folder / "data" / name).mkdir(parents=True, exist_ok=True)
        (folder / "data" / name / "human_annotations.json").write_text(json.dumps(humans))
        (folder / "data" / name / "llm_annotations.json").write_text(json.dumps(llms))
    source = ("datasets_scoring_functions = {'cat': 'accuracy', 'stars': 'neg_rmse'}\n"
              "datasets_epsilons = {'cat': 0.2, 'stars': 0.2}\n"
              "for dataset_name, metric in datasets_scoring_functions.items():\n    pass\n")
    lines = [f"{d} {f} [{'PASSED' if wr >= 0.5 else 'FAILED'}]:\tWinning Rate={wr:.2f}\tAdvantage Probability={ap:.2f}\n"
             for (d, f), (wr, ap) in published.items()]
    cell = {"cell_type": "code", "source": source.splitlines(keepends=True),
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["Computing cat\n", *lines]}]}
    (folder / "alt_test_example.ipynb").write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": []}, cell]}))
    return folder
