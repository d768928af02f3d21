"""The first hour of a new user, on a finished slice (issue 34): tests/slice.yaml judged by a
judge on the fake OpenAI-compatible server (the embedded model's answers are not what is
tested here, and it takes twenty minutes), then only light commands.

- `snakemake --report` with the default config, the overview and the leaderboard page all
  name the slice: every caveat comes from the results' own manifest;
- the results moved, exported, imported into a fresh clone elsewhere: the rebuild command
  the import prints, run verbatim there, has nothing to do;
- the cost estimate of the full default config refuses, in one line, to price the slice's
  data; an override file alone gives no traceback."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import harness
from support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.slow

KEY = "sk-FIRST-HOUR-2b1f0c9e7d"
SLICE_WORDS = "A SLICE, not the paper"


def with_venv(clone: Path) -> Path:
    """The clone's `.venv`: this Python's environment, as README command (a) makes one."""
    venv = Path(sys.executable).parent.parent
    if (venv / "bin" / "snakemake").exists():
        (clone / ".venv").symlink_to(venv)
    return clone


def run(cwd: Path, *args: str, env: dict | None = None, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=harness.workflow_env(PYTHONPATH=str(cwd), **(env or {})))


@pytest.fixture(scope="module")
def sliced(tmp_path_factory, mirror):
    """A clone that ran the slice with the fake judge (`--configfile tests/slice.yaml fake.yaml`)."""
    wd = with_venv(harness.clone(tmp_path_factory.mktemp("sender") / "sumjudge"))
    with FakeOpenAIServer(models=("fake-model",), api_key=KEY) as server:
        harness.write_config(wd / "fake.yaml", {
            "judges": {"fake": harness.fake_judge(server, api_key_env="SJ_FIRST_HOUR_KEY")},
            "judge": {"run": ["fake"]},
            "rouge": {"implementation": "rouge-score"},  # no Perl needed; the caveats do not depend on it
            "tables": {"bootstrap_resamples": 200, "permutation_resamples": 200}})
        out = run(wd, "-m", "snakemake", "--cores", "2", "--configfile", "tests/slice.yaml", "fake.yaml",
                  "--config", f"mirror={mirror}", env={"SJ_FIRST_HOUR_KEY": KEY})
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    return wd


def test_the_report_made_with_the_default_config_names_the_slice(sliced):
    out = run(sliced, "-m", "snakemake", "--report", "results/report.html", timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    html = (sliced / "results/report.html").read_text()
    assert "A SLICE, not the paper" in html.replace("&#x27;", "'").replace("\\u0027", "'"), \
        re.findall(r"Read with care.{0,400}", html)[:1]
    assert "Full datasets" not in html and "Learned metrics not run" in html


def test_the_overview_and_the_leaderboard_name_the_slice(sliced):
    for page in ("results/tables/overview.html", "results/leaderboard/leaderboard.html"):
        text = (sliced / page).read_text().replace("&#x27;", "'")
        box = text[text.index("Read with care"):][:2000]
        assert SLICE_WORDS in box and "summeval docs 3" in box and "Judge fake (fake-model" in box, (page, box)
        assert "qwen-1.5b" not in box, (page, box)  # defined in config.yaml, never ran


@pytest.fixture(scope="module")
def archive(sliced, tmp_path_factory) -> Path:
    """The slice's results, moved (copied, re-exported: no path in the manifest is where
    they are now), exported."""
    tmp = tmp_path_factory.mktemp("moved")
    moved = tmp / "moved"
    shutil.copytree(sliced, moved, symlinks=True, ignore=shutil.ignore_patterns("tests", "fake.yaml"))
    shutil.copytree(sliced / "tests", moved / "tests")
    out = run(moved, "-m", "sumjudge.share", "export", "results", str(tmp / "share.tar.gz"),
              env={"SJ_FIRST_HOUR_KEY": KEY})
    assert out.returncode == 0, out.stderr
    return tmp / "share.tar.gz"


@pytest.mark.parametrize("edited", [False, True], ids=["same config.yaml", "edited config.yaml"])
def test_the_imports_rebuild_command_has_nothing_to_do_in_a_fresh_clone(archive, tmp_path, edited):
    """Run verbatim, as printed. With the clone's config.yaml edited (a seed), the command
    names the sender's config in their run's key order (rebuild.yaml): nothing to do either."""
    clone = with_venv(harness.clone(tmp_path / "collaborator", src=archive.parent / "moved"))  # the sender's code
    if edited:
        config = clone / "config.yaml"
        config.write_text(config.read_text().replace("seed: 2023", "seed: 7"))
    out = run(clone, "-m", "sumjudge.share", "import", str(archive))
    assert out.returncode == 0, out.stderr
    command = re.search(r"^rebuild: (.+?)   \(snakemake -n: nothing to be done\)$", out.stdout, re.M).group(1)
    expected = "results/share/config/rebuild.yaml" if edited else "results/share/config/00-slice.yaml"
    assert expected in command and "config.yaml " not in command + " ", command
    print(f"\nrebuild command: {command}")
    env = harness.workflow_env(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(command, shell=True, cwd=clone, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0 and "Nothing to be done" in done.stdout + done.stderr, \
        (done.stdout + done.stderr)[-4000:]


def test_the_estimate_of_the_full_config_refuses_the_slices_data_in_one_line(sliced):
    out = run(sliced, "-m", "sumjudge.judge.estimate", "--configfile", "config.yaml", timeout=300)
    assert out.returncode == 1 and out.stdout == "" and len(out.stderr.splitlines()) == 1, out.stderr
    assert out.stderr.startswith("error: not priced: results/data/") and "a slice" in out.stderr
    harness.write_config(sliced / "my_openai.yaml", {"judges": {"mini": {
        "model": "gpt-4.1-mini", "base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY"}}})
    out = run(sliced, "-m", "sumjudge.judge.estimate", "--configfile", "my_openai.yaml", timeout=300)
    assert out.returncode == 1 and "Traceback" not in out.stderr and "not priced" in out.stderr, out.stderr
    out = run(sliced, "-m", "sumjudge.judge.estimate", "--configfile", "tests/slice.yaml", "my_openai.yaml",
              timeout=300)
    assert out.returncode == 0 and re.search(r"(?m)^\s*mini\s+gpt-4.1-mini\s+summeval\s+base\s+48\s", out.stdout), \
        out.stdout + out.stderr
