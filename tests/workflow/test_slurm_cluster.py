"""The pipeline on a real SLURM cluster: a single node on 127.0.0.1 that this test
starts (tests/support/slurm.py: munge, slurmctld, slurmd from Debian's packages, installed
when missing) and stops by PID. The data and ROUGE part of the slice plus one judge
dataset (SummEval, two prompt variants, judged by the fake OpenAI-compatible server)
run once on the local executor and once through `--executor slurm` with
workflow/profiles/slurm (+ slurm-test); every output must be equal, the jobs must
really have gone through SLURM, a judge's concurrency must hold across jobs, and the
API key must appear in no job script, no SLURM log and nowhere under results/.
"""
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support import harness
from support.fake_openai import FakeOpenAIServer
from support.harness import REPO, fake_judge, workflow_env
from support.slurm import LocalSlurm

pytestmark = pytest.mark.system("slurm", "rouge-perl")  # tests/support/system.py NEEDS

PROFILES = REPO / "workflow/profiles"
MARKER = "sk-SLURMMARKER-9e107d9d372bb6826bd81d3542a419d6"
DATASETS = ROUGE = ("summeval", "newsroom", "tldr")  # the slice's ROUGE datasets (16 fetched files)
VARIANTS = ("base", "def")
CONCURRENCY = 2
TARGETS = ([f"results/data/{d}.parquet" for d in DATASETS]
           + [f"results/metrics/rouge/{d}.parquet" for d in ROUGE]
           + [f"results/judge/fake/summeval/{v}.{ext}" for v in VARIANTS for ext in ("parquet", "usage.json")])
# what differs between two runs by nature: when and how fast, not what
VOLATILE_COLUMNS = {"created", "latency_s"}
VOLATILE_USAGE = {"wall_s"}


def snakemake_cmd(workdir: Path, mirror: Path, *args: str) -> list[str]:
    return harness.snakemake_cmd(workdir, *args, *TARGETS,
                                 configfiles=[harness.CONFIG, harness.SLICE, workdir / "fake.yaml"],
                                 config=[f"mirror={mirror}"])


def make_workdir(root: Path, server) -> Path:
    root.mkdir(parents=True)
    cfg = {"judges": {"fake": fake_judge(server, max_concurrency=CONCURRENCY)},
           "datasets": list(DATASETS),
           "judge": {"run": ["fake"], "datasets": ["summeval"], "summeval_variants": list(VARIANTS),
                     "progress": False}}
    (root / "fake.yaml").write_text(yaml.safe_dump(cfg))
    return root


