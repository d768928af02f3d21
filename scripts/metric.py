"""Rule `metric`: results/data/{dataset}.parquet -> results/metrics/{metric}/{dataset}.parquet for
every learned metric (BERTScore, MoverScore, one BARTScore checkpoint, FactCC, DAE:
sumjudge/metrics/learned.py)."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

from sumjudge.metrics.learned import get, score_file
from sumjudge.metrics.loading import ModelUnavailable

log = _log.setup(snakemake)
metric, p = get(snakemake.wildcards.metric), snakemake.params
try:
    score_file(lambda: metric.job(p.settings, p.device, snakemake.threads), snakemake.input[0], snakemake.output[0],
               snakemake.wildcards.dataset, snakemake.config, log)
except ModelUnavailable as err:  # the model is checked before any data is read
    log.error("%s", err)
    sys.exit(1)
