"""Rule `metric_bertscore`: results/data/{dataset}.parquet -> results/metrics/bertscore/{dataset}.parquet."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402
import _metric  # noqa: E402

from sumjudge.metrics import bertscore  # noqa: E402

log = _log.setup(snakemake)
s = snakemake.params.settings
_metric.run(
    snakemake, log,
    lambda: bertscore.BERTScore(model=s["model"], num_layers=s["num_layers"], idf=s["idf"],
                                batch_size=s["batch_size"], device=snakemake.params.device,
                                threads=snakemake.threads),
    bertscore.score_dataset,
    lambda scorer: scorer.provenance(),
)
