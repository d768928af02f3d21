"""Rule `metric_bartscore_checkpoint`: one BART checkpoint's three directions,
results/data/{dataset}.parquet -> results/metrics/bartscore/{checkpoint}/{dataset}.parquet."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402
import _metric  # noqa: E402

from sumjudge.metrics import bartscore  # noqa: E402

log = _log.setup(snakemake)
s = snakemake.params.settings
key = snakemake.wildcards.checkpoint
_metric.run(
    snakemake, log,
    lambda: bartscore.BARTScore(model=s["models"][key], config_key=f"metrics.bartscore.models.{key}",
                                batch_size=s["batch_size"], max_length=s["max_length"],
                                device=snakemake.params.device, threads=snakemake.threads),
    lambda df, dataset, scorer: bartscore.score_checkpoint(df, dataset, scorer, bartscore.CHECKPOINTS[key]),
    lambda scorer: bartscore.bartscore_provenance(scorer, key),
)
