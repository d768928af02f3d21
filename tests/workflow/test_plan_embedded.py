"""Issue 36 item 5 on the slice's configuration (config.yaml + tests/slice.yaml) with the embedded
judge: `python -m sumjudge plan` counts prompt tokens with the judge's own tokenizer and chat template,
within 5 % of the prompt tokens its llama.cpp server reported on the same units (in fact equal), and
its dollar figure is the cost estimate's."""
import json

import pandas as pd
import pytest
import yaml

from sumjudge.__main__ import main
from sumjudge.config import load
from sumjudge.io import write_parquet
from sumjudge.judge.estimate import estimate
from sumjudge.judge.prompts import load_template
from sumjudge.judge.run import judge_dataset
from sumjudge.judge.spec import judge_specs
from sumjudge.judge.targets import prompt_path
from support import harness

pytestmark = pytest.mark.slow
JUDGED = {"summeval": 4, "newsroom": 2}  # units the embedded judge answers here (the plan counts them all)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, mirror):
    wd = tmp_path_factory.mktemp("plan")
    out = harness.snakemake(wd, "--cores", "2", *[f"results/data/{d}.parquet" for d in JUDGED],
                            configfiles=[harness.CONFIG, harness.SLICE], config=[f"mirror={mirror}"], timeout=900,
                            cwd=wd)
    assert out.returncode == 0, out.stderr[-3000:]
    (wd / "config.yaml").write_text(harness.CONFIG.read_text())
    (wd / "here.yaml").write_text(yaml.safe_dump({"judge": {"prompt_dir": str(harness.REPO / "prompts"),
                                                            "cache_dir": str(wd / "results/cache/judge")}}))
    config = load([str(harness.SLICE), str(wd / "here.yaml")], harness.CONFIG)
    spec = judge_specs(config)["qwen-1.5b"]
    for d, n in JUDGED.items():
        df = pd.read_parquet(wd / f"results/data/{d}.parquet").head(n)
        template = load_template(prompt_path(str(harness.REPO / "prompts"), d, "base"))
        table, _ = judge_dataset(df, d, "base", template, spec, cache_dir=wd / "results/cache/judge", progress=False)
        write_parquet(table, wd / f"results/judge/qwen-1.5b/{d}/base.parquet")
    return wd, config


def test_plan_counts_the_servers_prompt_tokens_and_prices_as_the_estimate(workdir, capsys, monkeypatch):
    wd, config = workdir
    monkeypatch.chdir(wd)
    assert main(["plan", "--judge", "qwen-1.5b", "--datasets", *JUDGED, "--variants", "base",
                 "--configfile", str(harness.SLICE), str(wd / "here.yaml"), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    for row in plan["prompts"]:
        assert row["tokens_counted_by"].startswith("tokenizer: qwen2.5-coder-1.5b-instruct.gguf"), row
        assert row["units_reported"] == JUDGED[row["dataset"]]
        gap = abs(row["counted_on_reported"] - row["reported_prompt_tokens"]) / row["reported_prompt_tokens"]
        assert gap <= 0.05, row
        print(f"{row['dataset']}: counted {row['counted_on_reported']}, reported {row['reported_prompt_tokens']}")
    tables = {d: pd.read_parquet(wd / f"results/data/{d}.parquet") for d in JUDGED}
    est = estimate(tables, {"qwen-1.5b": judge_specs(config)["qwen-1.5b"]}, {d: ["base"] for d in JUDGED},
                   config["judge"]["cache_dir"], config["judge"]["prompt_dir"])
    assert [r["usd_estimate"] for r in plan["cost"]] == est["cost_usd_expected"].tolist()
    assert [r["to_send"] for r in plan["cost"]] == est["to_send"].tolist()
