"""Rule `metric_bartscore`: both checkpoints' parts -> results/metrics/bartscore/{dataset}.parquet."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

import pandas as pd

from sumjudge import datasets
from sumjudge.io import read_meta, write_parquet
from sumjudge.metrics.bartscore import merge_checkpoints

log = _log.setup(snakemake)
dataset = snakemake.wildcards.dataset
df = pd.read_parquet(snakemake.input.data)
parts = {"bart": pd.read_parquet(snakemake.input.bart), "bart_cnn": pd.read_parquet(snakemake.input.bart_cnn)}
metas = {"bart": read_meta(snakemake.input.bart), "bart_cnn": read_meta(snakemake.input.bart_cnn)}
spec = datasets.get(dataset, snakemake.config)  # a user's dataset: its spec from custom_datasets
out = merge_checkpoints(df, spec, parts, {k: m["model"] for k, m in metas.items()})
write_parquet(out, snakemake.output[0], {"metric": "bartscore", "dataset": dataset, "checkpoints": metas})
log.info("%s: BARTScore, %d rows, columns %s", dataset, len(out), list(out.columns))
