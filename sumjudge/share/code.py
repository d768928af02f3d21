"""The code a rule runs, by content: its script and every project module it imports.

Snakemake's own `code` trigger compares a script's *modification time* with its
outputs', so a fresh clone (new files, same content) reruns every rule. The
workflow instead gives every script rule a param ``code`` = :func:`code_digest` of
its script, and its default profile leaves the `code` trigger out
(docs/sharing.md). The digest covers the script, the helper modules next to it
(``scripts/_log.py``) and the transitive closure of ``sumjudge`` modules it imports
(found statically with :mod:`ast`, imports inside functions included, package
``__init__`` files included, and ``"sumjudge.x:function"`` strings that
:func:`sumjudge.protocols.resolve` imports at run time). A change anywhere else in
the package leaves the rule alone.
"""
from __future__ import annotations

import ast
import hashlib
import re
from functools import lru_cache
from pathlib import Path

PACKAGE = "sumjudge"
_DOTTED = re.compile(rf"^({PACKAGE}(?:\.\w+)*):\w+$")  # sumjudge.protocols.resolve's "module:function"


def _module_file(root: Path, dotted: str) -> Path | None:
    """``sumjudge.metrics.rouge`` -> its file under root (a module or a package's __init__)."""
    base = root.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(root: Path, path: Path) -> str | None:
    """The dotted package a file under root/sumjudge belongs to (for relative imports)."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    if not rel.parts or rel.parts[0] != PACKAGE:
        return None
    parts = list(rel.parts[:-1])
    return ".".join(parts)


def _imports(path: Path, root: Path) -> frozenset[str]:
    """Dotted names of the project modules one file imports (absolute or relative)."""
    return _imports_of(path.read_text(encoding="utf-8"), _package_of(root, path), str(path))


@lru_cache(maxsize=None)
def _imports_of(source: str, package: str | None, filename: str) -> frozenset[str]:
    """:func:`_imports` of one file's text (keyed by the text itself: an edited file is parsed anew;
    every script's closure shares the modules it has in common with the others)."""
    tree = ast.parse(source, filename=filename)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from .x import y, from .. import datasets
                if package is None:
                    continue
                parts = package.split(".")
                if node.level > 1:
                    parts = parts[: -(node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _DOTTED.match(node.value)
            if match:
                names.add(match.group(1))
    return frozenset(names)


def code_files(script: str | Path, root: str | Path) -> list[Path]:
    """The script and every project file it runs, sorted; root is the repository."""
    root, script = Path(root).resolve(), Path(script).resolve()
    return [Path(p) for p in _closure(str(script), str(root))]


@lru_cache(maxsize=None)
def _closure(script: str, root: str) -> tuple[str, ...]:
    root_p, script_p = Path(root), Path(script)
    seen: set[Path] = set()
    todo = [script_p]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for dotted in _imports(path, root_p):
            parts = dotted.split(".")
            if parts[0] == PACKAGE:
                # importing a.b.c runs a/__init__, a/b/__init__ and a/b/c
                for i in range(1, len(parts) + 1):
                    found = _module_file(root_p, ".".join(parts[:i]))
                    if found is not None:
                        todo.append(found)
            elif path.parent == script_p.parent and len(parts) == 1:
                sibling = script_p.parent / f"{parts[0]}.py"  # scripts/_log.py
                if sibling.is_file():
                    todo.append(sibling)
    return tuple(sorted(str(p) for p in seen))


def file_digests(script: str | Path, root: str | Path) -> dict[str, str]:
    """``{path relative to root: sha256}`` of every file in the script's closure."""
    root = Path(root).resolve()
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in code_files(script, root)}


def code_digest(script: str | Path, root: str | Path) -> str:
    """One sha256 over the paths and contents of the script's closure (``code`` param)."""
    h = hashlib.sha256()
    for rel, digest in sorted(file_digests(script, root).items()):
        h.update(f"{rel}\0{digest}\n".encode())
    return "sha256:" + h.hexdigest()


def set_code_params(rules, basedir: str | Path) -> None:
    """Give every script rule of a workflow the param ``code`` (:func:`code_digest` of its
    script): the content trigger of docs/sharing.md. A rule that sets ``code`` itself keeps it."""
    for rule in rules:
        if rule.script and "code" not in rule.params.keys():
            rule.set_params(code=code_digest(Path(rule.snakefile).parent / rule.script, basedir))
