# Shared set-up: config validation (before any rule runs) and helpers.

import sys
from pathlib import Path

sys.path.insert(0, workflow.basedir)  # the sumjudge package, also without `pip install -e`

from sumjudge.config import ConfigError, validate as _validate_config

try:
    _validate_config(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml")
except ConfigError as err:
    raise WorkflowError(str(err)) from None

from sumjudge import datasets as _ds
from sumjudge.data.custom import file_columns
from sumjudge.data.prepare import pinned_paths, source_files
from sumjudge.catalog import METRIC_TIES_KEY
from sumjudge.judge.spec import resource_name

RESULTS = "results"
# Every fact about a dataset is in the registry (sumjudge/datasets.py); a user's own
# datasets come from config `custom_datasets` (docs/extending.md). Wildcard
# constraints below are derived from it.
try:
    DATASET_SPECS = _ds.registry(config, columns=file_columns)
except _ds.DatasetConfigError as err:
    raise WorkflowError(str(err)) from None
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



def judge_job_resources(judges, capacities, waits):
    """`resources:` of a judge job: all of its judge's resource (judge_<name> or
    judge_group_<group>, sumjudge.judge.spec.judge_resources), none of the others'. `waits`
    (the judge rule, not the submit one): a batch judge's job only waits for the batches its judge_batch_submit job
    created, so it claims nothing."""
    def claim(res, cap):
        return lambda wc: cap if resource_name(judges[wc.judge]) == res and not (
            waits and judges[wc.judge].mode == "batch") else 0

    return {res: claim(res, cap) for res, cap in capacities.items()}
