# Shared set-up: config validation (before any rule runs) and helpers.

import sys
from pathlib import Path

sys.path.insert(0, workflow.basedir)  # the sumjudge package, also without `pip install -e`

from sumjudge.config import ConfigError, validate as _validate_config

try:
    _validate_config(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml")
except ConfigError as err:
    raise WorkflowError(str(err)) from None

from sumjudge.data.sources import DATASET_FILES

RESULTS = "results"
DATASETS = config["datasets"]
# one upstream dataset folder can feed several prepared tables
SOURCE_DATASET = {
    "summeval": "summeval",
    "newsroom": "newsroom",
    "tldr": "tldr",
    "realsumm": "realsumm",
    "qags_cnn": "qags",
    "qags_xsum": "qags",
}


def raw(local_path):
    """Where a fetched upstream file lives: results/raw/<dataset>/<owner>+<repo>/<path>."""
    return f"{RESULTS}/raw/{local_path}"


def dataset_table(name):
    return f"{RESULTS}/data/{name}.parquet"
