"""Issue 16, "Batches in flight together": the nine batch jobs of one judge (six datasets,
SummEval's four variants) against the fake server with a batch completion delay D. Every
job's batch is created before the first one completes (read from the Batch objects'
timestamps) and the judge stage takes about one D, not nine."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support.harness import REPO

from support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.slow

KEY = "sk-overlap-0123456789abcdef"
DELAY_S = 60.0  # D: longer than the nine submit jobs take to start, one after another, on 2 loaded cores
RUNS = [("summeval", v) for v in ("base", "def", "def_ins", "sys_prompt")] + \
       [(d, "base") for d in ("newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum")]
JUDGE = {"model": "o-fake", "base_url": None, "api_key_env": "OPENAI_API_KEY", "temperature": None,
         "max_tokens": None, "max_completion_tokens": 2000, "reasoning_effort": "low", "seed": None,
         "max_concurrency": 4, "price_input_per_1k": 0.002, "price_output_per_1k": 0.008,
         "mode": "batch", "batch": {"poll_s": 0.2}}


def snakemake(workdir: Path, mirror: Path, *args: str):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(REPO / "config.yaml"), str(REPO / "tests/slice.yaml"), str(workdir / "batch.yaml"),
           "--config", f"mirror={mirror}", "--cores", "2", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=workdir,
                          env=dict(os.environ, OPENAI_API_KEY=KEY))


def test_the_nine_batch_jobs_of_a_judge_have_their_batches_in_flight_together(tmp_path, mirror):
    with FakeOpenAIServer(reasoning_models=("o-fake",), api_key=KEY, batch_delay_s=DELAY_S) as server:
        (tmp_path / "batch.yaml").write_text(yaml.safe_dump(
            {"judges": {"o-batch": {**JUDGE, "base_url": server.url}}, "judge": {"run": ["o-batch"]}}))
        out = snakemake(tmp_path, mirror, *[f"results/data/{d}.parquet" for d in dict(RUNS)])  # not timed
        assert out.returncode == 0, out.stderr[-4000:]
        targets = [f"results/judge/o-batch/{d}/{v}.{ext}" for d, v in RUNS for ext in ("parquet", "usage.json")]
        t0 = time.monotonic()
        out = snakemake(tmp_path, mirror, *targets)
        wall = time.monotonic() - t0
        assert out.returncode == 0, out.stderr[-6000:]
        batches = list(server.batches.values())
        events = server.batch_events
        again = snakemake(tmp_path, mirror, "-n", *targets)  # the temporary records gone: nothing to do
        assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr, again.stdout[-3000:]

    assert len(batches) == len(RUNS) and server.requests_received == 0
    assert all(b["status"] == "completed" for b in batches)
    # the Batch objects' own timestamps (Unix seconds, as the SDK's openai.types.Batch has them)
    last_created = max(b["created_at"] for b in batches)
    first_completed = min(b["completed_at"] for b in batches)
    assert last_created < first_completed, [(b["id"], b["created_at"], b["completed_at"]) for b in batches]
    assert all(b["completed_at"] - b["created_at"] >= DELAY_S - 1 for b in batches)
    created = [t for t, _, status in events if status == "validating"]
    completed = [t for t, _, status in events if status == "completed"]
    in_flight_together = min(completed) - max(created)  # seconds all nine were in flight at once
    print(f"\nD = {DELAY_S:.0f} s, nine D = {9 * DELAY_S:.0f} s; judge stage wall time {wall:.1f} s; "
          f"batches created over {max(created) - min(created):.1f} s, all nine in flight together for "
          f"{in_flight_together:.1f} s")
    assert in_flight_together > 0
    # no bound on `wall`: the batches' own timestamps above prove they were in flight together, and a
    # wall-time bound failed on a loaded machine (timings live in benchmarks/, not in tests)

    for dataset, variant in RUNS:  # the tables are rule judge's as before: every reply came through a batch
        table = pd.read_parquet(tmp_path / f"results/judge/o-batch/{dataset}/{variant}.parquet")
        assert (table["status"] == "ok").all() and (table["via"] == "batch").all()
        usage = json.loads((tmp_path / f"results/judge/o-batch/{dataset}/{variant}.usage.json").read_text())
        assert usage["batches_submitted"] == 1 and usage["requests_sent"] == 0
        assert usage["batch_replies"] == table["request_key"].nunique()  # one request per key
        assert not (tmp_path / f"results/judge/o-batch/{dataset}/{variant}.batches.json").exists()  # temp()


def test_a_batch_judges_swapped_order_is_submitted_with_the_original_and_waits_with_it(tmp_path, mirror):
    delay = 20.0
    with FakeOpenAIServer(reasoning_models=("o-fake",), api_key=KEY, batch_delay_s=delay) as server:
        (tmp_path / "batch.yaml").write_text(yaml.safe_dump(
            {"judges": {"o-batch": {**JUDGE, "base_url": server.url}},
             "judge": {"run": ["o-batch"], "pairwise_orders": ["original", "swapped"]}}))
        targets = [f"results/judge/o-batch/tldr/{v}.{ext}" for v in ("base", "base_swapped")
                   for ext in ("parquet", "usage.json")]
        out = snakemake(tmp_path, mirror, *targets)
        assert out.returncode == 0, out.stderr[-6000:]
        batches = list(server.batches.values())
    assert len(batches) == 2 and server.requests_received == 0
    assert max(b["created_at"] for b in batches) < min(b["completed_at"] for b in batches)
    tables = {v: pd.read_parquet(tmp_path / f"results/judge/o-batch/tldr/{v}.parquet") for v in ("base", "base_swapped")}
    assert set(tables["base"]["request_key"]).isdisjoint(tables["base_swapped"]["request_key"])  # other prompts
    for v, table in tables.items():
        usage = json.loads((tmp_path / f"results/judge/o-batch/tldr/{v}.usage.json").read_text())
        assert (table["via"] == "batch").all() and usage["batches_submitted"] == 1, (v, usage)


def test_a_live_judge_is_scheduled_as_before_and_a_batch_judge_waits_without_its_resource(tmp_path, mirror):
    """The dry run's jobs: a live judge's job claims all of its resource (its jobs take turns,
    as before); a batch judge's submit job claims it, ahead by priority, its waiting job none."""
    live = {k: v for k, v in JUDGE.items() if k not in ("mode", "batch")}
    (tmp_path / "batch.yaml").write_text(yaml.safe_dump(
        {"judges": {"o-live": {**live, "base_url": "http://127.0.0.1:9/v1"},
                    "o-batch": {**JUDGE, "base_url": "http://127.0.0.1:9/v1"}}, "judge": {"run": ["o-live"]}}))
    out = snakemake(tmp_path, mirror, "-n", "results/judge/o-live/tldr/base.parquet",
                    "results/judge/o-batch/tldr/base.parquet")
    assert out.returncode == 0, out.stderr[-3000:]
    jobs = {}
    for block in out.stdout.split("\nrule ")[1:]:
        rule, fields = block.split(":", 1)[0], dict(line.strip().split(": ", 1) for line in block.splitlines()[1:]
                                                    if ": " in line)
        jobs[(rule, fields.get("output", "").split("/")[2] if "judge" in rule else "")] = fields
    claims = {k: dict(r.split("=") for r in f["resources"].split(", ")) for k, f in jobs.items() if "judge" in k[0]}
    assert claims[("judge", "o-live")]["judge_o_live"] == "4" and claims[("judge", "o-live")]["judge_o_batch"] == "0"
    assert claims[("judge_batch_submit", "o-batch")]["judge_o_batch"] == "4"
    assert claims[("judge", "o-batch")]["judge_o_batch"] == "0" and claims[("judge", "o-batch")]["judge_o_live"] == "0"
    assert jobs[("judge_batch_submit", "o-batch")].get("priority") == "10" and "priority" not in jobs[("judge", "o-live")]
    assert ("judge_batch_submit", "o-live") not in jobs  # a live judge has no submit step
