"""What G-Eval's weighted Likert score costs the embedded judge (a benchmark, not a test).

The same SummEval units are judged, each run from an empty response cache and with
its own llama.cpp server, back to back on this machine:

- ``integer``: ``top_logprobs: null`` (the paper's protocol only; the old default);
- ``weighted``: ``top_logprobs: 10`` with ``server.logits_all: false``, the default:
  logprobs of the sampled positions only (sumjudge/judge/llama_server.py);
- ``logits_all``: ``top_logprobs: 10`` with ``server.logits_all: true``: llama-cpp-python's
  own path, logits for every prompt token (``--no-logits-all`` leaves it out).

Runs go integer, weighted, [logits_all,] weighted, integer (ABA: a load that drifts
during the benchmark touches both the same), and the figures printed are the mean
seconds per request of each mode (both runs pooled), the ratio to ``integer``, and
whether the integer scores agree across modes unit by unit.

    .venv/bin/python benchmarks/weighted_scores.py                      # 1.5B, 2 docs x 4 systems
    .venv/bin/python benchmarks/weighted_scores.py --judge qwen-0.5b --docs 1 --systems 4
    .venv/bin/python benchmarks/weighted_scores.py --slice   # the README's first command, twice

``--slice``: the README's first command (``--configfile tests/slice.yaml``) in two fresh
copies of this checkout, back to back: integer-only (an extra config file setting
``judges.qwen-1.5b.top_logprobs: null``), then the default; prints both wall times,
their ratio, and the judge rules' summed wall time.

Needs results/data/summeval.parquet (else it is prepared from --mirror) and the judge's
embedded model installed.
"""
from __future__ import annotations

import argparse
import copy
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from sumjudge.judge.run import judge_dataset
from sumjudge.judge.spec import JudgeSettings, judge_spec
from judge_throughput import summeval_units  # the same units as the throughput benchmark

TEMPLATE = REPO / "prompts/likert_summeval.txt"
DIMS = ["coherence", "consistency", "fluency", "relevance"]


def mode_spec(settings: dict, mode: str) -> JudgeSettings:
    s = copy.deepcopy(settings)
    if mode == "integer":
        s["top_logprobs"] = None
    else:
        s["top_logprobs"] = 10
        s["server"] = {**(s.get("server") or {}), "logits_all": mode == "logits_all"}
    return judge_spec("bench", s)


def run_mode(df: pd.DataFrame, settings: dict, mode: str) -> dict:
    spec = mode_spec(settings, mode)
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.monotonic()
        table, usage = judge_dataset(df, "summeval", "base", TEMPLATE, spec, cache_dir=cache, progress=False)
        wall = time.monotonic() - t0
    lat = table["latency_s"].dropna().tolist()
    return {"mode": mode, "requests": usage["requests_sent"], "wall_s": wall, "latencies": lat,
            "labels": table.set_index("unit_id")[DIMS], "weighted": table.set_index("unit_id")[
                [d + "_weighted" for d in DIMS]], "output_tokens": int(table["output_tokens"].sum())}


