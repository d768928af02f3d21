# Shared set-up: config validation (before any rule runs), the run's settings and helpers.

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
from sumjudge.catalog import METRIC_TIES_KEY
from sumjudge.data.custom import check_header, file_columns
from sumjudge.data.prepare import pinned_paths, source_files
from sumjudge.errors import UserError
from sumjudge.settings import RunSettings

RESULTS = "results"
# The run's settings, typed, built once from the validated config (sumjudge/settings.py): the
# judges, the tables' statistics, the registry, what the preflight and the caveats read. Every
# fact about a dataset is in the registry (sumjudge/datasets.py); a user's own datasets come from
# config `custom_datasets` (docs/extending.md). Wildcard constraints below are derived from it.
try:
    RUN = RunSettings.from_config(config, columns=file_columns)
except UserError as err:  # what the schema cannot say: a jury's members, a user's dataset entry, ...
    config_stop(err)
DATASET_SPECS = RUN.specs
DATASETS = list(RUN.datasets)  # the built-in datasets to prepare
CUSTOM_DATASETS = RUN.custom_datasets  # always prepared
ALL_DATASETS = DATASETS + CUSTOM_DATASETS
# Each rule's need before any job (sumjudge/preflight.py), declared beside the rule:
# PREFLIGHT["<rule>"] = <a need of sumjudge.preflight>; checked by workflow/rules/preflight.smk.
from snakemake.settings.types import DeploymentMethod as _DeploymentMethod

from sumjudge import preflight as _pf

PREFLIGHT = {}
USES_CONDA = _DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method  # rules in envs/*.yaml


def preflight(jobs):
    """Stop with the numbered list of unmet needs of ``jobs`` ((rule, wildcards) pairs);
    asked once by workflow/rules/preflight.smk."""
    if not RUN.preflight or not workflow.is_main_process:
        return
    steps = _pf.needs(jobs, PREFLIGHT, RUN)
    if steps:
        stop(_pf.report(steps, RUN))


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
