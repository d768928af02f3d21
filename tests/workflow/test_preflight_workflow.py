"""The preflight through Snakemake (sumjudge/preflight.py, docs/metrics.md "Before any
job"): on a machine without Perl's XML::Parser (hidden here by a stub module on PERL5LIB
that dies), `snakemake -n` with the default config stops before any job, in seconds, with
a numbered list naming the Debian package and the config key; a run stops the same way
through `onstart`; a command that builds nothing is not stopped."""
from __future__ import annotations

import os
import re
import resource
import time
from pathlib import Path

import pytest

from support import harness

pytestmark = pytest.mark.slow

MIRROR = harness.REPO.parent / "shared" / "data"


@pytest.fixture
def no_xml_parser(tmp_path) -> dict:
    stub = tmp_path / "perl5/XML"
    stub.mkdir(parents=True)
    (stub / "Parser.pm").write_text('die "XML::Parser is hidden by this test\\n";\n')
    return harness.workflow_env(PERL5LIB=str(tmp_path / "perl5"))


def assert_stopped_before_any_job(out, wd: Path) -> str:
    terminal = out.stdout + out.stderr
    assert out.returncode == 1, terminal[-3000:]
    assert "Traceback" not in terminal and 'File "' not in terminal, terminal[-3000:]
    steps = re.findall(r"(?m)^  (\d+)\. (.*)$", terminal)
    assert [int(n) for n, _ in steps] == list(range(1, len(steps) + 1)) and steps, terminal[-3000:]
    rouge = [s for _, s in steps if s.startswith("rouge:")]
    assert len(rouge) == 1 and "libxml-parser-perl" in rouge[0] and "rouge.implementation: rouge-score" in rouge[0]
    assert "nothing has run" in terminal
    assert not (wd / "results").exists() and not (wd / "logs").exists()  # no job started
    return terminal


@pytest.mark.skipif(not MIRROR.is_dir(), reason="needs the data mirror at ../shared/data")
def test_a_dry_run_with_the_default_config_stops_in_seconds(tmp_path, no_xml_parser):
    wd = tmp_path / "wd"
    wd.mkdir()
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    out = harness.snakemake(wd, "-n", configfiles=[harness.CONFIG], config=[f"mirror={MIRROR}"], cwd=wd,
                            env=no_xml_parser, timeout=120)
    seconds, after = time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"\nsnakemake -n, default config, no XML::Parser: stopped in {seconds:.1f} s "
          f"({cpu:.1f} s CPU; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    terminal = assert_stopped_before_any_job(out, wd)
    assert "Job stats" not in terminal
    assert seconds < 15 and cpu < 10, (seconds, cpu)


def test_a_run_stops_in_onstart_and_unlock_is_not_stopped(tmp_path, no_xml_parser):
    """A run checks the jobs the DAG says will run: asked for one ROUGE table, it names
    Perl's module and no learned metric's model."""
    wd = tmp_path / "wd"
    wd.mkdir()
    mirror = [f"mirror={MIRROR}"] if MIRROR.is_dir() else []
    out = harness.snakemake(wd, "--cores", "1", "results/metrics/rouge/summeval.parquet", configfiles=[harness.CONFIG],
                            config=mirror, cwd=wd, env=no_xml_parser, timeout=300)
    terminal = assert_stopped_before_any_job(out, wd)
    assert "bertscore:" not in terminal and "metrics.bertscore.model" not in terminal
    unlock = harness.snakemake(wd, "--unlock", configfiles=[harness.CONFIG], cwd=wd, env=no_xml_parser, timeout=300)
    assert unlock.returncode == 0 and "before any job" not in unlock.stdout + unlock.stderr, unlock.stderr[-2000:]


def test_the_cost_estimates_dry_run_checks_only_what_the_estimate_needs(tmp_path, no_xml_parser):
    """`snakemake -n -f results/judge/cost_estimate.csv` with the default config, the hub out
    of reach and no XML::Parser: the estimate reads the data tables and the prompts, so neither
    the learned metrics' models nor Perl stop it; plain `snakemake -n` is stopped by both."""
    wd = tmp_path / "wd"
    wd.mkdir()
    env = {**no_xml_parser, "HF_HUB_OFFLINE": "1"}
    mirror = [f"mirror={MIRROR}"] if MIRROR.is_dir() else []
    out = harness.snakemake(wd, "-n", "-f", "results/judge/cost_estimate.csv", configfiles=[harness.CONFIG],
                            config=mirror, cwd=wd, env=env, timeout=120)
    terminal = out.stdout + out.stderr
    assert out.returncode == 0 and "before any job" not in terminal, terminal[-3000:]
    assert re.search(r"(?m)^judge_cost_estimate\s+1$", terminal) and not re.search(r"(?m)^(metric|rouge)\s", terminal)
    out = harness.snakemake(wd, "-n", configfiles=[harness.CONFIG], config=mirror, cwd=wd, env=env, timeout=120)
    terminal = assert_stopped_before_any_job(out, wd)
    assert "metrics.bertscore.model" in terminal
