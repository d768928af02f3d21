"""Rule `prepare_dataset`: raw files -> results/data/{dataset}.parquet."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

from sumjudge.data.prepare import prepare_dataset
from sumjudge.data.readers import DataError
from sumjudge.io import write_parquet

log = _log.setup(snakemake)
name = snakemake.wildcards.dataset
inputs = dict(snakemake.input.items())  # {reader role: file(s)}
try:
    df = prepare_dataset(name, inputs, snakemake.params.options)
except DataError as err:
    log.error("%s", err)
    sys.exit(1)
write_parquet(df, snakemake.output[0], {"dataset": name, "options": snakemake.params.options,
                                         "sources": snakemake.params.sources})
log.info("%s: %d rows, %d columns -> %s", name, len(df), df.shape[1], snakemake.output[0])
