"""The package knows no rule (issue 35 item 4): the rules declare what they need before any
job (PREFLIGHT, beside each rule in workflow/rules/*.smk), and sumjudge/ never spells a rule's
name to decide anything. The grep, token by token (comments and docstrings are prose):

- a rule name that is no word of the package's own (``fetch``, ``rouge``, ``judge_batch_submit``,
  ``metric_bartscore``, ...) is never a string in sumjudge/;
- a rule name that is also one of its words (``judge``: a row kind; ``metric``: a column; ...)
  is never a string on a line that speaks of a rule or a job (``rule == "metric"``,
  ``"fetch" in rules``, ``JUDGE_RULES = (...)``).

The Snakefile is includes plus ``rule all``: no call between its includes."""
from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from support.harness import REPO

RULE = re.compile(r"(?m)^(?:local)?rule (\w+):")
# rule names that are also words of the package's data, and what each is there
WORDS = {
    "judge": "a row kind of the tables and the leaderboard, a results folder",
    "metric": "a column of the metric tables",
    "all": "a value (savings.pairs: all; a table's subset: all)",
    "jury": "config key judges.<name>.jury",
    "savings": "config block savings",
    "leaderboard": "config block leaderboard",
    "rouge": "config block rouge",
    "prepare_dataset": "the function sumjudge.data.prepare.prepare_dataset",
}
RULE_TALK = re.compile(r"\b(rules?|RULES?|\w+_RULES)\b")


def rule_names() -> set[str]:
    files = [REPO / "Snakefile", *sorted((REPO / "workflow/rules").glob("*.smk"))]
    return {name for f in files for name in RULE.findall(f.read_text())}


def strings(source: str) -> list[tuple[int, str, str]]:
    """(line, value, the rest of the line's code) of every string literal that is not a docstring
    (an f-string is prose around values: left out)."""
    toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
    prose = (tokenize.INDENT, tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT)
    out = []
    for i, t in enumerate(toks):
        if t.type == tokenize.STRING and not (i == 0 or toks[i - 1].type in prose):
            try:
                value = ast.literal_eval(t.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str):
                out.append((t.start[0], value, t.line.replace(t.string, "")))
    return out


def rule_names_in(source: str, names: set[str]) -> list[tuple[int, str]]:
    return [(line, value) for line, value, code in strings(source)
            if value in names and (value not in WORDS or RULE_TALK.search(code))]


def test_the_grep_finds_the_rule_names_the_old_preflight_spelled():
    """It can fail: sumjudge/preflight.py as it was at 733b95c spells five rule names."""
    old = subprocess.run(["git", "-C", str(REPO), "show", "733b95c:sumjudge/preflight.py"], capture_output=True,
                         text=True)
    if old.returncode != 0:
        pytest.skip("no git history here")
    assert {v for _, v in rule_names_in(old.stdout, rule_names())} == {"judge", "judge_batch_submit", "metric",
                                                                        "fetch", "rouge"}


def test_the_package_spells_no_rule_name():
    names = rule_names()
    assert {"fetch", "rouge", "metric", "judge", "judge_batch_submit", "leaderboard", "all"} <= names
    assert set(WORDS) <= names, set(WORDS) - names  # a word listed here that is no rule any more: drop it
    found = [f"{p.relative_to(REPO)}:{line}: {value!r}" for p in sorted((REPO / "sumjudge").rglob("*.py"))
             for line, value in rule_names_in(p.read_text(encoding="utf-8"), names)]
    assert not found, "sumjudge/ names a rule; declare the rule's need beside it (PREFLIGHT) instead:\n" + \
        "\n".join(found)


def test_the_snakefile_is_includes_and_rule_all():
    """No call, assignment or import between the Snakefile's includes: every stage's logic is in
    its rules file, and the files that read every rule (the preflight, the code digests) are
    included last."""
    lines = [x for x in (REPO / "Snakefile").read_text().splitlines() if x.strip() and not x.startswith("#")]
    first = next(i for i, x in enumerate(lines) if x.startswith("include:"))
    last = max(i for i, x in enumerate(lines) if x.startswith("include:"))
    assert all(x.startswith("include:") for x in lines[first:last + 1]), lines[first:last + 1]
    assert lines[last + 1] == "rule all:" and all(x.startswith(" ") for x in lines[last + 2:])
    assert lines[last - 1:last + 1] == ['include: "workflow/rules/preflight.smk"', 'include: "workflow/rules/code.smk"']
    before = lines[:first]
    assert before == ["from snakemake.utils import min_version", 'min_version("9.0")', 'configfile: "config.yaml"']


def test_every_declared_need_is_a_rule_beside_its_rule():
    """PREFLIGHT["<rule>"] appears in the rules file that defines <rule>, after it."""
    for f in sorted((REPO / "workflow/rules").glob("*.smk")):
        text = f.read_text()
        for m in re.finditer(r'PREFLIGHT\["(\w+)"\] = ', text):
            rule = re.search(rf"(?m)^rule {m.group(1)}:", text)
            assert rule and rule.start() < m.start(), f"{Path(f).name}: PREFLIGHT[{m.group(1)!r}] is not beside its rule"
