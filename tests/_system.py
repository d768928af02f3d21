"""Debian packages a test needs: installed by the test itself when missing."""
from __future__ import annotations

import shutil
import subprocess
import time
from typing import Callable

import pytest


def ensure(binary: str, packages: list[str], timeout: int = 1800) -> str:
    """Path of ``binary``; runs ``apt-get install -y <packages>`` first when it is missing
    (retrying while another apt holds the lock); fails the test with apt's output if it cannot."""
    ensure_ready(lambda: shutil.which(binary) is not None, packages, f"{binary} not found", timeout)
    return shutil.which(binary)


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
