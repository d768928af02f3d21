"""Shared body of the metric rule scripts: build the scorer (which checks the model
first and fails within seconds with a clear message), score, write atomically."""
import logging
import sys
from typing import Callable

import pandas as pd

from sumjudge import datasets
from sumjudge.io import write_parquet
from sumjudge.metrics.loading import ModelUnavailable


def run(snakemake, log: logging.Logger, make_scorer: Callable, score: Callable, meta: Callable) -> None:
    dataset = snakemake.wildcards.dataset
    spec = datasets.get(dataset, snakemake.config)  # looked up once; a user's dataset: from custom_datasets
    try:
        scorer = make_scorer()
    except ModelUnavailable as err:
        log.error("%s", err)
        sys.exit(1)
    df = pd.read_parquet(snakemake.input[0])
    log.info("%s: scoring %d units with %s on %s", dataset, len(df), scorer.resolved.configured,
             scorer.device)
    out = score(df, spec, scorer)
    write_parquet(out, snakemake.output[0], {"dataset": dataset, **meta(scorer)})
    log.info("%s: wrote %s (%d rows; columns %s)", dataset, snakemake.output[0], len(out), list(out.columns))
