"""Rule `judge`: results/data/{dataset}.parquet + prompt -> results/judge/{judge}/{dataset}/{variant}.*
(`{variant}` = `base_swapped`: the base prompt with every pair asked the other way round)."""
import logging
import os
import sys
from pathlib import Path

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

import pandas as pd

from sumjudge import datasets
from sumjudge.io import write_json, write_parquet
from sumjudge.judge.errors import EmbeddedError, FatalJudgeError
from sumjudge.judge.prompts import TemplateError, load_template
from sumjudge.judge.run import judge_dataset, retryable_errors
from sumjudge.judge.spec import JudgeSettings
from sumjudge.judge.targets import split_variant

log = _log.setup(snakemake)
for noisy in ("httpx", "httpx2", "openai"):  # one line per request otherwise
    logging.getLogger(noisy).setLevel(logging.WARNING)

wc = snakemake.wildcards
p = snakemake.params
variant, swapped = split_variant(wc.variant)
spec = dict(p.spec)  # the settings dict, written into the table's metadata as it is
settings = JudgeSettings.from_params(spec)
server_log = str(Path(snakemake.log[0]).with_suffix(".server.log"))
try:
    template = load_template(snakemake.input.prompt)
    df = pd.read_parquet(snakemake.input.data)
    dataset = datasets.get(wc.dataset, snakemake.config)  # a user's dataset: its spec from custom_datasets
    table, usage = judge_dataset(df, dataset, variant, template, settings, cache_dir=p.cache_dir,
                                 model_dir=p.model_dir, order=p.order, server_log=server_log,
                                 progress=p.progress, swapped=swapped)
except (FatalJudgeError, EmbeddedError, TemplateError) as err:
    log.error("%s", err)
    sys.exit(1)

failed = retryable_errors(table)  # every api_error, of any kind
if len(failed) and not p.allow_api_errors:
    log.error("%s/%s/%s: %d of %d requests still failed after %s retries (%s). The %d replies received "
              "are cached: run again to retry only the failed ones, or set judge.allow_api_errors: true "
              "to keep them as status api_error.", wc.judge, wc.dataset, wc.variant, len(failed), len(table),
              settings.max_retries, ", ".join(f"{k}: {v}" for k, v in failed["error_kind"].value_counts().items()),
              int((table["status"] != "api_error").sum()))
    sys.exit(1)

write_parquet(table, snakemake.output.table, {
    "stage": "judge", "judge": wc.judge, "dataset": wc.dataset, "variant": variant,
    "model": settings.model, "spec": spec,  # holds env var names, never a key
    "prompt_file": Path(template.path).name,
    "prompt_sha256": template.sha256, "order": p.order,
    "cache_dir": str(p.cache_dir),  # the table stage checks every request_key against it
    "status": usage["status"], "requests_sent": usage["requests_sent"], "cache_hits": usage["cache_hits"]})
write_json(usage, snakemake.output.usage)
log.info("%s/%s/%s: %d rows (%s); %d requests sent, %d batches submitted, %d cache hits, %d+%d tokens "
         "(%d cached, %d reasoning), cost %s",
         wc.judge, wc.dataset, wc.variant, len(table),
         ", ".join(f"{k} {v}" for k, v in usage["status"].items()),
         usage["requests_sent"], usage["batches_submitted"], usage["cache_hits"], usage["input_tokens"],
         usage["output_tokens"], usage["cached_input_tokens"], usage["reasoning_tokens"],
         "unknown (no price configured)" if usage["cost_usd"] is None else f"${usage['cost_usd']:.4f}")
