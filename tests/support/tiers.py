"""The two test tiers and the guard that keeps the fast one fast.

``pytest -m "not slow"`` is the unit tier: no Snakemake process, no Debian package, no
ROUGE-1.5.5 in Perl, no browser, no LaTeX, no SLURM, no embedded llama.cpp model. A test
is in the slow tier when it says ``@pytest.mark.slow`` or needs the machine
(``@pytest.mark.system``: tests/conftest.py marks it slow as well).

A test that is not marked slow and still starts one of those programs fails at that
call with a message that says which mark to add (:func:`refusal`), so that a new
workflow test cannot land in the fast tier unnoticed.
"""
from __future__ import annotations

import shlex
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# programs a unit test never starts, by the name it is run under
SLOW_PROGRAMS = {
    "snakemake": "Snakemake",
    "apt-get": "a Debian package install", "apt": "a Debian package install", "dpkg": "a Debian package install",
    "perl": "ROUGE-1.5.5 in Perl",
    "pdflatex": "LaTeX",
    "chromium": "a browser",
    "sbatch": "SLURM", "srun": "SLURM", "slurmctld": "SLURM", "slurmd": "SLURM", "munged": "SLURM",
}
# Python modules a unit test never runs with `python -m`
SLOW_MODULES = {
    "snakemake": "Snakemake",
    "sumjudge.judge.llama_server": "the embedded llama.cpp model",
}


def slow_command(args) -> str | None:
    """What a command line starts that belongs to the slow tier (``None`` when nothing does).

    ``args`` as ``subprocess.Popen`` takes it: a list, or one string for ``shell=True``.
    Every word is looked at, so wrappers such as ``timeout -s INT 900 snakemake`` count too."""
    if isinstance(args, (str, bytes, Path)):
        text = args.decode() if isinstance(args, bytes) else str(args)
        try:
            words = shlex.split(text)
        except ValueError:
            words = text.split()
    else:
        words = [a.decode() if isinstance(a, bytes) else str(a) for a in args]
    for i, word in enumerate(words):
        if Path(word).name in SLOW_PROGRAMS:
            return SLOW_PROGRAMS[Path(word).name]
        if word == "-m" and i + 1 < len(words) and words[i + 1] in SLOW_MODULES:
            return SLOW_MODULES[words[i + 1]]
    return None


def refusal(nodeid: str, what: str, args) -> str:
    shown = args if isinstance(args, str) else " ".join(map(str, args))
    return (f"{nodeid} starts {what} ({shown[:200]}) but is not marked slow: add @pytest.mark.slow "
            f"(or @pytest.mark.system for a need from tests/support/system.py), so that `pytest -m \"not slow\"` "
            f"stays the quick unit tier (README, Tests)")


@contextmanager
def fast_tier_guard(nodeid: str) -> Iterator[None]:
    """While a fast-tier test runs (its fixtures included), starting a slow program fails it."""
    import pytest

    original = subprocess.Popen.__init__

    def guarded(self, args, *rest, **kw):
        what = slow_command(args)
        if what:
            pytest.fail(refusal(nodeid, what, args), pytrace=False)
        original(self, args, *rest, **kw)

    subprocess.Popen.__init__ = guarded
    try:
        yield
    finally:
        subprocess.Popen.__init__ = original
