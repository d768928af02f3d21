"""No stage branches on a protocol's name: the protocol objects (sumjudge/protocols.py)
answer for their protocol, and the registry (sumjudge/datasets.py) says which dataset
has which. A new protocol then touches its protocol object, its prompt and its parser
only (docs/extending.md, "A protocol").

The scanner reads the code of ``sumjudge/``, ``scripts/``, ``workflow/`` (``*.py``,
``*.smk``) and the ``Snakefile`` token by token (comments, docstrings and messages
that mention a protocol in prose are not code) and reports, as ``file:line``:

- a string literal that is a protocol's name (``== "likert"``, ``in ("pairwise", ...)``,
  ``{"likert": ...}``, ``.get("pyramid")``, ``X["binary"]``, ``PAIRWISE = "pairwise"``,
  ``f(protocol="likert")``, ``case "likert":``): outside the protocol module and the
  registry there is no reason to spell one;
- a protocol's name compared or used as a key (``spec.protocol == x``,
  ``WORDS[spec.protocol]``, ``.get(spec.protocol)``, ``proto.name != x``);
- a keyword that is a protocol's name (``dict(likert=40)``).
"""
from __future__ import annotations

import ast
import io
import keyword
import tokenize
from pathlib import Path

import pytest

from sumjudge.protocols import PROTOCOLS

REPO = Path(__file__).resolve().parents[1]
# the paper's four, and any registered since
NAMES = frozenset(PROTOCOLS) | {"likert", "pairwise", "pyramid", "binary"}
ALLOWED = {"sumjudge/protocols.py", "sumjudge/datasets.py"}
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
_LOOKUPS = {"get", "pop", "setdefault"}


def _literal(token: str) -> str | None:
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError):  # an f-string: prose around a value, not a name
        return None
    return value if isinstance(value, str) else None


def _context(toks, i, stack) -> str:
    prev = toks[i - 1].string if i else ""
    nxt = toks[i + 1].string if i + 1 < len(toks) else ""
    opener = stack[-1] if stack else ("", "")
    if prev in ("==", "!=") or nxt in ("==", "!="):
        return "compared with"
    if prev == "in" or opener[1] == "in":
        return "tested for membership in"
    if opener[0] == "{" and nxt == ":":
        return "as a dict key"
    if opener[1] in ("lookup", "subscript"):
        return "as a lookup key"
    if prev == "=":
        return "assigned or passed as"
    if prev == "case":
        return "matched against"
    return "spelled as"


def scan(source: str, names=NAMES, kind: str = "protocol", attributes: bool = True) -> list[tuple[int, str]]:
    """(line, what) for every branch or name-keyed lookup on a protocol name in ``source``.
    ``names``/``kind``: other names, reported as ``<kind> name`` (tests/test_dataset_branches.py
    scans for dataset names); ``attributes``: also ``.protocol`` / ``proto.name`` compared or
    used as a key."""
    toks = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _SKIP]
    hits, stack = [], []  # stack: (bracket, what precedes it: in | lookup | subscript | "")
    for i, t in enumerate(toks):
        prev = toks[i - 1] if i else None
        nxt = toks[i + 1].string if i + 1 < len(toks) else ""
        if t.type == tokenize.OP and t.string in "([{":
            what = ""
            if prev is not None and prev.string == "in":
                what = "in"
            elif t.string == "(" and prev is not None and prev.string in _LOOKUPS:
                what = "lookup"
            elif t.string == "[" and prev is not None and (prev.type == tokenize.NAME and prev.string not in
                                                           ("in", "return", "and", "or", "not", "else", "if")
                                                           or prev.string in (")", "]")):
                what = "subscript"
            stack.append((t.string, what))
        elif t.type == tokenize.OP and t.string in ")]}":
            if stack:
                stack.pop()
        elif t.type == tokenize.STRING and _literal(t.string) in names:
            hits.append((t.start[0], f"{kind} name {t.string} {_context(toks, i, stack)}"))
        elif t.type == tokenize.NAME and t.string in names and nxt == "=" and stack and stack[-1][0] == "(":
            hits.append((t.start[0], f"{kind} name {t.string} as a keyword"))
        elif attributes and t.type == tokenize.NAME and prev is not None and prev.string == "." and (
                t.string == "protocol" or t.string == "name" and i >= 2 and toks[i - 2].string == "proto"):
            opener = stack[-1] if stack else ("", "")
            start = i - 1  # back over the attribute chain: ``x == spec.protocol``
            while start > 0 and (toks[start - 1].string == "." or toks[start - 1].type == tokenize.NAME
                                 and not keyword.iskeyword(toks[start - 1].string)):
                start -= 1
            if nxt in ("==", "!=", "in") or (start > 0 and toks[start - 1].string in ("==", "!=")):
                hits.append((t.start[0], f"a protocol's name (.{t.string}) compared"))
            elif nxt in ("]", ")", ",") and opener[1] in ("lookup", "subscript"):
                hits.append((t.start[0], f"a protocol's name (.{t.string}) as a lookup key"))
    return hits


