"""Judge request-layer throughput and embedded-judge wall time (a benchmark, not a test).

1. Throughput against a local latency-simulating OpenAI-compatible server, as a share
   of the configured requests-per-minute limit (and what caps it when it falls short:
   concurrency x latency).
2. The embedded judge's wall time for the same SummEval units sent in article order
   (units of one article back to back, so llama.cpp reuses the article's cached
   prefix) vs shuffled. Each order starts from an empty response cache.

    .venv/bin/python benchmarks/judge_throughput.py                 # both parts
    .venv/bin/python benchmarks/judge_throughput.py --skip-embedded # part 1 only (seconds)
    .venv/bin/python benchmarks/judge_throughput.py --docs 2 --systems 8

Part 2 needs results/data/summeval.parquet (else it is prepared from --mirror).
"""
from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the fake OpenAI server is test support code

from sumjudge.judge.run import judge_dataset
from sumjudge.judge.spec import judge_spec, judge_specs
from support.fake_openai import FakeOpenAIServer

TEMPLATE = REPO / "prompts/likert_summeval.txt"


def synthetic_units(n: int) -> pd.DataFrame:
    return pd.DataFrame([{"unit_id": f"d{i // 16}/s{i}", "doc_id": f"d{i // 16}",
                          "article": f"Article {i // 16}. " * 100, "summary": f"Summary number {i}."}
                         for i in range(n)])


def throughput(n: int, rpm: float, concurrency: int, latency: float) -> dict:
    with FakeOpenAIServer(latency_s=latency) as srv:
        spec = judge_spec("bench", {"model": "fake-model", "base_url": srv.url, "max_concurrency": concurrency,
                                    "requests_per_minute": rpm})
        with tempfile.TemporaryDirectory() as cache:
            t0 = time.monotonic()
            table, usage = judge_dataset(synthetic_units(n), "summeval", "base", TEMPLATE, spec,
                                         cache_dir=cache, progress=False)
            wall = time.monotonic() - t0
        starts = sorted(t for t, _, _ in srv.log)
    # requests per minute between the first and the last reply (steady state)
    achieved = (len(starts) - 1) / (starts[-1] - starts[0]) * 60 if len(starts) > 1 else float("nan")
    cap = min(rpm, concurrency / latency * 60) if latency else rpm
    return {"requests": n, "rpm_limit": rpm, "concurrency": concurrency, "latency_s": latency,
            "achieved_rpm": round(achieved, 1), "share_of_limit": round(achieved / rpm, 3),
            "share_of_cap": round(achieved / cap, 3), "wall_s": round(wall, 2),
            "ok": int((table["status"] == "ok").sum())}


def summeval_units(docs: int, systems: int, data: Path, mirror: Path) -> pd.DataFrame:
    if data.exists():
        df = pd.read_parquet(data)
    else:
        from sumjudge.data.prepare import locate, prepare_dataset, source_files
        opts = {"subset": {}}
        df = prepare_dataset("summeval", locate(source_files("summeval", opts), mirror), opts)
    keep = sorted(df["doc_id"].unique())[:docs]
    df = df[df["doc_id"].isin(keep)]
    return df.groupby("doc_id", sort=True).head(systems).reset_index(drop=True)


def embedded_orders(df: pd.DataFrame) -> list[dict]:
    spec = judge_specs(yaml.safe_load((REPO / "config.yaml").read_text()))["qwen-0.5b"]
    out = []
    for order in ("article", "shuffled"):
        with tempfile.TemporaryDirectory() as cache:
            t0 = time.monotonic()
            table, usage = judge_dataset(df, "summeval", "base", TEMPLATE, spec, cache_dir=cache,
                                         order=order, progress=True)
            wall = time.monotonic() - t0
        out.append({"order": order, "units": len(df), "requests_sent": usage["requests_sent"],
                    "wall_s": round(wall, 1), "s_per_request": round(wall / max(1, usage["requests_sent"]), 2),
                    "input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"],
                    "ok": usage["status"].get("ok", 0), "invalid": usage["status"].get("invalid", 0)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=120)
    ap.add_argument("--docs", type=int, default=2, help="SummEval documents for part 2")
    ap.add_argument("--systems", type=int, default=6, help="systems (summaries) per document for part 2")
    ap.add_argument("--data", type=Path, default=REPO / "results/data/summeval.parquet")
    ap.add_argument("--mirror", type=Path, default=REPO.parent / "shared/data")
    ap.add_argument("--skip-embedded", action="store_true")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    print("1. request layer vs a local server that takes `latency_s` per reply")
    rows = [throughput(args.requests, rpm=600, concurrency=8, latency=0.5),    # limit binds: 10/s
            throughput(args.requests, rpm=600, concurrency=2, latency=0.5),    # concurrency binds: 4/s
            throughput(args.requests, rpm=1200, concurrency=16, latency=0.2)]  # limit binds: 20/s
    print(pd.DataFrame(rows).to_string(index=False))
    print("share_of_limit: achieved / configured requests per minute; share_of_cap: achieved / "
          "min(limit, concurrency / latency)")
    if args.skip_embedded:
        return
    print(f"\n2. embedded judge ({args.docs} SummEval documents x {args.systems} systems), article order vs shuffled")
    df = summeval_units(args.docs, args.systems, args.data, args.mirror)
    res = pd.DataFrame(embedded_orders(df))
    print(res.to_string(index=False))
    a, s = res.set_index("order")["wall_s"][["article", "shuffled"]]
    print(f"shuffled / article order: {s / a:.2f}x")


if __name__ == "__main__":
    main()
