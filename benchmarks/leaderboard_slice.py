"""The leaderboard's "Must show" run on the slice with three judges (tests/leaderboard.yaml):
starts the fake OpenAI server, runs the pipeline, reruns it, and `snakemake -n`; prints the
wall times, the fake server's request counts and what the leaderboard holds.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/leaderboard_slice.py [--mirror ../shared/data]

``--judges fake-api --workdir /tmp/x`` is its smallest run (the smoke test's): one judge, its
own working directory instead of this checkout's results/.

An upgrade check: copy an older checkout's finished --workdir, then run this checkout's code
over the copy with ``--forcerun prepare_dataset`` (every job below the downloads rebuilt; the
replies come from the judge cache) and compare the two folders' frames (docs/sharing.md):

    cp -a /work/slice_old /work/slice_new
    PYTHONPATH=$PWD .venv/bin/python benchmarks/leaderboard_slice.py --workdir /work/slice_new \
        --forcerun prepare_dataset
    .venv/bin/python -m sumjudge.share compare /work/slice_old/results /work/slice_new/results
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the fake OpenAI server is test support code

from support.fake_openai import FakeOpenAIServer
KEY = "sk-leaderboard-0123456789abcdef"


def snakemake(workdir: Path, extra: Path, mirror: str, *args: str) -> tuple[int, float, str]:
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "--snakefile", str(REPO / "Snakefile"),
           "--directory", str(workdir), "--configfile", str(REPO / "config.yaml"), str(REPO / "tests/slice.yaml"),
           str(REPO / "tests/leaderboard.yaml"), str(extra), "--config", f"mirror={Path(mirror).resolve()}", *args]
    t = time.monotonic()
    out = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, env=dict(os.environ, OPENAI_API_KEY=KEY))
    return out.returncode, time.monotonic() - t, out.stdout + out.stderr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default="../shared/data")
    ap.add_argument("--log", default="/tmp/leaderboard_slice")
    ap.add_argument("--workdir", type=Path, default=REPO, help="Snakemake's working directory (results/ lands there)")
    ap.add_argument("--judges", nargs="+", default=None, help="judge.run instead of tests/leaderboard.yaml's")
    ap.add_argument("--forcerun", nargs="+", default=[], metavar="RULE",
                    help="the first run reruns these rules and every job downstream (snakemake -R)")
    a = ap.parse_args()
    a.workdir.mkdir(parents=True, exist_ok=True)
    with FakeOpenAIServer(models=("fake-model",), api_key=KEY) as server:
        extra = Path(a.log + ".api.yaml")
        extra.write_text(yaml.safe_dump({"judges": {"fake-api": {"base_url": server.url}},
                                         **({"judge": {"run": a.judges}} if a.judges else {})}))
        first = ("-R", *a.forcerun) if a.forcerun else ()
        for label, args in (("first run", first), ("rerun", ()), ("dry run", ("-n",))):
            before = server.requests_received
            rc, wall, log = snakemake(a.workdir, extra, a.mirror, *args)
            Path(f"{a.log}.{label.replace(' ', '_')}.log").write_text(log)
            nothing = "Nothing to be done" in log
            sent = sum(int(n) for n in re.findall(r"(\d+) requests sent", log))  # every judge job's own count
            jobs = sorted(set(re.findall(r"^rule (\w+):", log, re.M)))
            print(f"{label}: rc={rc} wall_s={wall:.1f} requests sent by judge jobs={sent} fake-server "
                  f"requests={server.requests_received - before} nothing-to-be-done={nothing} rules run={jobs}")
            if rc != 0:
                print(log[-3000:])
                return
    lb = pd.read_csv(a.workdir / "results/leaderboard/leaderboard.csv")
    judges = lb[lb["kind"] == "judge"]
    print(f"leaderboard rows: {len(lb)}; judge cells {len(judges)}, with n {judges['n'].notna().sum()}, "
          f"interval {judges['ci_low'].notna().sum()}, rank group {judges['rank_group'].notna().sum()}, "
          f"greyed {int(judges['greyed'].sum())}, alt-test verdicts {judges['alt_passed'].notna().sum()}, "
          f"not tested {judges['alt_verdict'].fillna('').str.startswith('not tested').sum()}")
    hum = lb[(lb["kind"] == "human") & lb["value"].notna()]
    print("human rows per dataset:", hum.groupby("dataset")["row"].nunique().to_dict())
    print(pd.read_csv(a.workdir / "results/leaderboard/summary.csv").to_string())


if __name__ == "__main__":
    main()
