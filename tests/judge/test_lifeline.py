"""The lifeline (sumjudge/judge/lifeline.py, docs/judge.md "The embedded judge"): a child
started through it exits within seconds of its parent's death, a SIGKILL included, and not
before. Dummy children only (no model); the real server through Snakemake is in
tests/workflow/test_embedded_judge_orphan.py (slow)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from sumjudge.judge import embedded, lifeline
from support.harness import REPO

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")])}

CHILD = textwrap.dedent("""
    import sys, time
    from sumjudge.judge.lifeline import watch_parent
    watch_parent("dummy child")
    print("watching", flush=True)
    time.sleep(120)
""")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc (macOS): ask the kernel
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False


def wait_gone(pid: int, timeout: float) -> float | None:
    """Seconds until ``pid`` is gone, or None when it still runs after ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if not alive(pid):
            return time.monotonic() - start
        time.sleep(0.05)
    return None


def start_parent(code: str, *args: str) -> tuple[subprocess.Popen, int]:
    """A parent process running ``code``; it prints its child's pid on its first line."""
    parent = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, env=ENV,
                              cwd=REPO)
    line = parent.stdout.readline()
    assert line.strip().isdigit(), f"the parent printed {line!r}"
    return parent, int(line)


@pytest.fixture
def reap():
    pids = []
    yield pids
    for pid in pids:  # never leave a dummy behind when an assertion fails
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_child_exits_when_its_parent_is_killed(tmp_path, reap, sig):
    err = tmp_path / "child.err"
    code = textwrap.dedent(f"""
        import sys, time
        from sumjudge.judge import lifeline
        child = lifeline.spawn([sys.executable, "-c", {CHILD!r}], stderr=open({str(err)!r}, "wb"),
                               start_new_session=True)
        print(child.pid, flush=True)
        time.sleep(120)
    """)
    parent, child = start_parent(code)
    reap.extend([parent.pid, child])
    time.sleep(1.0)
    assert alive(child), "the child died while its parent lives"
    parent.send_signal(sig)
    parent.wait(5)
    took = wait_gone(child, 5)
    assert took is not None, f"the child (pid {child}) still runs 5 s after its parent's {sig.name}"
    assert "the process that started it is gone" in err.read_text()


def test_closing_the_lifeline_ends_the_child_and_a_live_parent_keeps_it(reap):
    child = lifeline.spawn([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=ENV)
    reap.append(child.pid)
    assert child.stdout.readline().strip() == "watching"
    time.sleep(0.5)
    assert child.poll() is None
    child.stdin.close()
    assert child.wait(5) == lifeline.EXIT_CODE


def test_a_terminal_is_not_watched(tmp_path):
    with open(tmp_path / "f", "w") as fh:
        with pytest.raises(RuntimeError, match="not a pipe"):
            lifeline.watch_parent(fd=fh.fileno())
    with pytest.raises(ValueError, match="lifeline"):
        lifeline.spawn(["true"], stdin=subprocess.DEVNULL)


def test_the_server_command_asks_for_the_lifeline():
    cmd = embedded.server_command(REPO / "m.gguf", "a", 1234, {"n_ctx": 1, "n_threads": 1, "n_batch": 1,
                                                               "logits_all": False})
    assert cmd[1:4] == ["-m", "sumjudge.judge.llama_server", "--exit-with-parent"]


# embedded.llama_server itself, with a stand-in for llama.cpp that answers /v1/models
SERVER = textwrap.dedent("""
    import json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from sumjudge.judge.llama_server import main
    import sumjudge.judge.llama_server as ls
    argv = sys.argv[1:]
    port, alias = int(argv[argv.index("--port") + 1]), argv[argv.index("--model_alias") + 1]

    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"data": [{"id": alias}]}).encode()
            self.send_response(200); self.end_headers(); self.wfile.write(body)
        def log_message(self, *a):
            pass

    def serve():  # in place of llama_cpp.server's main: only the argument handling is ls.main's
        HTTPServer(("127.0.0.1", port), H).serve_forever()
    ls._patch_model_params = lambda extra: None
    ls._patch_sparse_logprobs = lambda: None
    import types
    fake = types.ModuleType("llama_cpp.server.__main__"); fake.main = serve
    sys.modules["llama_cpp"] = types.ModuleType("llama_cpp")
    sys.modules["llama_cpp.server"] = types.ModuleType("llama_cpp.server")
    sys.modules["llama_cpp.server.__main__"] = fake
    main(argv)
""")

JUDGE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from sumjudge.judge import embedded
    embedded.engine_version = lambda: "0.3.36"
    real = embedded.server_command
    embedded.server_command = lambda *a: [sys.executable, "-c", SERVER] + real(*a)[3:]
    settings = {"n_ctx": 1, "n_threads": 1, "n_batch": 1, "logits_all": False, "startup_timeout_s": 30}
    with embedded.llama_server(Path("m.gguf"), "dummy", settings, sys.argv[1]) as server:
        print(server.proc.pid, flush=True)
        time.sleep(120)
""")


def test_the_embedded_server_goes_with_a_killed_judge(tmp_path, reap):
    log = tmp_path / "server.log"
    parent, child = start_parent(f"SERVER = {SERVER!r}\n" + JUDGE, str(log))
    reap.extend([parent.pid, child])
    head = log.read_text().splitlines()[0]
    assert head.startswith(f"[sumjudge] llama.cpp server pid {child} on 127.0.0.1:") and \
        f"started by pid {parent.pid}" in head
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(5)
    took = wait_gone(child, 5)
    assert took is not None, f"the stand-in server (pid {child}) still runs 5 s after its judge's SIGKILL"
    assert "llama.cpp server: the process that started it is gone" in log.read_text()
