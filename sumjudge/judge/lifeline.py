"""A child process that never outlives the process that started it: the lifeline pipe.

The parent starts the child with its standard input as the read end of a pipe
(:func:`spawn`: ``stdin=subprocess.PIPE``) and keeps the write end open without ever
writing to it. The child calls :func:`watch_parent` once at start: a daemon thread
blocks reading its standard input, and the read returns end-of-file only when every
copy of the write end is closed, which the kernel does when the parent exits, however
it exits (a clean exit, an exception, SIGTERM, SIGKILL, the out-of-memory killer).
The thread then writes one line to standard error (the server's log) and ends the
child at once with :func:`os._exit`.

Why a pipe rather than Linux's ``prctl(PR_SET_PDEATHSIG)``: the pipe works the same on
Linux and macOS; the death signal fires when the *thread* that forked the child ends,
not the process (a server started from a worker thread would be killed when that
thread returns), is Linux only, and has to be set in ``preexec_fn``, which Python
documents as unsafe in a process with threads (the judge runs HTTP client threads).
The parent's write end is not inheritable (Python's default for the pipes it makes,
and ``close_fds=True``), so no other child of the parent keeps the lifeline open.

The child must not read its standard input for anything else. ``python -m
sumjudge.judge.llama_server --exit-with-parent ...`` turns the watch on; run by hand
without that flag, the server does not touch its standard input.
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from typing import Any

EXIT_CODE = 70  # what the child exits with when its parent is gone (nobody is left to read it)


def spawn(cmd: list[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen(cmd, **popen)`` with the lifeline as the child's standard input.

    Keep the returned object (its ``stdin`` is the write end) for as long as the child
    should live; ``proc.stdin.close()`` ends the child as the parent's death would."""
    if "stdin" in popen:
        raise ValueError("spawn() sets stdin itself: the child's standard input is the lifeline")
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, **popen)


def _wait_for_eof(fd: int, what: str) -> None:
    while True:
        try:
            data = os.read(fd, 4096)
        except InterruptedError:
            continue
        except OSError:
            data = b""  # a closed or broken descriptor: the parent cannot be watched any more
        if not data:
            break
    try:
        os.write(2, f"[sumjudge] {what}: the process that started it is gone (its lifeline pipe closed); "
                    f"exiting\n".encode())
    except OSError:
        pass
    os._exit(EXIT_CODE)


def watch_parent(what: str = "server", fd: int | None = None) -> threading.Thread:
    """In the child: exit (code :data:`EXIT_CODE`) as soon as ``fd`` (standard input by
    default) reaches end-of-file. Returns the watching daemon thread.

    Refuses a descriptor that is not a pipe (a terminal's input would be eaten)."""
    fd = sys.stdin.fileno() if fd is None else fd
    mode = os.fstat(fd).st_mode
    if not stat.S_ISFIFO(mode):
        raise RuntimeError(f"--exit-with-parent: standard input (fd {fd}) is not a pipe from the parent; "
                           f"start this program through sumjudge.judge.lifeline.spawn, or without the flag")
    t = threading.Thread(target=_wait_for_eof, args=(fd, what), name="sumjudge-lifeline", daemon=True)
    t.start()
    return t


__all__ = ["spawn", "watch_parent", "EXIT_CODE"]