def code_files() -> list[Path]:
    files = [REPO / "Snakefile"]
    for top in ("sumjudge", "scripts", "workflow"):
        files += sorted(p for p in (REPO / top).rglob("*") if p.suffix in (".py", ".smk")
                        and "__pycache__" not in p.parts)
    return [p for p in files if p.relative_to(REPO).as_posix() not in ALLOWED]


def test_no_protocol_name_branches_outside_the_protocol_module_and_registry():
    found = []
    for path in code_files():
        rel = path.relative_to(REPO).as_posix()
        try:
            hits = scan(path.read_text(encoding="utf-8"))
        except (tokenize.TokenError, SyntaxError) as err:  # unreadable code is not proof of none
            pytest.fail(f"{rel}: cannot tokenize ({err}); the scan must read every file")
        found += [f"{rel}:{line}: {what}" for line, what in hits]
    assert not found, ("a stage branches on a protocol's name; ask the protocol object "
                       "(sumjudge/protocols.py) instead:\n" + "\n".join(found))


def test_scan_reads_real_code():
    files = {p.relative_to(REPO).as_posix() for p in code_files()}
    assert {"Snakefile", "workflow/rules/judge.smk", "sumjudge/leaderboard/build.py",
            "scripts/judge.py"} <= files
    assert not files & ALLOWED


PLANTED = '''\
if spec.protocol == "pairwise":
    pass
x = "likert" != p or q == spec.protocol
if proto in ("pyramid", "binary"):
    pass
WORDS = {"likert": "summaries",
         "binary": "sentences"}
n = TOKENS.get("pyramid", 0)
m = TOKENS["binary"]
PAIRWISE = "pairwise"
s = datasets.names(protocol="pairwise")
w = WORDS[get(name).protocol]
v = WORDS.get(spec.protocol, "units")
t = dict(likert=40)
if spec.proto.name != other:
    pass
match p:
    case "pyramid":
        pass
p = get_protocol("likert")
'''


def test_scanner_catches_planted_branches():
    hits = scan(PLANTED)
    by_line = {}
    for line, what in hits:
        by_line.setdefault(line, []).append(what)
    assert sorted(by_line) == [1, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 18, 20]
    assert by_line[1] == ["a protocol's name (.protocol) compared", "protocol name \"pairwise\" compared with"]
    assert by_line[3] == ["protocol name \"likert\" compared with", "a protocol's name (.protocol) compared"]
    assert by_line[4] == ["protocol name \"pyramid\" tested for membership in",
                          "protocol name \"binary\" tested for membership in"]
    assert by_line[6] == ["protocol name \"likert\" as a dict key"]
    assert by_line[8] == ["protocol name \"pyramid\" as a lookup key"]
    assert by_line[9] == ["protocol name \"binary\" as a lookup key"]
    assert by_line[10] == ["protocol name \"pairwise\" assigned or passed as"]
    assert by_line[12] == ["a protocol's name (.protocol) as a lookup key"]
    assert by_line[13] == ["a protocol's name (.protocol) as a lookup key"]
    assert by_line[14] == ["protocol name likert as a keyword"]
    assert by_line[15] == ["a protocol's name (.name) compared"]
    assert by_line[18] == ["protocol name \"pyramid\" matched against"]
    assert by_line[20] == ["protocol name \"likert\" spelled as"]


def test_scanner_leaves_prose_and_other_strings_alone():
    clean = '''\
"""A pairwise dataset: ``pairwise`` in prose, "likert" quoted in a docstring."""
# if spec.protocol == "pairwise": a comment
msg = f"a {protocol} dataset needs its columns"
err = "only a likert dataset has dimensions"
if col.kind == "flag" and spec.proto.compares:
    label = spec.proto.name
ok = a == b
if spec.protocol:
    pass
cols = {"summary": 1}[key]
'''
    assert scan(clean) == []
    assert scan('x = {"likert": 1}', names={"other"}) == []  # the names scanned are the registry's
