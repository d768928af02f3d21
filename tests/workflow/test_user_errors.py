"""Every user-fixable error is one line, on the terminal and in the rule's own log file,
without a Python traceback (sumjudge.errors.UserError, scripts/_log.py): one small
Snakemake run per stage (data, metrics, judge, tables), each on a user's dataset of six
rows, with the error a user would make there."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support import harness

pytestmark = pytest.mark.slow

ROWS = pd.DataFrame({
    "doc_id": ["d1", "d1", "d1", "d2", "d2", "d2"], "system": ["A", "B", "C"] * 2,
    "article": ["The cat sat on the mat."] * 3 + ["Rain fell all day."] * 3,
    "summary": ["A cat sat.", "A mat.", "Cats.", "It rained.", "Rain.", "Sun."],
    "reference": ["The cat sat."] * 3 + ["Rain all day."] * 3, "quality": [4, 2, 1, 5, 3, 1]})


def run(wd: Path, cfg: dict, *args: str, env: dict | None = None, rows: pd.DataFrame = ROWS):
    """`snakemake --cores 1 ARGS` on the user's dataset `mine` (data/mine.csv), nothing else."""
    (wd / "data").mkdir(exist_ok=True)
    if not (wd / "data/mine.csv").exists():
        rows.to_csv(wd / "data/mine.csv", index=False)
    base = {"custom_datasets": {"mine": {"path": "data/mine.csv", "protocol": "likert", "dimensions": ["quality"]}},
            "datasets": [], "judge": {"run": [], "datasets": []}, "metrics": {"run": []}, "rouge": {"datasets": []}}
    (wd / "user.yaml").write_text(yaml.safe_dump({**base, **cfg}))
    start = time.monotonic()
    out = harness.snakemake(wd, "--cores", "1", *args, configfiles=[harness.CONFIG, wd / "user.yaml"], cwd=wd,
                            env=harness.workflow_env(**(env or {})), timeout=600)
    print(f"\n{args[-1]}: {time.monotonic() - start:.1f} s")
    return out


def assert_one_line(out, log: Path, *words: str) -> str:
    """The rule's log holds one ERROR line with ``words`` and no traceback; the terminal
    shows the same line, and no Python traceback either."""
    assert out.returncode != 0, out.stderr[-3000:]
    terminal = out.stdout + out.stderr
    text = log.read_text()
    errors = [line for line in text.splitlines() if " ERROR " in line]
    assert len(errors) == 1, text
    line = errors[0]
    assert all(w in line for w in words), line
    assert "Traceback" not in text and "Traceback" not in terminal, terminal[-3000:]
    message = line.split(" ERROR ", 1)[1]
    assert message in terminal, terminal[-3000:]
    return message


def test_data_stage_a_bad_row_in_the_users_file(tmp_path):
    bad = ROWS.copy()
    bad["quality"] = bad["quality"].astype(object)
    bad.loc[2, "quality"] = "good"
    out = run(tmp_path, {}, "results/data/mine.parquet", rows=bad)
    msg = assert_one_line(out, tmp_path / "logs/prepare/mine.log", "data/mine.csv", "quality")
    assert re.search(r"line \d+|row", msg), msg


def test_metrics_stage_rouge_perl_without_xml_parser(tmp_path):
    """The preflight off (its old key, metrics.check_models: false): the rouge job meets the
    missing Perl module itself and says so in one line, in logs/metrics/rouge/mine.log."""
    stub = tmp_path / "perl5/XML"
    stub.mkdir(parents=True)
    (stub / "Parser.pm").write_text('die "XML::Parser is hidden by this test\\n";\n')
    out = run(tmp_path, {"metrics": {"run": [], "check_models": False}}, "results/metrics/rouge/mine.parquet",
              env={"PERL5LIB": str(tmp_path / "perl5")})
    assert (tmp_path / "results/data/mine.parquet").exists()  # the data job ran; the rouge job failed
    assert_one_line(out, tmp_path / "logs/metrics/rouge/mine.log", "XML::Parser", "libxml-parser-perl",
                    "rouge.implementation")


def test_judge_stage_a_missing_api_key(tmp_path):
    judge = {"model": "some-model", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "SUMJUDGE_TEST_UNSET_KEY"}
    out = run(tmp_path, {"judges": {"remote": judge}, "judge": {"run": ["remote"], "datasets": []}},
              "results/judge/remote/mine/base.parquet")
    assert_one_line(out, tmp_path / "logs/judge/remote/mine/base.log", "SUMJUDGE_TEST_UNSET_KEY")


def test_judge_stage_a_server_that_cannot_be_reached(tmp_path):
    """Nothing listens on the judge's base_url: the first request's retries are spent, then
    one line names the address and the config key; the other units are not tried."""
    judge = {"model": "some-model", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "SUMJUDGE_TEST_KEY",
             "max_retries": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.02}
    out = run(tmp_path, {"judges": {"remote": judge}, "judge": {"run": ["remote"], "datasets": []}},
              "results/judge/remote/mine/base.parquet", env={"SUMJUDGE_TEST_KEY": "sk-test"})
    assert_one_line(out, tmp_path / "logs/judge/remote/mine/base.log", "cannot connect to http://127.0.0.1:9/v1",
                    "(2 attempts", "judges.remote.base_url")
    assert not (tmp_path / "results/judge/remote/mine/base.parquet").exists()


def test_tables_stage_an_unreadable_input_table(tmp_path):
    rows = ROWS.drop(columns="reference")  # no ROUGE job: the table reads the dataset table alone
    run(tmp_path, {}, "results/data/mine.parquet", rows=rows)
    (tmp_path / "results/data/mine.parquet").write_bytes(b"not a parquet file")  # newer than its input: kept
    out = run(tmp_path, {}, "results/tables/mine.csv", rows=rows)
    assert_one_line(out, tmp_path / "logs/tables/mine.log", "results/data/mine.parquet")


def test_the_dry_run_stops_on_a_missing_column_naming_the_config_file(tmp_path):
    """Before any job, on `snakemake -n` too: the rule's own one line (file, header, column,
    fix), led by the config file that names the dataset; no Snakemake traceback."""
    out = run(tmp_path, {}, "-n", "results/data/mine.parquet", rows=ROWS.drop(columns="quality"))
    assert out.returncode != 0
    lines = [x for x in (out.stdout + out.stderr).splitlines() if x and not x.startswith(("Using ", "Config file"))]
    assert lines == ["user.yaml: data/mine.csv, line 1 (header): missing column(s) 'quality'; a "
                     "likert dataset needs the columns doc_id, system, article, summary, quality (the last ones "
                     "from `dimensions`): add or rename the column(s) (config key custom_datasets.mine.path)"], lines
