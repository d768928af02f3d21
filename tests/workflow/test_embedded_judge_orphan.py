"""A judge job killed hard leaves no model server behind (docs/judge.md, "The embedded judge":
the lifeline), and the rerun starts a server of its own.

Snakemake runs one judge job of the embedded qwen-0.5b (one SummEval document, two units) in a
process group of its own; once the job's llama.cpp server answers, the whole group gets
SIGKILL, as the out-of-memory killer or a pre-empted node gives it. The server was started
in a session of its own, so the kill does not reach it: it has to notice by itself.

The server is found by its pid, which the judge writes as the first line of the server log
(``[sumjudge] llama.cpp server pid N on 127.0.0.1:PORT, started by pid M``); the test checks
that this pid is a ``sumjudge.judge.llama_server`` process carrying this test's own
environment tag (Linux /proc), so another run on the machine is never mistaken for it.
"""
import json
import os
import re
import signal
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pandas as pd
import pytest

from support import harness

pytestmark = pytest.mark.slow  # Snakemake and the embedded model

TARGET = "results/judge/qwen-0.5b/summeval/base.parquet"
SERVER_LOG = "logs/judge/qwen-0.5b/summeval/base.server.log"
HEAD = re.compile(r"^\[sumjudge\] llama\.cpp server pid (\d+) on 127\.0\.0\.1:(\d+), started by pid (\d+)", re.M)
CONFIG = {"datasets": ["summeval"], "subset": {"summeval": {"docs": 1, "units": 2}},
          "judge": {"run": ["qwen-0.5b"]}, "metrics": {"run": []}}


def state(pid: int) -> str | None:
    """The process's state letter from /proc (None when gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def alive(pid: int) -> bool:
    return state(pid) not in (None, "Z")  # a zombie holds no memory and computes nothing


def is_our_server(pid: int, tag: str) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"sumjudge.judge.llama_server" in cmdline and f"SUMJUDGE_TEST_TAG={tag}".encode() in environ


def servers(log: Path) -> list[tuple[int, int]]:
    """(pid, port) of every server the judge started, in order, from the server log."""
    try:
        text = log.read_text(errors="replace")
    except FileNotFoundError:
        return []
    return [(int(m[1]), int(m[2])) for m in HEAD.finditer(text)]


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as r:
            return "qwen2.5-coder-0.5b-instruct" in json.dumps(json.loads(r.read()))
    except (OSError, ValueError):
        return False


def test_a_hard_killed_judge_leaves_no_server_and_the_rerun_starts_its_own(tmp_path, mirror):
    tag = uuid.uuid4().hex
    env = harness.workflow_env(SUMJUDGE_TEST_TAG=tag)
    config = harness.write_config(tmp_path / "orphan.yaml", CONFIG)
    files = [harness.CONFIG, config]
    cmd = harness.snakemake_cmd(tmp_path, "--cores", "2", TARGET, configfiles=files, config=[f"mirror={mirror}"])
    log = tmp_path / SERVER_LOG
    with open(tmp_path / "first.out", "wb") as out:
        run = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    pid = None
    try:
        deadline = time.monotonic() + 900  # fetch, prepare, load the model on a busy machine
        while time.monotonic() < deadline and run.poll() is None:
            started = servers(log)
            if started and answers(started[0][1]):
                pid, port = started[0]
                break
            time.sleep(0.5)
        assert pid is not None, (f"no server answered (snakemake exit {run.poll()}): "
                                 + (tmp_path / "first.out").read_text()[-3000:])
        assert is_our_server(pid, tag), f"pid {pid} from {log} is not this test's llama_server"
        os.killpg(run.pid, signal.SIGKILL)  # Snakemake, the judge job: the whole group
        killed = time.monotonic()
        run.wait(10)
        while alive(pid) and time.monotonic() - killed < 10:
            time.sleep(0.1)
        took = time.monotonic() - killed
        assert not alive(pid), f"the server (pid {pid}) still runs 10 s after its judge's SIGKILL"
        print(f"server pid {pid} gone {took:.2f} s after the SIGKILL")
        assert not answers(port)
        assert "the process that started it is gone" in log.read_text(errors="replace")
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        if pid and is_our_server(pid, tag):
            os.kill(pid, signal.SIGKILL)  # never leave a 500 MB model behind, whatever failed

    # the rerun: Snakemake's own lock stays after a SIGKILL (README, "After a crash")
    unlock = harness.snakemake(tmp_path, "--unlock", TARGET, configfiles=files, config=[f"mirror={mirror}"],
                               env=env, timeout=600)
    assert unlock.returncode == 0, unlock.stderr[-3000:]
    again = harness.snakemake(tmp_path, "--cores", "2", TARGET, configfiles=files, config=[f"mirror={mirror}"],
                              env=env, timeout=1200)
    assert again.returncode == 0, again.stderr[-4000:]
    started = servers(log)
    assert len(started) == 2 and started[1][0] != pid, started
    table = pd.read_parquet(tmp_path / TARGET)
    assert len(table) == 2 and set(table["status"]) <= {"ok", "invalid"}, table[["status", "error"]]
    assert not alive(started[1][0]) or not is_our_server(started[1][0], tag)  # stopped in order