@pytest.fixture(scope="module")
def base():
    # not pytest's tmp_path: munged needs every folder above its socket searchable by all
    d = Path(tempfile.mkdtemp(prefix="sumjudge-slurm-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(models=("fake-model",), api_key=MARKER, latency_s=0.05) as srv:
        yield srv


@pytest.fixture(scope="module")
def runs(base, mirror, server):
    """(local workdir, slurm workdir, slurm run's facts); the cluster is gone afterwards."""
    env = workflow_env(OPENAI_API_KEY=MARKER)
    local = make_workdir(base / "local", server)
    t0 = time.monotonic()
    out = subprocess.run(snakemake_cmd(local, mirror, "--cores", "2"), capture_output=True, text=True,
                         env=env, cwd=local, timeout=900)
    assert out.returncode == 0, out.stderr[-4000:]
    local_in_flight = server.max_in_flight
    local_s = time.monotonic() - t0

    server.max_in_flight, server.auth_headers = 0, set()
    sent_locally = server.requests_received
    slurm = make_workdir(base / "slurm", server)
    with LocalSlurm(base / "cluster") as cluster:
        t0 = time.monotonic()
        # the plugin ignores SIGTERM and never returns when a status query fails: SIGINT it
        cmd = ["timeout", "-s", "INT", "900", *snakemake_cmd(
            slurm, mirror, "--profile", str(PROFILES / "slurm"), "--profile", str(PROFILES / "slurm-test"))]
        out = subprocess.run(cmd, capture_output=True, text=True, env={**env, **cluster.env}, cwd=slurm,
                             timeout=960)
        facts = {"seconds": time.monotonic() - t0, "stdout": out.stdout, "stderr": out.stderr,
                 "returncode": out.returncode, "job_ids": cluster.job_ids(),
                 "local_in_flight": local_in_flight, "slurm_in_flight": server.max_in_flight,
                 "slurm_auth": set(server.auth_headers), "slurm_requests": server.requests_received - sent_locally}
        facts["scripts"] = {j: cluster.batch_script(j) for j in facts["job_ids"]}
        facts["jobs"] = {j: cluster.job_info(j) for j in facts["job_ids"]}
        facts["daemon_logs"] = {p.name: p.read_bytes() for p in (base / "cluster").glob("*.log")}
        facts["job_env_files"] = [p.read_bytes() for p in (base / "cluster/state").rglob("environment")]
    in_env = sum(MARKER.encode() in e for e in facts["job_env_files"])
    print(f"\nlocal run: {local_s:.1f} s; SLURM run: {facts['seconds']:.1f} s, {len(facts['job_ids'])} jobs; "
          f"the key is in {in_env} of {len(facts['job_env_files'])} job environments slurmctld keeps "
          "in its state folder")  # shown with pytest -s
    assert out.returncode == 0, (out.stderr[-6000:], facts["daemon_logs"].get("slurmctld.log", b"")[-2000:])
    return local, slurm, facts


def test_jobs_really_went_through_slurm(runs):
    local, slurm, facts = runs
    log = facts["stdout"] + facts["stderr"]
    submitted = set(re.findall(r"has been submitted with SLURM jobid (\d+)", log))
    # one job per non-local rule: 3 prepare_dataset + 3 rouge + 2 judge (fetch runs on the head node)
    assert len(submitted) == len(DATASETS) + len(ROUGE) + len(VARIANTS), log[-3000:]
    assert submitted <= facts["job_ids"], (submitted, facts["job_ids"])
    logs = list((slurm / ".snakemake/slurm_logs").rglob("*.log"))
    assert {p.stem for p in logs} == submitted
    rules = {p.relative_to(slurm / ".snakemake/slurm_logs").parts[0] for p in logs}
    assert rules == {"rule_prepare_dataset", "rule_rouge", "rule_judge"}
    # each job asked SLURM for its rule's threads (config threads.rouge: 2, a remote judge 1)
    info = {j: facts["jobs"][j] for j in submitted}
    assert all(i["JobState"] == "COMPLETED" for i in info.values()), info
    cpus = {i["Comment"].split("_wildcards_")[0]: i["CPUs/Task"] for i in info.values()}
    assert cpus == {"rule_prepare_dataset": "1", "rule_rouge": "2", "rule_judge": "1"}, cpus
    assert not (local / ".snakemake/slurm_logs").exists()


def test_outputs_equal_the_local_run(runs):
    local, slurm, _ = runs
    a = {p.relative_to(local) for p in (local / "results").rglob("*") if p.is_file()}
    b = {p.relative_to(slurm) for p in (slurm / "results").rglob("*") if p.is_file()}
    assert a == b and a
    for rel in sorted(a):
        x, y = local / rel, slurm / rel
        if rel.suffix == ".parquet":
            dx, dy = pd.read_parquet(x), pd.read_parquet(y)
            dx = dx.drop(columns=[c for c in VOLATILE_COLUMNS if c in dx])
            dy = dy.drop(columns=[c for c in VOLATILE_COLUMNS if c in dy])
            pd.testing.assert_frame_equal(dx, dy, check_exact=True, obj=str(rel))
        elif rel.name.endswith(".usage.json"):
            ux, uy = json.loads(x.read_text()), json.loads(y.read_text())
            assert {k: v for k, v in ux.items() if k not in VOLATILE_USAGE} == \
                   {k: v for k, v in uy.items() if k not in VOLATILE_USAGE}, rel
        elif rel.parts[:3] == ("results", "cache", "judge"):
            ex, ey = json.loads(x.read_text()), json.loads(y.read_text())
            assert ex.get("reply") == ey.get("reply") and ex.get("request") == ey.get("request"), rel
        else:
            assert x.read_bytes() == y.read_bytes(), rel
    judged = pd.read_parquet(slurm / "results/judge/fake/summeval/base.parquet")
    assert len(judged) == 48 and (judged["status"] == "ok").all()


def test_a_judges_concurrency_holds_across_jobs(runs):
    _, _, facts = runs
    # the two judge jobs (1 CPU each) would fit the 2-CPU node together; the judge_<name>
    # resource, held by the main snakemake for the whole cluster, runs them one after the other
    judges = sorted((i["StartTime"], i["EndTime"]) for i in facts["jobs"].values()
                    if i["Comment"].startswith("rule_judge_"))
    assert len(judges) == len(VARIANTS)
    assert judges[0][1] <= judges[1][0], judges
    assert facts["slurm_in_flight"] == CONCURRENCY  # each job uses the judge's whole concurrency
    assert facts["local_in_flight"] == CONCURRENCY


def test_key_reaches_jobs_but_no_script_log_or_result(runs):
    local, slurm, facts = runs
    # the SLURM jobs sent the key they got through sbatch --export=ALL, with every request
    sent = sum(json.loads((slurm / f"results/judge/fake/summeval/{v}.usage.json").read_text())["requests_sent"]
               for v in VARIANTS)
    assert facts["slurm_auth"] == {f"Bearer {MARKER}"} and facts["slurm_requests"] == sent > 0
    needles = (MARKER.encode(), MARKER[-12:].encode())
    assert facts["scripts"] and all(s for s in facts["scripts"].values())
    for job, script in facts["scripts"].items():
        assert MARKER not in script and MARKER[-12:] not in script, f"batch script of job {job}"
    for name, text in facts["daemon_logs"].items():
        assert not any(n in text for n in needles), name
    for root in (slurm / "results", slurm / "logs", slurm / ".snakemake"):
        for f in root.rglob("*"):
            if f.is_file():
                assert not any(n in f.read_bytes() for n in needles), f
    assert MARKER not in facts["stdout"] + facts["stderr"]
