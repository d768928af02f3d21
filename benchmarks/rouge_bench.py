"""Benchmark: ROUGE wall time on SummEval (1600 summaries x 11 references) at 1 and 2 workers.

    .venv/bin/python benchmarks/rouge_bench.py [--mirror ../shared/data] [--workers 1 2] [--docs N]

Prints one line per worker count. Not a test: numbers depend on the machine.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from sumjudge.data.prepare import apply_subset, locate, prepare_dataset, source_files
from sumjudge.metrics.rouge import score_dataset


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=str(here.parent / "shared" / "data"))
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--implementation", default="rouge-score", choices=["rouge-score", "rouge-perl"])
    ap.add_argument("--docs", type=int, default=None, help="first N SummEval documents (default: all 100)")
    args = ap.parse_args()
    df = prepare_dataset("summeval", locate(source_files("summeval"), args.mirror))
    if args.docs:
        df = apply_subset(df, docs=args.docs)
    print(f"SummEval: {len(df)} summaries x {len(df['references'].iloc[0])} references, "
          f"{args.implementation}, {os.cpu_count()} CPUs")
    base = None
    for w in args.workers:
        t0 = time.perf_counter()
        score_dataset(df, "summeval", args.implementation, workers=w, progress=False)
        dt = time.perf_counter() - t0
        base = base or dt
        print(f"workers={w}: {dt:7.1f} s wall  ({len(df) / dt:6.1f} summaries/s, speed-up {base / dt:.2f}x)")


if __name__ == "__main__":
    main()
