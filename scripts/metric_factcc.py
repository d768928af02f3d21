"""Rule `metric_factcc`: results/data/{dataset}.parquet -> results/metrics/factcc/{dataset}.parquet."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402
import _metric  # noqa: E402

from sumjudge.metrics import factcc  # noqa: E402

log = _log.setup(snakemake)
s = snakemake.params.settings
_metric.run(
    snakemake, log,
    lambda: factcc.FactCC(model=s["model"], batch_size=s["batch_size"], max_length=s["max_length"],
                          device=snakemake.params.device, threads=snakemake.threads),
    lambda df, dataset, scorer: factcc.score_dataset(df, dataset, scorer, s["realsumm_premise"], s["threshold"]),
    lambda scorer: {**scorer.provenance(), "realsumm_premise": s["realsumm_premise"],
                    "threshold": s["threshold"]},
)
