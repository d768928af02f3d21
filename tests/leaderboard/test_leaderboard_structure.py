"""The leaderboard package's shape (issue 25): small functions, no dataset or protocol named
in it (the registry and the protocol objects say what differs), no dict-style settings."""
import ast
import re
from pathlib import Path

from sumjudge.datasets import BUILTIN
from sumjudge.protocols import PROTOCOLS
from support.harness import REPO

PACKAGE = REPO / "sumjudge" / "leaderboard"
NAMES = set(BUILTIN) | {s.label for s in BUILTIN.values()} | set(PROTOCOLS)


def functions():
    for p in sorted(PACKAGE.glob("*.py")):
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield n.end_lineno - n.lineno + 1, f"{p.name}:{n.name}"


def test_no_function_over_60_lines():
    longest = max(functions())
    assert longest[0] <= 60, longest


def named(paths: list[Path]) -> list[str]:
    """Every dataset, label or protocol name that a file of ``paths`` spells as a word (any case)."""
    found = []
    for p in paths:
        text = p.read_text()
        for name in sorted(NAMES):
            if re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", text, re.IGNORECASE):
                found.append(f"{p.name}: {name}")
    return found


def test_no_dataset_or_protocol_name_in_the_package():
    assert named(sorted(PACKAGE.glob("*.py")) + [REPO / "scripts" / "leaderboard.py"]) == []
    assert not re.search(r"settings\.get\(|DEFAULT_ALT|\"base_swapped\"", "".join(
        p.read_text() for p in PACKAGE.glob("*.py")))


def test_the_guard_sees_a_planted_name(tmp_path):
    """The guard's own scan (``named``) finds a name planted in code, in a docstring and in
    another case, and leaves a longer identifier that contains one alone."""
    planted = tmp_path / "x.py"
    planted.write_text('if spec.name == "realsumm":\n    """SummEval only."""\n    Likert = 1\n')
    assert {"x.py: likert", "x.py: realsumm", "x.py: summeval"} <= set(named([planted]))
    clean = tmp_path / "y.py"
    clean.write_text("likert_score = board.alt_test.likert_score  # pairwise_ties too\n")
    assert named([clean]) == []
