"""Rule `metric_dae`: results/data/{dataset}.parquet -> results/metrics/dae/{dataset}.parquet."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402
import _metric  # noqa: E402

from sumjudge.metrics import dae  # noqa: E402

log = _log.setup(snakemake)
s = snakemake.params.settings
_metric.run(
    snakemake, log,
    lambda: dae.DAE(model=s["model"], parser=s["parser"], batch_size=s["batch_size"], max_length=s["max_length"],
                    max_arcs=s["max_arcs"], aggregate=s["aggregate"], device=snakemake.params.device,
                    threads=snakemake.threads),
    lambda df, dataset, scorer: dae.score_dataset(df, dataset, scorer, s["realsumm_premise"], s["threshold"]),
    lambda scorer: {**scorer.provenance(), "realsumm_premise": s["realsumm_premise"],
                    "threshold": s["threshold"]},
)
