"""What tests need from the machine, and Debian packages installed by the test itself when missing.

Every test that may change the machine says so with ``@pytest.mark.system("<need>")`` (or a
module-level ``pytestmark``), naming one of :data:`NEEDS`. ``tests/conftest.py`` then prints,
once at the start of the run, what the selected tests will install or change, and with
``SUMJUDGE_TEST_SYSTEM=0`` leaves out every test whose need is not met already (so nothing is
installed), naming them in one summary line. CI sets nothing and runs them all.
A test so marked is in the slow tier as well: ``pytest -m "not slow"`` leaves it out
(tests/support/tiers.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

OPT_OUT = "SUMJUDGE_TEST_SYSTEM"


def _perl_xml_parser() -> bool:
    return bool(shutil.which("perl")) and subprocess.run(
        ["perl", "-MXML::Parser", "-e", "1"], capture_output=True).returncode == 0


def _own_slurm() -> bool:
    """The machine has a SLURM of its own: a configuration that is not a test cluster's
    symlink, ``SLURM_CONF`` set, or SLURM's daemons running."""
    conf = Path("/etc/slurm/slurm.conf")
    if (conf.exists() and not conf.is_symlink()) or os.environ.get("SLURM_CONF"):
        return True
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() in ("slurmctld", "slurmd"):
                return True
        except OSError:
            continue
    return False


@dataclass(frozen=True)
class Need:
    """One thing a test needs from the machine: how to tell it is there, and what getting it changes."""
    what: str
    packages: tuple[str, ...]
    ready: Callable[[], bool]
    changes: str = ""

    def install(self, timeout: int = 1800) -> None:
        ensure_ready(self.ready, list(self.packages), f"{self.what} not found", timeout)


NEEDS = {
    "rouge-perl": Need("perl with XML::Parser (the paper's ROUGE-1.5.5, rouge.implementation: rouge-perl)",
                       ("perl", "libxml-parser-perl"), _perl_xml_parser),
    "latex": Need("pdflatex", ("texlive-latex-recommended", "texlive-fonts-recommended"),
                  lambda: shutil.which("pdflatex") is not None),
    "chromium": Need("chromium (headless browser tests)", ("chromium",),
                     lambda: shutil.which("chromium") is not None),
    "slurm": Need("a single-node SLURM cluster (tests/support/slurm.py)", ("slurmctld", "slurmd", "slurm-client", "munge"),
                  lambda: all(shutil.which(c) for c in ("slurmctld", "slurmd", "sbatch", "munged")),
                  changes="starts munged, slurmctld and slurmd (stopped by PID afterwards) and symlinks "
                          "/etc/slurm/slurm.conf for the run (removed afterwards)"),
}


def opted_out() -> bool:
    return os.environ.get(OPT_OUT, "").strip() == "0"


def ensure_ready(ready: Callable[[], bool], packages: list[str], what: str, timeout: int = 1800) -> None:
    """Install ``packages`` when ``ready()`` is false; fail the test if it is still false."""
    if ready():
        return
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    out = None
    for attempt in range(2):
        for _ in range(30):
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            if out.returncode == 0 or "lock" not in (out.stderr or ""):
                break
            time.sleep(10)
        if out.returncode == 0:
            break
        if attempt == 0:  # the package lists may be missing
            subprocess.run(["apt-get", "update"], capture_output=True, text=True, timeout=600)
    if not ready():
        pytest.fail(f"{what} and `{' '.join(cmd)}` failed:\n{(out.stderr or '')[-2000:]}")
