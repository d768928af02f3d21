"""The fast tier stays fast (tests/support/tiers.py): a test that needs the machine is
slow by that alone, and a test not marked slow that starts Snakemake (or another slow
program) fails with the mark to add instead of slowing `pytest -m "not slow"` down."""
import subprocess
import sys

import pytest

from support.harness import REPO
from support.tiers import fast_tier_guard, slow_command


def test_slow_programs_are_recognised_in_any_form():
    assert slow_command([sys.executable, "-m", "snakemake", "-n"]) == "Snakemake"
    assert slow_command(["timeout", "-s", "INT", "900", "/usr/bin/snakemake", "--cores", "2"]) == "Snakemake"
    assert slow_command("apt-get install -y perl") == "a Debian package install"
    assert slow_command(["perl", "ROUGE-1.5.5.pl", "-e", "data"]) == "ROUGE-1.5.5 in Perl"
    assert slow_command([sys.executable, "-m", "sumjudge.judge.llama_server", "--model", "m.gguf"]) \
        == "the embedded llama.cpp model"
    assert slow_command(["/usr/bin/pdflatex", "t.tex"]) == "LaTeX"
    for quick in ([sys.executable, "-c", "import snakemake"], ["git", "ls-files"],
                  [sys.executable, "-m", "sumjudge.judge.cache", "verify"], "echo snakemake.log"):
        assert slow_command(quick) is None, quick


def test_a_fast_test_that_starts_snakemake_fails_naming_the_mark():
    # this test is in the fast tier itself: tests/conftest.py guards it already
    before = subprocess.Popen.__init__
    me = r"tests/test_tiers.py::test_a_fast_test_that_starts_snakemake_fails_naming_the_mark"
    with pytest.raises(pytest.fail.Exception, match=me + r" starts Snakemake .* add @pytest.mark.slow"):
        subprocess.run([sys.executable, "-m", "snakemake", "--version"], capture_output=True)
    with fast_tier_guard("tests/test_x.py::test_y"):
        assert subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True, text=True).stdout == "1\n"
        with pytest.raises(pytest.fail.Exception, match=r"tests/test_x.py::test_y starts SLURM"):
            subprocess.run(["sbatch", "job.sh"])
    assert subprocess.Popen.__init__ is before


def test_a_test_that_needs_the_machine_is_left_out_of_the_fast_tier():
    """test_rouge.py: its Python ROUGE tests are fast, its @pytest.mark.system("rouge-perl") ones are not."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-m", "not slow",
                          "-p", "no:cacheprovider", str(REPO / "tests/metrics/test_rouge.py")],
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    chosen = {line.split("::")[1] for line in out.stdout.splitlines() if "::" in line}
    assert {"test_hand_computed_single_reference", "test_unknown_option_names_the_config_key"} <= chosen
    assert not {n for n in chosen if "perl" in n or n.startswith(("test_parallel", "test_default_rouge"))}, chosen
