"""The jobs a ``snakemake -n`` would run, read off the parsed workflow before its DAG exists.

Snakemake 9 runs no ``onstart`` hook on a dry run, so the preflight (sumjudge/preflight.py)
of a dry run is asked while the Snakefile is parsed (workflow/rules/preflight.smk). These
functions give it the jobs: the command line's targets (:func:`dry_run_targets`), then every
job that makes a missing target and, through its input files, every missing file it needs
(:func:`pending_jobs`). They take Snakemake's ``workflow`` object and its ``rules`` proxy as
arguments, so each can be tried on a small Snakefile (tests/test_dryrun.py).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from snakemake.io import apply_wildcards
from snakemake.iocontainers import Wildcards


def cli_targets(argv: list[str]) -> tuple[list[str], bool]:
    """(targets, -f given) of the `snakemake` command line ``argv`` (``([], False)`` for another
    program). Snakemake hands the workflow its DAG settings only after parsing the Snakefile,
    so the dry run's preflight reads them off the command line."""
    from snakemake.cli import get_argument_parser

    program = argv[0] if argv else ""
    if not program.endswith(("snakemake", os.path.join("snakemake", "__main__.py"))):
        return [], False
    try:
        args, _ = get_argument_parser().parse_known_args(argv[1:])
    except SystemExit:
        return [], False
    return [str(t) for t in args.targets or []], bool(args.force)


def dry_run_targets(workflow, argv: list[str], default: list[str]) -> tuple[list[str], set[str]]:
    """(files, forced files) a dry run's preflight starts from: the command line's targets
    (files, or rules whose outputs have no wildcards; with -f, made even if present) when
    rules make them all, else ``default``: the cost estimate's `snakemake -n -f
    results/judge/cost_estimate.csv` checks the data it reads, not the learned metrics' models."""
    targets, force = cli_targets(argv)
    rules = {r.name: r for r in workflow.rules}
    files: list[str] = []
    for t in targets:
        outputs = [str(o) for o in rules[t].output] if t in rules else [t]
        if any("{" in o for o in outputs) or not all(any(r.is_producer(o) for r in rules.values()) for o in outputs):
            return list(default), set()  # a rule with wildcards, a file no rule makes: everything
        files += outputs
    if not files:
        return list(default), set()
    return files, set(files) if force else set()


def _flatten(value, into: list[str]) -> None:
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, (dict, list, tuple)):
        for v in value.values() if isinstance(value, dict) else value:
            _flatten(v, into)


def job_inputs(rules, rule, wildcards: dict[str, str]) -> list[str]:
    """The input files of ``rule``'s job with ``wildcards``: its patterns filled in, its input
    functions (unpack'd or not) called, as ``rules.<rule>.input`` gives them; a function that
    fails is left to Snakemake, which reports it when it builds the DAG."""
    files: list[str] = []
    for item in getattr(rules, rule.name).input:
        if not callable(item):
            _flatten(apply_wildcards(str(item), wildcards), files)
            continue
        try:
            _flatten(item(Wildcards(fromdict=wildcards)), files)
        except Exception:  # noqa: BLE001 -- any error of an input function: Snakemake reports it with the DAG
            continue
    return files


def pending_jobs(workflow, rules, targets: Iterable[str], forced: Iterable[str] = ()) -> list[tuple[str, dict]]:
    """(rule, wildcards) of the jobs that make the missing (or ``forced``) files among
    ``targets`` and, through each such job's input files, the missing files they need."""
    forced = set(forced)
    producers = [(r, [str(o).split("{")[0] for o in r.output]) for r in workflow.rules]
    jobs: list[tuple[str, dict]] = []
    seen: set[str] = set()
    todo = [str(t) for t in reversed(list(targets))]
    while todo:
        path = todo.pop()
        if path in seen or (Path(path).exists() and path not in forced):
            continue
        seen.add(path)
        for rule, prefixes in producers:
            if not any(path.startswith(p) for p in prefixes) or not rule.is_producer(path):
                continue
            wc = dict(rule.get_wildcards(path))
            jobs.append((rule.name, wc))
            todo += job_inputs(rules, rule, wc)
    return jobs
