"""The leaderboard package's shape (issue 25): small functions, no dataset or protocol named
in it (the registry and the protocol objects say what differs), no dict-style settings."""
import ast
import re
from pathlib import Path

from sumjudge.datasets import BUILTIN
from sumjudge.protocols import PROTOCOLS
from support.harness import REPO

PACKAGE = REPO / "sumjudge" / "leaderboard"


def functions():
    for p in sorted(PACKAGE.glob("*.py")):
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield n.end_lineno - n.lineno + 1, f"{p.name}:{n.name}"


def test_no_function_over_60_lines():
    longest = max(functions())
    assert longest[0] <= 60, longest


def string_literals(path: Path) -> list[str]:
    return [n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)]


def test_no_dataset_or_protocol_name_in_the_package():
    names = set(BUILTIN) | {s.label for s in BUILTIN.values()} | set(PROTOCOLS)
    found = []
    for p in sorted(PACKAGE.glob("*.py")) + [REPO / "scripts" / "leaderboard.py"]:
        text = p.read_text()
        for name in names:
            if re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", text, re.IGNORECASE):
                found.append(f"{p.name}: {name}")
    assert found == []
    assert not re.search(r"settings\.get\(|DEFAULT_ALT|\"base_swapped\"", "".join(
        p.read_text() for p in PACKAGE.glob("*.py")))


def test_the_scanner_sees_a_planted_name(tmp_path):
    p = tmp_path / "x.py"
    p.write_text('if spec.name == "realsumm":\n    pass\n')
    assert "realsumm" in string_literals(p)
