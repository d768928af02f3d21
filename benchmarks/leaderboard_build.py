"""Build time of the judge leaderboard on the full data with two judges' tables present.

Two judges' replies are synthesised for every unit of the prepared datasets (seeded
random valid labels: the build's cost does not depend on what the labels say) with
their Table 1-5 cells, then :func:`sumjudge.tables.leaderboard.build` runs with the
default resamples. Prepare the full datasets first (no `subset`), e.g.

    .venv/bin/snakemake --cores 2 --config mirror=../shared/data judge='{run: []}' -- \\
        results/data/{summeval,newsroom,tldr,realsumm,qags_cnn,qags_xsum}.parquet
    PYTHONPATH=$PWD .venv/bin/python benchmarks/leaderboard_build.py --data results/data

or let it prepare them in memory from the mirror (``--mirror ../shared/data``);
``--resamples 50`` is its smallest run (the smoke test's), not the figure to quote.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sumjudge.datasets import BUILTIN
from sumjudge.tables.chart import COLUMNS_28
from sumjudge.tables.leaderboard import LABEL_TO_NAME, build

NAMES = ("summeval", "newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum")


def fake_judge(root: Path, judge: str, name: str, data: pd.DataFrame, rng) -> str:
    spec = BUILTIN[name]
    df = pd.DataFrame({"unit_id": data["unit_id"].astype(str), "sample": 0, "status": "ok"})
    if spec.protocol == "likert":
        for d in spec.dimensions:
            df[d] = rng.integers(1, 6, len(df)).astype(float)
    elif spec.protocol == "pairwise":
        df["choice"] = rng.integers(0, 2, len(df))
    elif spec.protocol == "pyramid":
        df["scu_labels"] = [list(rng.random(len(x)) < 0.5) for x in data["scu_labels"]]
    else:
        df["label"] = rng.integers(0, 2, len(df))
    out = root / "judge" / judge / name / "base.parquet"
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(out)
    out.with_suffix(".usage.json").write_text(json.dumps({"n_units": len(df), "wall_s": len(df) * 1.0,
                                                          "total_cost_usd": 0.0, "priced": True}))
    return str(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="results/data", help="prepared dataset tables (<name>.parquet)")
    ap.add_argument("--mirror", default=None, help="prepare the tables from this data mirror instead")
    ap.add_argument("--resamples", type=int, default=1000, help="permutation resamples (the default config's)")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if a.mirror:
            from sumjudge.data.prepare import locate, prepare_dataset, source_files
            sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
            from support.harness import default_options
            opts = default_options()  # config.yaml's reader sections (tests/support/harness.py)
            (root / "data").mkdir()
            for n in NAMES:
                prepare_dataset(n, locate(source_files(n, opts), a.mirror), opts).to_parquet(root / f"data/{n}.parquet")
            a.data = str(root / "data")
        datas = {n: f"{a.data}/{n}.parquet" for n in NAMES if Path(f"{a.data}/{n}.parquet").exists()}
        sizes = {n: len(pd.read_parquet(p)) for n, p in datas.items()}
        judges = [fake_judge(root, j, n, pd.read_parquet(p), rng) for j in ("judge-a", "judge-b") for n, p in datas.items()]
        rows = [{"table": t, "dataset": ds, "dimension": dim, "level": lv, "row": j, "kind": "judge",
                 "value": float(rng.random()), "ci_low": 0.0, "ci_high": 1.0, "n": sizes.get(LABEL_TO_NAME[ds]),
                 "near_constant": False} for j in ("judge-a", "judge-b") for t, ds, dim, lv in COLUMNS_28]
        pd.DataFrame(rows).to_csv(root / "tables.csv", index=False)
        t = time.perf_counter()
        out = build([str(root / "tables.csv")], datas, judges, {"judge-a": {}, "judge-b": {"embedded": "x"}},
                    {"seed": 2023, "permutation_resamples": a.resamples,
                     "permutation": {"sample": "documents", "system": "systems", "dataset": "documents"}})
        wall = time.perf_counter() - t
    print(f"datasets (units): {sizes}")
    print(f"leaderboard build, 2 judges, {a.resamples} resamples: {wall:.1f} s ({len(out['cells'])} cells, {len(out['pairs'])} pair tests, "
          f"{len(out['alt'])} alt-test annotator tests); target < 300 s on 2 cores")


if __name__ == "__main__":
    main()
