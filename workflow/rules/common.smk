# Shared set-up: config validation (before any rule runs) and helpers.

import os
import sys
from pathlib import Path

sys.path.insert(0, workflow.basedir)  # the sumjudge package, also without `pip install -e`

from snakemake.logging import logger as _logger

from sumjudge.config import ConfigError, config_sources, located, validate as _validate_config


def stop(message):
    """Stop before any job with ``message`` (its first line says it all), without the
    traceback Snakemake prints under a WorkflowError."""
    _logger.error(message)
    raise SystemExit(1)


# where each config key was set, lowest precedence first: the workflow's config.yaml (its
# `configfile:`), the --configfile files, the --config values; a config error names it
_CLI_CONFIGFILES = [str(f) for f in workflow.overwrite_configfiles]
CONFIG_SOURCES = config_sources(next((str(f) for f in workflow.configfiles if str(f) not in _CLI_CONFIGFILES), None),
                                _CLI_CONFIGFILES, workflow.config_settings.config)


def config_stop(err):
    """Stop with a config error's message, led by the config file that set its key."""
    stop(located(str(err), None, CONFIG_SOURCES))


try:
    _validate_config(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml", CONFIG_SOURCES)
except ConfigError as err:
    stop(str(err))

from sumjudge import datasets as _ds
from sumjudge.data.custom import check_header, file_columns
from sumjudge.data.prepare import pinned_paths, source_files
from sumjudge.catalog import METRIC_TIES_KEY

RESULTS = "results"
# Every fact about a dataset is in the registry (sumjudge/datasets.py); a user's own
# datasets come from config `custom_datasets` (docs/extending.md). Wildcard
# constraints below are derived from it.
try:
    DATASET_SPECS = _ds.registry(config, columns=file_columns)
except _ds.DatasetConfigError as err:
    config_stop(err)
DATASETS = config["datasets"]  # the built-in datasets to prepare
CUSTOM_DATASETS = _ds.names(DATASET_SPECS, custom=True)  # always prepared
ALL_DATASETS = DATASETS + CUSTOM_DATASETS


def dataset_constraint(family=None):
    """Wildcard constraint: the registry's datasets (of one metric family)."""
    return _ds.alternation(_ds.names(DATASET_SPECS, family=family))


def raw(local_path):
    """Where a fetched upstream file lives: results/raw/<dataset>/<owner>+<repo>/<path>."""
    return f"{RESULTS}/raw/{local_path}"


def dataset_table(name):
    return f"{RESULTS}/data/{name}.parquet"


for _spec in DATASET_SPECS.values():  # a user's file: there, with its protocol's columns (a dry run says so)
    if _spec.custom and (_problem := check_header(_spec.name, dict(_spec.reader_kwargs), _spec.path,
                                                  Path(dataset_table(_spec.name)).exists())):
        config_stop(_problem)


def prepare_options(wc):
    """What the dataset's reader is told: the built-ins' config sections, or the
    user's `custom_datasets` entry."""
    if wc.dataset in CUSTOM_DATASETS:
        return {"subset": config["subset"],
                "custom_datasets": {wc.dataset: config["custom_datasets"][wc.dataset]}}
    # tldr.metric_ties only decides Table 3's scoring: leave it out, so changing it re-prepares nothing
    options = {k: config.get(k) or {} for k in [*dict.fromkeys(s.options_key for s in _ds.BUILTIN.values() if s.options_key),
                                      "subset"]}
    section, key = METRIC_TIES_KEY
    options[section] = {k: v for k, v in config[section].items() if k != key}
    return options


def prepare_inputs(wc):
    """The dataset's files by reader role: fetched pinned files, or the user's file."""
    files = source_files(wc.dataset, prepare_options(wc))
    if wc.dataset in CUSTOM_DATASETS:
        return files
    return {role: [raw(p) for p in paths] for role, paths in files.items()}


# --- The preflight: every need of the jobs about to run, before the first one -------------
# (sumjudge/preflight.py; docs/metrics.md, "Before any job"). It runs once, in the main
# Snakemake process, through Snakemake's own `onstart` hook for a run (after the DAG is
# built: exactly the jobs that will run) and, since Snakemake 9 runs no hook on a dry run,
# while the Snakefile is parsed for `snakemake -n` (once the rules with needs are defined:
# the jobs `rule all` still needs, by its missing files). Commands that build nothing
# (--unlock, --lint, --report, --summary, --list-rules, --dag, --touch, ...) reach
# neither. A missing need stops the run with one numbered list, no job started. Switch:
# config `preflight`.
from types import SimpleNamespace

from snakemake.settings.types import DeploymentMethod as _DeploymentMethod


def preflight(jobs):
    """Stop with the numbered list of unmet needs of ``jobs`` ((rule, wildcards) pairs)."""
    from sumjudge import preflight as _pf

    if not _pf.enabled(config) or not workflow.is_main_process:
        return
    use_conda = _DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
    steps = _pf.needs(config, jobs, globals().get("JUDGES"), conda=use_conda)
    if steps:
        stop(_pf.report(steps, config))


def cli_targets():
    """(targets, -f given) of the `snakemake` command line this process runs (([], False)
    for another caller). Snakemake hands the workflow its DAG settings only after parsing
    the Snakefile, so the dry run's preflight reads them off the command line."""
    from snakemake.cli import get_argument_parser

    program = sys.argv[0] if sys.argv else ""
    if not program.endswith(("snakemake", os.path.join("snakemake", "__main__.py"))):
        return [], False
    try:
        args, _ = get_argument_parser().parse_known_args(sys.argv[1:])
    except SystemExit:
        return [], False
    return [str(t) for t in args.targets or []], bool(args.force)


def dry_run_targets(default):
    """(files, forced files) a dry run's preflight starts from: the command line's targets
    (files, or rules whose outputs have no wildcards; with -f, made even if present) when
    the rules defined so far make them all, else ``default`` (what rule all needs): the
    cost estimate's `snakemake -n -f results/judge/cost_estimate.csv` checks the data it
    reads, not the learned metrics' models."""
    targets, force = cli_targets()
    rules = {r.name: r for r in workflow.rules if r.name != "all"}
    files = []
    for t in targets:
        outputs = [str(o) for o in rules[t].output] if t in rules else [t]
        if any("{" in o for o in outputs) or not all(any(r.is_producer(o) for r in rules.values()) for o in outputs):
            return default, set()  # a rule with wildcards, a later stage's file (tables): everything
        files += outputs
    if not files:
        return default, set()
    return files, set(files) if force else set()


def pending_jobs(targets, forced=()):
    """(rule, wildcards) of the jobs that make the missing (or ``forced``) files among
    ``targets`` and, through each such job's plain file inputs, the missing files they
    need; for a missing dataset table, the fetch jobs of its missing raw files. What a
    dry run checks."""
    from snakemake.io import apply_wildcards

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
            todo += [apply_wildcards(str(f), wc) for f in rule.input if isinstance(f, str)]
            if rule.name == "prepare_dataset" and wc.get("dataset") not in CUSTOM_DATASETS:
                todo += [f for files in prepare_inputs(SimpleNamespace(**wc)).values() for f in files]
    return jobs


onstart:
    if not workflow.touch:
        preflight((job.rule.name, job.wildcards_dict) for job in workflow.dag.needrun_jobs())
