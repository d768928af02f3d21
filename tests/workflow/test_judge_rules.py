"""The judge stage through Snakemake on tests/slice.yaml, with a local fake
OpenAI-compatible server standing in for the API (the embedded judge has its own
test): every protocol and variant is written; a rerun sends nothing; editing the
pairwise prompt re-sends only TLDR; the API key appears nowhere under results/ or
the logs; a retired model stops with a clear message."""
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from sumjudge.io import read_meta
from support import harness
from support.fake_openai import FakeOpenAIServer
from support.harness import REPO, fake_judge, write_config

pytestmark = pytest.mark.system("rouge-perl")  # tests/support/system.py NEEDS

MARKER = "sk-MARKER-d41d8cd98f00b204e9800998ecf8427e"
RUNS = [("summeval", v) for v in ("base", "def", "def_ins", "sys_prompt")] + \
       [(d, "base") for d in ("newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum")]
UNITS = {"summeval": 48, "newsroom": 7, "tldr": 5, "realsumm": 5, "qags_cnn": 5, "qags_xsum": 5}
LABELS = {"summeval": ["consistency", "relevance", "fluency", "coherence"],
          "newsroom": ["coherence", "fluency", "informativeness", "relevance"],
          "tldr": ["choice"], "realsumm": ["scu_labels"], "qags_cnn": ["label"], "qags_xsum": ["label"]}


def targets(judge="fake"):
    return [f"results/judge/{judge}/{d}/{v}.{ext}" for d, v in RUNS for ext in ("parquet", "usage.json")]


def snakemake(workdir: Path, mirror: Path, configs: list[Path], *args: str, key: str | None = MARKER):
    env = harness.workflow_env(**({"OPENAI_API_KEY": key} if key else {}))
    return harness.snakemake(workdir, "--cores", "2", *args, configfiles=[harness.CONFIG, harness.SLICE, *configs],
                             config=[f"mirror={mirror}"], timeout=1200, env=env, cwd=workdir)


def usage(workdir, dataset, variant, judge="fake"):
    return json.loads((workdir / f"results/judge/{judge}/{dataset}/{variant}.usage.json").read_text())


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(models=("fake-model",), api_key=MARKER) as srv:
        yield srv


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, mirror, server):
    wd = tmp_path_factory.mktemp("judge-wf")
    shutil.copytree(REPO / "prompts", wd / "my-prompts")
    write_config(wd / "fake.yaml", {
        "judges": {"fake": fake_judge(server, price_input_per_1k=0.0015, price_output_per_1k=0.002)},
        "judge": {"run": ["fake"], "prompt_dir": "my-prompts"}})
    out = snakemake(wd, mirror, [wd / "fake.yaml"], *targets())
    assert out.returncode == 0, out.stderr[-4000:]
    return wd


def test_every_protocol_and_variant_is_written(workdir, server):
    sent = 0
    for dataset, variant in RUNS:
        path = workdir / f"results/judge/fake/{dataset}/{variant}.parquet"
        t = pd.read_parquet(path)
        assert len(t) == UNITS[dataset], path
        assert t["unit_id"].is_unique
        for col in ["unit_id", "sample", "prompt_hash", "reply", "status", "invalid_reason", "input_tokens",
                    "output_tokens", "cost_usd", *LABELS[dataset]]:
            assert col in t, (path, col)
        assert (t["status"] == "ok").all(), t[t["status"] != "ok"][["status", "invalid_reason"]]
        data = pd.read_parquet(workdir / f"results/data/{dataset}.parquet")
        assert set(t["unit_id"]) == set(data["unit_id"])
        u = usage(workdir, dataset, variant)
        # identical prompts (two systems with the same summary) are sent once
        assert u["requests_sent"] == t["prompt_hash"].nunique() and u["cache_hits"] == 0
        assert u["cost_usd"] == pytest.approx(u["input_tokens"] * 0.0015 / 1000 + u["output_tokens"] * 0.002 / 1000,
                                              abs=1e-6)
        assert read_meta(path)["variant"] == variant
        sent += u["requests_sent"]
    realsumm = pd.read_parquet(workdir / "results/judge/fake/realsumm/base.parquet")
    scus = pd.read_parquet(workdir / "results/data/realsumm.parquet").set_index("unit_id")["scus"]
    for uid, labels in zip(realsumm["unit_id"], realsumm["scu_labels"]):
        assert len(labels) == len(scus[uid])
    assert server.requests_received == sent


def test_key_appears_nowhere_under_results_or_logs(workdir, server):
    assert server.auth_headers == {f"Bearer {MARKER}"}  # the key was really used
    for root in ("results", "logs", ".snakemake/log"):
        for f in (workdir / root).rglob("*"):
            if f.is_file():
                assert MARKER.encode() not in f.read_bytes(), f
                assert MARKER[-12:].encode() not in f.read_bytes(), f


def test_rebuild_from_cache_sends_nothing(workdir, mirror, server):
    before = server.requests_received
    shutil.rmtree(workdir / "results/judge")
    out = snakemake(workdir, mirror, [workdir / "fake.yaml"], *targets())
    assert out.returncode == 0, out.stderr[-4000:]
    assert server.requests_received == before
    for dataset, variant in RUNS:
        u = usage(workdir, dataset, variant)
        assert u["requests_sent"] == 0 and u["cache_hits"] >= u["n_units"] - 1, (dataset, variant)
    # and with nothing changed, nothing runs at all
    out = snakemake(workdir, mirror, [workdir / "fake.yaml"], "-n", *targets())
    assert "Nothing to be done" in out.stdout + out.stderr


