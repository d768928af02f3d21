"""What `python -m sumjudge plan` prints (sumjudge/plan/report.py): it sends nothing, and refuses clearly."""
import json

import pytest
import yaml

from sumjudge.__main__ import main
from sumjudge.plan.build import PlanError, PlanRequest, make_plan
from sumjudge.settings import RunSettings


def test_the_command_prints_the_plan_and_refuses_clearly(workdir, capsys, monkeypatch):
    tmp_path, config = workdir
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(tmp_path)
    assert main(["plan", "--judge", "priced", "--datasets", "summeval", "--variants", "base"]) == 0
    text = capsys.readouterr().out
    assert "no request is sent" in text and "Prompts and tokens (estimated" in text and "Batch API $" in text
    # the shipped family's design on this 8-document slice gives a template 2-3 documents: said once, below
    # its table, before any request (docs/robustness.md)
    assert text.count("summeval_likert: its subset design gives a template 2 document(s), fewer than 20") == 1
    assert main(["plan", "--judge", "priced", "--datasets", "summeval", "--variants", "base", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    # config.yaml's prompt family of SummEval is priced too (docs/robustness.md)
    assert set(plan) == {"prompts", "cost", "labels", "families"} and plan["cost"][0]["to_send"] == 40
    assert main(["plan", "--judge", "nope", "--datasets", "summeval"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "judge 'nope' is not under 'judges'" in err
    with pytest.raises(PlanError, match="newsroom.parquet is missing: the plan reads the units the run would judge; "
                                        "prepare them first: .venv/bin/snakemake --cores 1 "):
        make_plan(RunSettings.from_config(config), PlanRequest("priced", ("newsroom",), str(tmp_path / "results")))
    (tmp_path / "mine.yaml").write_text("preflight: true\n")
    assert main(["plan", "--judge", "priced", "--datasets", "newsroom", "tldr", "--configfile", "mine.yaml",
                 "--mirror", "../shared/data"]) == 1
    err = capsys.readouterr().err
    assert err == ("error: results/data/newsroom.parquet, results/data/tldr.parquet are missing: the plan reads the "
                   "units the run would judge; prepare them first: .venv/bin/snakemake --cores 1 "
                   "results/data/newsroom.parquet results/data/tldr.parquet --configfile mine.yaml "
                   "--config mirror=../shared/data\n"), err
    with pytest.raises(SystemExit) as done:
        main(["plan", "--help"])
    assert done.value.code == 0 and "--half-width" in capsys.readouterr().out
