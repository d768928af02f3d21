"""Rule `judge_batch_submit`: a `mode: batch` judge's batches for one dataset and variant
(`base_swapped`: the pairs the other way round) are uploaded and created; rule `judge` then
only waits for them (docs/judge.md, "The Batch API")."""
import logging
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

import pandas as pd

from sumjudge import datasets
from sumjudge.io import write_json
from sumjudge.judge.errors import EmbeddedError, FatalJudgeError
from sumjudge.judge.prompts import TemplateError, load_template
from sumjudge.judge.run import submit_batches
from sumjudge.judge.targets import split_variant

log = _log.setup(snakemake)
for noisy in ("httpx", "httpx2", "openai"):
    logging.getLogger(noisy).setLevel(logging.WARNING)

wc = snakemake.wildcards
p = snakemake.params
variant, swapped = split_variant(wc.variant)
try:
    record = submit_batches(pd.read_parquet(snakemake.input.data), datasets.get(wc.dataset, snakemake.config),
                            variant, load_template(snakemake.input.prompt), dict(p.spec), cache_dir=p.cache_dir,
                            order=p.order, swapped=swapped)
except (FatalJudgeError, EmbeddedError, TemplateError) as err:
    log.error("%s", err)
    sys.exit(1)
write_json(record, snakemake.output[0])
log.info("%s: %d of %d requests not cached; %d batch(es) in flight (%d created now), %d chunk(s) held back "
         "by batch.max_enqueued_tokens", record["label"], record["not_cached"], record["requests"],
         len(record["batches"]), record["submitted_now"], record["chunks_held_back"])
