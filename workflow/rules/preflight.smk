# The preflight: every need of the jobs about to run, before the first one (sumjudge/preflight.py;
# docs/metrics.md, "Before any job"). Each rule with a need declares it beside the rule
# (PREFLIGHT["<rule>"] = <need>); this file, included after every stage, checks them.
# It runs once, in the main Snakemake process, through Snakemake's own `onstart` hook for a run
# (after the DAG is built: exactly the jobs that will run) and, since Snakemake 9 runs no hook
# on a dry run, while the Snakefile is parsed for `snakemake -n` (the jobs the command line's
# targets, else the stages with needs, still need, by their missing files). Commands that
# build nothing (--unlock, --lint, --report, --summary, --list-rules, --dag, --touch, ...)
# reach neither. A missing need stops the run with one numbered list, no job started.
# Switch: config `preflight`.

import os as _os

from snakemake.io import apply_wildcards as _apply_wildcards
from snakemake.iocontainers import Wildcards as _Wildcards

if set(PREFLIGHT) - {r.name for r in workflow.rules}:  # a need declared for a rule renamed since
    raise WorkflowError(f"PREFLIGHT names no rule: {', '.join(sorted(set(PREFLIGHT) - {r.name for r in workflow.rules}))}")


def preflight(jobs):
    """Stop with the numbered list of unmet needs of ``jobs`` ((rule, wildcards) pairs)."""
    if not RUN.preflight or not workflow.is_main_process:
        return
    steps = _pf.needs(jobs, PREFLIGHT, RUN)
    if steps:
        stop(_pf.report(steps, RUN))


def cli_targets():
    """(targets, -f given) of the `snakemake` command line this process runs (([], False)
    for another caller). Snakemake hands the workflow its DAG settings only after parsing
    the Snakefile, so the dry run's preflight reads them off the command line."""
    from snakemake.cli import get_argument_parser

    program = sys.argv[0] if sys.argv else ""
    if not program.endswith(("snakemake", _os.path.join("snakemake", "__main__.py"))):
        return [], False
    try:
        args, _ = get_argument_parser().parse_known_args(sys.argv[1:])
    except SystemExit:
        return [], False
    return [str(t) for t in args.targets or []], bool(args.force)


def dry_run_targets(default):
    """(files, forced files) a dry run's preflight starts from: the command line's targets
    (files, or rules whose outputs have no wildcards; with -f, made even if present) when
    rules make them all, else ``default``: the cost estimate's `snakemake -n -f
    results/judge/cost_estimate.csv` checks the data it reads, not the learned metrics' models."""
    targets, force = cli_targets()
    rules = {r.name: r for r in workflow.rules if r.name != "all"}
    files = []
    for t in targets:
        outputs = [str(o) for o in rules[t].output] if t in rules else [t]
        if any("{" in o for o in outputs) or not all(any(r.is_producer(o) for r in rules.values()) for o in outputs):
            return default, set()  # a rule with wildcards, a file no rule makes: everything
        files += outputs
    if not files:
        return default, set()
    return files, set(files) if force else set()


def job_inputs(rule, wildcards):
    """The input files of ``rule``'s job with ``wildcards``: its patterns filled in, its input
    functions (unpack'd or not) called (as `rules.<rule>.input` gives them); a function that
    fails is left to Snakemake, which reports it when it builds the DAG."""
    files = []

    def add(value):
        if isinstance(value, str):
            files.append(value)
        elif isinstance(value, (dict, list, tuple)):
            for v in value.values() if isinstance(value, dict) else value:
                add(v)

    for item in getattr(rules, rule.name).input:
        if not callable(item):
            add(_apply_wildcards(str(item), wildcards))
            continue
        try:
            add(item(_Wildcards(fromdict=wildcards)))
        except Exception:  # any error of an input function: Snakemake reports it with the DAG
            continue
    return files


def pending_jobs(targets, forced=()):
    """(rule, wildcards) of the jobs that make the missing (or ``forced``) files among
    ``targets`` and, through each such job's input files, the missing files they need.
    What a dry run checks."""
    rules = [(r, [str(o).split("{")[0] for o in r.output]) for r in workflow.rules if r.name != "all"]
    jobs, seen, todo = [], set(), [str(t) for t in reversed(targets)]
    while todo:
        path = todo.pop()
        if path in seen or (Path(path).exists() and path not in forced):
            continue
        seen.add(path)
        for rule, prefixes in rules:
            if not any(path.startswith(p) for p in prefixes) or not rule.is_producer(path):
                continue
            wc = dict(rule.get_wildcards(path))
            jobs.append((rule.name, wc))
            todo += job_inputs(rule, wc)
    return jobs


if workflow.output_settings.dryrun:
    preflight(pending_jobs(*dry_run_targets(DATA_OUTPUTS + METRIC_OUTPUTS + JUDGE_OUTPUTS)))


onstart:
    if not workflow.touch:
        preflight((job.rule.name, job.wildcards_dict) for job in workflow.dag.needrun_jobs())
