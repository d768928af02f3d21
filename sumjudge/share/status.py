"""Which outputs under results/ are stale against this checkout's code, and why.

Reads Snakemake's records (``.snakemake/metadata``): each holds the rule's script
(its ``code`` field, the ``script:`` path) and the params it ran with, among them
``code`` (:func:`sumjudge.share.code.code_digest`). An output is stale when that
digest differs from the current one; the files that changed are named from the
per-file digests an imported archive carries (``results/share/sumjudge-share.json``),
or, without one, the rule's files are listed as "changed somewhere in".
Jobs that read a stale output rerun too: ``snakemake -n`` lists them.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

from .archive import MANIFEST_NAME, SHARE_DIR, metadata_records
from .code import code_digest, file_digests

DIGEST_PREFIX = "sha256:"


@dataclass
class Stale:
    rule: str
    script: str
    outputs: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)   # files whose content differs from the sender's
    known: bool = True                                 # False: no per-file digests to compare with


def _records(workdir: Path, results: Path):
    for p, target in metadata_records(workdir, results):
        try:
            yield target, json.loads(p.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue


def _recorded_digest(record: dict) -> str | None:
    for value in record.get("params") or []:
        try:
            v = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            continue
        if isinstance(v, str) and v.startswith(DIGEST_PREFIX):
            return v
    return None


def stale_outputs(workdir: str | Path = ".", results: str | Path = "results") -> tuple[list[Stale], int]:
    """(stale groups by rule, number of outputs checked)."""
    workdir = Path(workdir)
    results = workdir / results
    share_path = results / SHARE_DIR / MANIFEST_NAME
    sender = json.loads(share_path.read_text()).get("code_sha256", {}) if share_path.is_file() else {}
    rules_dir = workdir / "workflow" / "rules"
    groups: dict[str, Stale] = {}
    checked = 0
    for target, record in _records(workdir, results):
        recorded = _recorded_digest(record)
        code = (record.get("code") or "").strip().strip("\"'")
        if recorded is None or not code.endswith(".py"):
            continue
        script = (rules_dir / code).resolve()
        checked += 1
        if not script.is_file():
            current = None
        else:
            current = code_digest(script, workdir)
        if current == recorded:
            continue
        rule = record.get("rule", "?")
        if rule not in groups:
            g = groups[rule] = Stale(rule, script.relative_to(workdir.resolve()).as_posix())
            now = file_digests(script, workdir) if script.is_file() else {}
            if sender:
                g.changed = sorted(p for p in set(now) | {p for p in sender if p in now or p == g.script}
                                   if now.get(p) != sender.get(p))
            else:
                g.known, g.changed = False, sorted(now)
        groups[rule].outputs.append(target)
    return sorted(groups.values(), key=lambda g: g.rule), checked


def report(groups: list[Stale], checked: int) -> str:
    if not groups:
        return f"{checked} outputs checked: none is stale; this checkout's code made them all"
    lines = [f"{checked} outputs checked; {sum(len(g.outputs) for g in groups)} stale "
             f"(the rule's code changed since they were made):"]
    for g in groups:
        lines.append(f"  rule {g.rule} ({g.script}): {len(g.outputs)} outputs, e.g. {sorted(g.outputs)[0]}")
        if g.known:
            lines.append(f"    code changed: {', '.join(g.changed) or '(the set of files it imports)'}")
        else:
            lines.append(f"    code changed somewhere in: {', '.join(g.changed)} (no sender digests to compare)")
    lines.append("These rerun, with every job that reads them: `snakemake -n` lists them all.")
    return "\n".join(lines)
