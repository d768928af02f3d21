"""Rule `metric_moverscore`: results/data/{dataset}.parquet -> results/metrics/moverscore/{dataset}.parquet."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402
import _metric  # noqa: E402

from sumjudge.metrics import moverscore  # noqa: E402

log = _log.setup(snakemake)
s = snakemake.params.settings
_metric.run(
    snakemake, log,
    lambda: moverscore.MoverScore(model=s["model"], n_gram=s["n_gram"], batch_size=s["batch_size"],
                                  device=snakemake.params.device, threads=snakemake.threads),
    moverscore.score_dataset,
    lambda scorer: scorer.provenance(),
)
