"""What a configuration would cost before any paid request.

For every judge, dataset and prompt variant: how many requests the pipeline would
send (replies already in the cache are free), their prompt tokens (about 4
characters a token, plus a few tokens of chat formatting per message), an expected
and a worst-case (``max_tokens``) number of completion tokens, and the USD these
come to at the judge's configured prices.

    snakemake --cores 1 judge_cost_estimate        # -> results/judge/cost_estimate.csv
    python -m sumjudge.judge.estimate [--configfile config.yaml ...]   # prints the table
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .cache import ResponseCache
from .prompts import load_template
from .protocols import protocol, prompt_file
from .run import estimate_tokens, plan_requests

CHAT_OVERHEAD_TOKENS = 7  # per message: role markers and separators

# typical completion length when the judge does what it is asked
EXPECTED_OUTPUT_TOKENS = {"likert": 40, "pairwise": 4, "binary": 2}


def expected_output_tokens(proto: str, row: dict[str, Any], max_tokens: int) -> int:
    if proto == "pyramid":
        n = min(max_tokens, 4 * len(row["scus"]) + 2)  # "12. Yes\n" per SCU
    else:
        n = EXPECTED_OUTPUT_TOKENS[proto]
    return min(n, max_tokens)


def estimate(tables: dict[str, pd.DataFrame], specs: dict[str, dict[str, Any]],
             variants: dict[str, list[str]], cache_dir: str, prompt_dir: str = "prompts") -> pd.DataFrame:
    cache = ResponseCache(cache_dir)
    rows = []
    for name, spec in specs.items():
        for dataset, df in tables.items():
            records = df.to_dict("records")
            proto = protocol(dataset)
            for variant in variants[dataset]:
                template = load_template(Path(prompt_dir) / Path(prompt_file(dataset, variant)).name)
                planned = plan_requests(df, dataset, template, spec, order="dataset")
                todo = [p for p in planned if p.request.key not in cache]
                inp = sum(sum(estimate_tokens(m["content"]) + CHAT_OVERHEAD_TOKENS for m in p.request.messages)
                          for p in todo)
                out = sum(expected_output_tokens(proto, records[p.row], int(spec["max_tokens"])) for p in todo)
                worst = len(todo) * int(spec["max_tokens"])
                pin, pout = spec["price_input_per_1k"] / 1000, spec["price_output_per_1k"] / 1000
                rows.append({"judge": name, "model": spec["model"], "dataset": dataset, "variant": variant,
                             "requests": len(planned), "cached": len(planned) - len(todo),
                             "to_send": len(todo), "input_tokens": inp, "output_tokens_expected": out,
                             "output_tokens_max": worst,
                             "cost_usd_expected": round(inp * pin + out * pout, 4),
                             "cost_usd_max": round(inp * pin + worst * pout, 4)})
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    cols = ["requests", "cached", "to_send", "input_tokens", "output_tokens_expected", "output_tokens_max",
            "cost_usd_expected", "cost_usd_max"]
    return table.groupby(["judge", "model"], sort=False)[cols].sum().reset_index()


def main(argv: list[str] | None = None) -> None:
    import argparse

    import yaml

    from ..data.prepare import DATASETS
    from .protocols import VARIANTS
    from .spec import judge_specs

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configfile", action="append", default=[], help="config files, later ones win")
    ap.add_argument("--results", default="results", help="where results/data lives")
    args = ap.parse_args(argv)
    config: dict[str, Any] = {}
    for path in args.configfile or ["config.yaml"]:
        _merge(config, yaml.safe_load(Path(path).read_text()) or {})
    specs = judge_specs(config)
    jc = config["judge"]
    datasets = [d for d in jc["datasets"] if d in config.get("datasets", DATASETS)]
    tables = {}
    for d in datasets:
        path = Path(args.results) / "data" / f"{d}.parquet"
        if not path.exists():
            raise SystemExit(f"{path} is missing: build it first (snakemake {path})")
        tables[d] = pd.read_parquet(path)
    variants = {d: [v for v in jc["summeval_variants"]] if d == "summeval" else list(VARIANTS[d]) for d in datasets}
    table = estimate(tables, specs, variants, jc["cache_dir"], jc.get("prompt_dir") or "prompts")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False))
        print()
        print(summary(table).to_string(index=False))


def _merge(base: dict, new: dict) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v


if __name__ == "__main__":
    main()
