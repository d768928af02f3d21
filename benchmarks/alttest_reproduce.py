"""Reproduce the alt-test's published numbers with sumjudge's implementation.

The alt-test's authors (Calderon, Reichart and Dror, ACL 2025) publish their code, the
annotations of nine datasets and a notebook whose printed output gives, for each
dataset and LLM, the winning rate and the average advantage probability
(github.com/nitaytech/AltTest, ``alt_test_example.ipynb``). Their repository has no
licence, so nothing of it is copied here: this script reads a clone of it, runs
:mod:`sumjudge.stats.alt_test` on each dataset (their scores and epsilons, read from the
notebook's own code cell; q = 0.05, at least 30 units per annotator, units with at least
two human labels) and prints each published number beside ours.

    git clone https://github.com/nitaytech/AltTest /tmp/AltTest
    .venv/bin/python benchmarks/alttest_reproduce.py /tmp/AltTest

Their data shape: ``data/<dataset>/human_annotations.json`` maps annotator -> {instance:
label}, ``llm_annotations.json`` maps LLM -> {instance: label}; labels are strings
(scored by ``accuracy``) or integers (``neg_rmse``). One dataset is one family of tests
(Benjamini-Yekutieli over its annotators), as in the notebook.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sumjudge.stats.alt_test import annotator_tests, judge_alt_test

PRINTED = re.compile(r"^(\S+) (\S+) \[(PASSED|FAILED)\]:\s+Winning Rate=([\d.]+)\s+Advantage Probability=([\d.]+)")


def notebook(path: Path) -> tuple[dict[str, str], dict[str, float], list[tuple[str, str, float, float]]]:
    """(dataset -> score, dataset -> epsilon, published lines) from the notebook's example cell."""
    cells = json.loads(path.read_text())["cells"]
    for cell in cells:
        source = "".join(cell.get("source", []))
        if cell.get("cell_type") != "code" or "datasets_epsilons" not in source:
            continue
        settings = {}
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                settings[node.targets[0].id] = ast.literal_eval(node.value)
        text = "".join("".join(o.get("text", [])) for o in cell.get("outputs", []))
        published = [(m[1], m[2], float(m[4]), float(m[5]))
                     for m in map(PRINTED.match, text.splitlines()) if m]
        return settings["datasets_scoring_functions"], settings["datasets_epsilons"], published
    raise SystemExit(f"{path}: no code cell with datasets_epsilons (is this AltTest's notebook?)")


def matrices(humans: dict, llm: dict) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(annotators, units x annotators labels, the LLM's labels) as floats, NaN = no label;
    string labels get one code each. Units: labelled by 2+ humans and by the LLM."""
    units = sorted({u for labels in humans.values() for u in labels})
    units = [u for u in units if u in llm and sum(u in labels for labels in humans.values()) >= 2]
    values = {v for labels in humans.values() for v in labels.values()} | set(llm.values())
    numeric = all(isinstance(v, (int, float)) for v in values)
    code = (lambda v: float(v)) if numeric else {v: float(i) for i, v in enumerate(sorted(map(str, values)))}.get
    names = list(humans)
    labels = np.array([[code(humans[a][u]) if u in humans[a] else np.nan for a in names] for u in units])
    pred = np.array([code(llm[u] if numeric else str(llm[u])) for u in units])
    return names, labels, pred


def ours(humans: dict, llm: dict, score: str, epsilon: float) -> tuple[float, float]:
    names, labels, pred = matrices(humans, llm)
    tests, left_out = annotator_tests("all", pred, labels, names, score=score, epsilon=epsilon, min_instances=30)
    _, (verdict,) = judge_alt_test(tests, {"all": left_out}, q=0.05)
    return verdict.winning_rate, verdict.advantage


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("alttest", type=Path, help="a clone of github.com/nitaytech/AltTest")
    args = ap.parse_args(argv)
    scores, epsilons, published = notebook(args.alttest / "alt_test_example.ipynb")
    data = args.alttest / "data"
    cache: dict[str, tuple[dict, dict]] = {}
    same = total = 0
    print(f"{'dataset':<14} {'llm':<13} {'eps':>5}  {'WR paper':>8} {'WR ours':>8}  {'AP paper':>8} {'AP ours':>8}")
    for dataset, llm, wr_paper, ap_paper in published:
        if dataset not in cache:
            cache[dataset] = tuple(json.loads((data / dataset / f"{who}_annotations.json").read_text())
                                   for who in ("human", "llm"))
        humans, llms = cache[dataset]
        wr, adv = ours(humans, llms[llm], scores[dataset], epsilons[dataset])
        hits = [f"{wr:.2f}" == f"{wr_paper:.2f}", f"{adv:.2f}" == f"{ap_paper:.2f}"]
        same, total = same + sum(hits), total + 2
        flag = "" if all(hits) else "  <- differs"
        print(f"{dataset:<14} {llm:<13} {epsilons[dataset]:>5}  {wr_paper:>8.2f} {wr:>8.2f}  "
              f"{ap_paper:>8.2f} {adv:>8.2f}{flag}")
    print(f"\n{same} of {total} published numbers reproduced to two decimals "
          f"({len(published)} dataset x LLM lines of the notebook)")
    return 0 if total and same == total else 1


if __name__ == "__main__":
    sys.exit(main())