def test_editing_the_pairwise_prompt_resends_only_tldr(workdir, mirror, server):
    before = server.requests_received
    mtimes = {r: (workdir / f"results/judge/fake/{r[0]}/{r[1]}.parquet").stat().st_mtime_ns for r in RUNS}
    prompt = workdir / "my-prompts/pairwise_tldr.txt"
    prompt.write_text(prompt.read_text().replace("You do not need to explain the reason.",
                                                 "Do not explain the reason."))
    out = snakemake(workdir, mirror, [workdir / "fake.yaml"], *targets())
    assert out.returncode == 0, out.stderr[-4000:]
    assert server.requests_received - before == UNITS["tldr"]
    assert usage(workdir, "tldr", "base")["requests_sent"] == UNITS["tldr"]
    for r in RUNS:
        changed = (workdir / f"results/judge/fake/{r[0]}/{r[1]}.parquet").stat().st_mtime_ns != mtimes[r]
        assert changed == (r[0] == "tldr"), r


def test_cost_estimate_before_paying(workdir, mirror):
    out = snakemake(workdir, mirror, [workdir / "fake.yaml"], "results/judge/cost_estimate.csv")
    assert out.returncode == 0, out.stderr[-4000:]
    est = pd.read_csv(workdir / "results/judge/cost_estimate.csv")
    fake = est[est["judge"] == "fake"]
    assert len(fake) == len(RUNS) and (fake["to_send"] == 0).all()  # all cached: free
    paper = est[est["judge"] == "gpt-3.5-turbo-0301"]
    # nothing cached: every request is to be sent, once per distinct prompt (two of the slice's SummEval
    # summaries are the same text in one document: they share a request, as the judge sends them)
    assert (paper["cached"] == 0).all() and (paper["to_send"] + paper["shared"] == paper["requests"]).all()
    assert (paper["shared"] == (paper["dataset"] == "summeval").astype(int)).all()
    assert paper["cost_usd_expected"].sum() > 0
    assert (paper["cost_usd_max"] >= paper["cost_usd_expected"]).all()


def test_retired_model_stops_with_the_judge_and_config_key(workdir, mirror, server):
    before = server.requests_received
    cfg = {"judges": {"gpt-3.5-turbo-0301": {"base_url": server.url}}, "judge": {"run": ["gpt-3.5-turbo-0301"]}}
    (workdir / "retired.yaml").write_text(yaml.safe_dump(cfg))
    out = snakemake(workdir, mirror, [workdir / "fake.yaml", workdir / "retired.yaml"],
                    "results/judge/gpt-3.5-turbo-0301/qags_xsum/base.parquet")
    assert out.returncode != 0
    log = (workdir / "logs/judge/gpt-3.5-turbo-0301/qags_xsum/base.log").read_text()
    assert "does not serve model 'gpt-3.5-turbo-0301'" in log and "judges.gpt-3.5-turbo-0301.model" in log
    assert server.requests_received - before == 1  # stopped at once, no retries
    assert not (workdir / "results/judge/gpt-3.5-turbo-0301/qags_xsum/base.parquet").exists()


def test_a_key_is_needed_only_for_requests_not_cached(workdir, mirror, server):
    """Issue 9: `-n` and a rebuild from the cache need no key; a request that must be
    sent stops the job with the judge, the variable and the count."""
    out = snakemake(workdir, mirror, [workdir / "fake.yaml"], "-n", *targets(), key=None)
    assert out.returncode == 0, out.stderr[-3000:]
    before = server.requests_received
    shutil.rmtree(workdir / "results/judge/fake/qags_xsum")
    out = snakemake(workdir, mirror, [workdir / "fake.yaml"], "results/judge/fake/qags_xsum/base.parquet", key=None)
    assert out.returncode == 0, out.stderr[-3000:]
    assert server.requests_received == before and usage(workdir, "qags_xsum", "base")["requests_sent"] == 0
    cfg = {"judges": {"fake2": {"model": "fake-model", "base_url": server.url, "api_key_env": "SUMJUDGE_FAKE2_KEY",
                                "temperature": 0.5}}}  # other settings: other cache keys
    (workdir / "fake2.yaml").write_text(yaml.safe_dump(cfg))
    out = snakemake(workdir, mirror, [workdir / "fake.yaml", workdir / "fake2.yaml"], "-n",
                    "results/judge/fake2/qags_xsum/base.parquet", key=None)
    assert out.returncode == 0, out.stderr[-3000:]
    out = snakemake(workdir, mirror, [workdir / "fake.yaml", workdir / "fake2.yaml"],
                    "results/judge/fake2/qags_xsum/base.parquet", key=None)
    assert out.returncode != 0 and server.requests_received == before
    log = (workdir / "logs/judge/fake2/qags_xsum/base.log").read_text()
    assert "judge 'fake2'" in log and "SUMJUDGE_FAKE2_KEY" in log and f"{UNITS['qags_xsum']} of 5 requests" in log
    assert "Traceback" not in log


def test_many_cores_never_exceed_a_judges_concurrency(workdir, mirror):
    with FakeOpenAIServer(models=("fake-model",), latency_s=0.1) as slow:
        cfg = {"judges": {"slow": {"model": "fake-model", "base_url": slow.url, "max_concurrency": 2}},
               "judge": {"run": ["slow"], "prompt_dir": "my-prompts"}}
        (workdir / "slow.yaml").write_text(yaml.safe_dump(cfg))
        wanted = [f"results/judge/slow/{d}/base.parquet" for d in ("summeval", "tldr", "qags_cnn", "qags_xsum")]
        out = snakemake(workdir, mirror, [workdir / "fake.yaml", workdir / "slow.yaml"],
                        "--cores", "8", *wanted)
        assert out.returncode == 0, out.stderr[-4000:]
        assert slow.max_in_flight == 2  # four jobs could run at once; the resource lets one
