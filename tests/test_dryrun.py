"""sumjudge/dryrun.py: the jobs a dry run would run, on a small Snakefile of its own."""
import json
import subprocess
import sys

import pytest

from sumjudge.dryrun import cli_targets

SNAKEFILE = '''
import json, sys
from sumjudge import dryrun

rule all:
    input: "c.txt"

rule a:
    output: "a/{x}.txt"
    shell: "touch {output}"

rule b:
    input: lambda wc: f"a/{wc.x}.txt"
    output: "b/{x}.txt"
    shell: "touch {output}"

rule c:
    input: unpack(lambda wc: {"one": "b/1.txt", "two": ["b/2.txt", "present.txt"]})
    output: "c.txt"
    shell: "touch {output}"

targets, forced = dryrun.dry_run_targets(workflow, sys.argv, ["c.txt"])
jobs = dryrun.pending_jobs(workflow, rules, targets, forced)
with open("jobs.json", "w") as f:
    json.dump({"targets": targets, "forced": sorted(forced), "jobs": jobs}, f)
'''


def _dry_run(tmp_path, *args, ok=True):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    (tmp_path / "present.txt").write_text("")
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", *args], cwd=tmp_path,
                         capture_output=True, text=True)
    assert (out.returncode == 0) == ok, out.stderr
    return json.loads((tmp_path / "jobs.json").read_text())


def test_cli_targets_reads_targets_and_force():
    assert cli_targets(["/x/bin/snakemake", "-n", "-f", "--cores", "2", "out.csv"]) == (["out.csv"], True)
    assert cli_targets(["/x/bin/snakemake", "-n"]) == ([], False)
    assert cli_targets(["pytest", "out.csv"]) == ([], False)  # another program: no targets


@pytest.mark.slow
def test_pending_jobs_follow_input_functions_and_unpack(tmp_path):
    got = _dry_run(tmp_path)
    assert got["targets"] == ["c.txt"] and got["forced"] == []
    assert got["jobs"][0] == ["c", {}]  # the target first, then what it needs (a stack: the last input first)
    assert sorted(map(json.dumps, got["jobs"][1:])) == sorted(map(json.dumps, [
        ["b", {"x": "1"}], ["a", {"x": "1"}], ["b", {"x": "2"}], ["a", {"x": "2"}]]))


@pytest.mark.slow
def test_present_files_are_not_pending_unless_forced(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.txt").write_text("")
    assert [j[0] for j in _dry_run(tmp_path)["jobs"]] == ["c", "b", "a"]
    got = _dry_run(tmp_path, "-f", "b/2.txt")
    assert got["targets"] == ["b/2.txt"] and got["forced"] == ["b/2.txt"]
    assert got["jobs"] == [["b", {"x": "2"}], ["a", {"x": "2"}]]


@pytest.mark.slow
def test_a_target_no_rule_makes_falls_back_to_the_default(tmp_path):
    got = _dry_run(tmp_path, "nowhere.txt", ok=False)  # Snakemake then stops: no rule makes it
    assert got["targets"] == ["c.txt"] and got["forced"] == []
