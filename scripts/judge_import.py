"""Rule `judge_import`: another tool's scores -> results/judge/{judge}/{dataset}/base.* (no request)."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

import pandas as pd

from sumjudge import datasets
from sumjudge.io import write_json, write_parquet
from sumjudge.judge.imported import ScoresError, import_scores, usage

log = _log.setup(snakemake)
wc = snakemake.wildcards
try:
    table = import_scores(snakemake.input.scores, datasets.get(wc.dataset, snakemake.config),
                          pd.read_parquet(snakemake.input.data), wc.judge)
except ScoresError as err:
    log.error("%s", err)
    sys.exit(1)
write_parquet(table, snakemake.output.table, {"stage": "judge", "judge": wc.judge, "dataset": wc.dataset,
                                              "variant": "base", "model": table["model"].iloc[0],
                                              "imported_from": str(snakemake.input.scores)})
write_json(usage(table, wc.judge, wc.dataset, snakemake.input.scores), snakemake.output.usage)
log.info("%s/%s: %d rows imported from %s (%s); 0 requests", wc.judge, wc.dataset, len(table),
         snakemake.input.scores, ", ".join(f"{k} {v}" for k, v in table["status"].value_counts().items()))