def slice_run(mode: str, mirror: Path) -> dict:
    """The README's first command in a fresh copy of this checkout (tracked and
    untracked files, no results/): ``integer`` adds top_logprobs: null."""
    import json
    import os
    import shutil
    import subprocess

    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, check=True,
                           capture_output=True, text=True).stdout.split()
    root = Path(tempfile.mkdtemp(prefix=f"slice-{mode}-"))
    for f in files:
        if (REPO / f).is_file():
            (root / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, root / f)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "slice benchmark copy"]):  # the manifest wants git
        subprocess.run(git + args, cwd=root, check=True, capture_output=True)
    cmd = [str(Path(sys.executable).parent / "snakemake"), "--cores", "2", "--configfile", "tests/slice.yaml"]
    if mode == "integer":
        (root / ".git/info/integer.yaml").write_text("judges:\n  qwen-1.5b:\n    top_logprobs: null\n")
        cmd += [".git/info/integer.yaml"]
    cmd += ["--config", f"mirror={mirror.resolve()}"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    if proc.returncode:
        sys.exit(f"slice ({mode}) failed in {root}:\n{proc.stderr[-3000:]}")
    usages = [json.loads(p.read_text()) for p in root.glob("results/judge/*/*/*.usage.json")]
    t1 = root / "results/tables/table1.csv"
    rows = sorted(set(pd.read_csv(t1)["row"])) if t1.exists() else []
    shutil.rmtree(root, ignore_errors=True)
    return {"mode": mode, "wall_s": wall, "judge_wall_s": sum(u["wall_s"] for u in usages),
            "requests": sum(u["requests_sent"] for u in usages), "table1_judge_rows": [r for r in rows if "qwen" in r]}


def slice_main(mirror: Path) -> None:
    print("the README's first command (tests/slice.yaml), fresh copies, back to back")
    runs = [slice_run(m, mirror) for m in ("integer", "weighted")]
    for r in runs:
        print(f"  {r['mode']:<9} {r['wall_s']:7.1f} s wall, judge rules {r['judge_wall_s']:7.1f} s, "
              f"{r['requests']} requests; Table 1 judge rows: {', '.join(r['table1_judge_rows'])}")
    print(f"weighted / integer: wall {runs[1]['wall_s'] / runs[0]['wall_s']:.2f}x, "
          f"judge rules {runs[1]['judge_wall_s'] / runs[0]['judge_wall_s']:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", default="qwen-1.5b", help="an embedded judge of config.yaml")
    ap.add_argument("--docs", type=int, default=2)
    ap.add_argument("--systems", type=int, default=4)
    ap.add_argument("--no-logits-all", action="store_true", help="leave out llama-cpp-python's logits_all path")
    ap.add_argument("--data", type=Path, default=REPO / "results/data/summeval.parquet")
    ap.add_argument("--mirror", type=Path, default=REPO.parent / "shared/data")
    ap.add_argument("--slice", action="store_true", help="time the README's first command, integer-only vs default")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.slice:
        return slice_main(args.mirror)
    settings = yaml.safe_load((REPO / "config.yaml").read_text())["judges"][args.judge]
    if not settings.get("embedded"):
        sys.exit(f"judge {args.judge} is not embedded")
    df = summeval_units(args.docs, args.systems, args.data, args.mirror)
    order = ["integer", "weighted"] + ([] if args.no_logits_all else ["logits_all"]) + ["weighted", "integer"]
    print(f"judge {args.judge} ({settings['embedded']}), {len(df)} SummEval units "
          f"({args.docs} documents x {args.systems} systems), runs in order: {', '.join(order)}")
    runs = []
    for mode in order:
        r = run_mode(df, settings, mode)
        runs.append(r)
        print(f"  {mode:<10} {r['requests']} requests, {r['wall_s']:.1f} s wall, "
              f"{statistics.mean(r['latencies']):.2f} s/request, {r['output_tokens']} output tokens", flush=True)
    base = [x for r in runs if r["mode"] == "integer" for x in r["latencies"]]
    ref = runs[0]["labels"]
    print(f"\n{'mode':<11}{'s/request':>10}{'x integer':>11}{'wall s':>9}  integer scores as integer-only")
    for mode in dict.fromkeys(order):
        mine = [r for r in runs if r["mode"] == mode]
        lat = [x for r in mine for x in r["latencies"]]
        same = all(r["labels"].equals(ref) for r in mine)
        print(f"{mode:<11}{statistics.mean(lat):>10.2f}{statistics.mean(lat) / statistics.mean(base):>11.2f}"
              f"{sum(r['wall_s'] for r in mine) / len(mine):>9.1f}  {'identical' if same else 'DIFFERENT'}")
    w = [r for r in runs if r["mode"] == "weighted"][0]["weighted"]
    print(f"\nweighted scores: {int(w.notna().all(axis=1).sum())} of {len(w)} units have all four; "
          f"distinct values per dimension: "
          + ", ".join(f"{d} {w[d + '_weighted'].round(3).nunique()}" for d in DIMS))
    la = [r for r in runs if r["mode"] == "logits_all"]
    if la:
        diff = (la[0]["weighted"] - w).abs().max().max()
        print(f"largest |weighted - logits_all weighted| over all units and dimensions: {diff:.2e}")


if __name__ == "__main__":
    main()
