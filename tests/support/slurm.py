"""A single-node SLURM cluster on 127.0.0.1 for tests: munge, slurmctld and slurmd
from Debian's packages, started without systemd and stopped by their PIDs.

    with LocalSlurm(tmp_dir) as cluster:   # installs the packages when missing (root)
        ...                                # sbatch / squeue / snakemake --executor slurm

Everything the daemons write (state, spool, logs, the munge socket) lies under one
temporary folder; the only file outside it is the symlink /etc/slurm/slurm.conf,
which the executor plugin's job step needs (it drops SLURM_CONF before its nested
srun) and which `stop()` removes again. Facts measured on SLURM 22.05.8 are in
docs/cluster.md ("What the single-node test proves").
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
COMMANDS = ("slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "munged", "munge", "unmunge")
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")
PARTITION = "debug"
NODE = "node1"


class SlurmSetupError(RuntimeError):
    """The test cluster could not be installed or started (the message says which step)."""


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def ensure_packages() -> None:
    """apt-get install the Debian packages when a command is missing (needs root)."""
    if all(shutil.which(c) for c in COMMANDS):
        return
    if os.geteuid() != 0:
        raise SlurmSetupError(f"SLURM test cluster: {', '.join(c for c in COMMANDS if not shutil.which(c))} "
                              f"missing and not root; run: apt-get install -y {' '.join(PACKAGES)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES]
    out = _run(install, env=env, timeout=900)
    if out.returncode != 0:  # a fresh machine has no package lists yet
        _run(["apt-get", "update"], env=env, timeout=900)
        out = _run(install, env=env, timeout=900)
    if out.returncode != 0 or not all(shutil.which(c) for c in COMMANDS):
        raise SlurmSetupError(f"apt-get install {' '.join(PACKAGES)} failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_line() -> str:
    """This machine's hardware as `slurmd -C` sees it, renamed to node1 on 127.0.0.1."""
    out = _run(["slurmd", "-C"], timeout=60)
    first = out.stdout.splitlines()[0] if out.stdout else ""
    if out.returncode != 0 or not first.startswith("NodeName="):
        raise SlurmSetupError(f"slurmd -C failed: {out.stderr.strip() or out.stdout.strip()}")
    fields = [f for f in first.split() if not f.startswith("NodeName=")]
    return " ".join([f"NodeName={NODE}", "NodeAddr=127.0.0.1", *fields, "State=UNKNOWN"])


def slurm_conf(root: Path, munge_socket: Path, ctld_port: int, slurmd_port: int) -> str:
    return "\n".join([
        "ClusterName=sumjudge-test",
        "SlurmctldHost=localhost",
        f"SlurmctldPort={ctld_port}",
        f"SlurmdPort={slurmd_port}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        "SlurmUser=root",
        "SlurmdUser=root",
        f"StateSaveLocation={root}/state",
        f"SlurmdSpoolDir={root}/spool",
        f"SlurmctldPidFile={root}/slurmctld.pid",
        f"SlurmdPidFile={root}/slurmd.pid",
        f"SlurmctldLogFile={root}/slurmctld.log",
        f"SlurmdLogFile={root}/slurmd.log",
        "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "MinJobAge=3600",         # finished jobs stay visible to squeue (no slurmdbd, no sacct)
        "SlurmdTimeout=300",
        node_line(),
        f"PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


class LocalSlurm:
    """munged + slurmctld + slurmd on 127.0.0.1, all under ``root``."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.procs: dict[str, subprocess.Popen] = {}
        self.conf = self.root / "slurm.conf"
        self.env: dict[str, str] = {}
        self._linked = False

    # -- start ---------------------------------------------------------------------
    def start(self) -> "LocalSlurm":
        ensure_packages()
        if SYSTEM_CONF.is_symlink() and not SYSTEM_CONF.exists() \
                and Path(os.readlink(SYSTEM_CONF)).name == "slurm.conf":
            SYSTEM_CONF.unlink()  # left by a test run that was killed: its folder is gone
        if SYSTEM_CONF.exists() or SYSTEM_CONF.is_symlink():
            raise SlurmSetupError(f"{SYSTEM_CONF} exists already: this machine has a SLURM configuration "
                                  "of its own; the test cluster will not replace it")
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        for d in ("state", "spool"):
            (self.root / d).mkdir(exist_ok=True)
        munge_dir = self._start_munge()
        self.conf.write_text(slurm_conf(self.root, munge_dir / "munge.socket", free_port(), free_port()))
        SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SYSTEM_CONF.symlink_to(self.conf)
        self._linked = True
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
        self._spawn("slurmd", ["slurmd", "-D", "-N", NODE, "-f", str(self.conf)])
        self._wait_idle()
        return self

    def _start_munge(self) -> Path:
        """munged as user munge, its socket, pid, log and seed in a folder of its own."""
        munge = pwd.getpwnam("munge")
        d = self.root / "munge"
        d.mkdir(exist_ok=True)
        d.chmod(0o711)  # munged: every client must be able to reach its socket
        os.chown(d, munge.pw_uid, munge.pw_gid)
        key = Path("/etc/munge/munge.key")
        if not key.exists():  # the package's postinst makes one; a bare image may lack it
            key = d / "munge.key"
            out = _run(["mungekey", "--create", f"--keyfile={key}"], user=munge.pw_uid, group=munge.pw_gid)
            if out.returncode != 0:
                raise SlurmSetupError(f"mungekey failed: {out.stderr.strip()}")
        cmd = ["munged", "--foreground", f"--socket={d}/munge.socket", f"--pid-file={d}/munged.pid",
               f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed", f"--key-file={key}"]
        self._spawn("munged", cmd, user=munge.pw_uid, group=munge.pw_gid)
        deadline = time.monotonic() + 20
        while not (d / "munge.socket").exists():
            self._check_alive("munged", d / "munged.log")
            if time.monotonic() > deadline:
                raise SlurmSetupError(f"munged did not create its socket in 20 s; see {d}/munged.log")
            time.sleep(0.1)
        return d

    def _spawn(self, name: str, cmd: list[str], **kw) -> None:
        log = open(self.root / f"{name}.out", "ab")
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True, **kw)
        log.close()

    def _check_alive(self, name: str, log: Path | None = None) -> None:
        proc = self.procs[name]
        if proc.poll() is not None:
            text = (log or self.root / f"{name}.out")
            tail = text.read_text(errors="replace")[-3000:] if text.exists() else ""
            raise SlurmSetupError(f"{name} exited with code {proc.returncode} while starting:\n{tail}")

    def _wait_idle(self, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        state = ""
        while time.monotonic() < deadline:
            for name in ("slurmctld", "slurmd"):
                self._check_alive(name, self.root / f"{name}.log")
            out = _run(["sinfo", "-h", "-n", NODE, "-o", "%T"], env=self.env, timeout=30)
            state = out.stdout.strip()
            if out.returncode == 0 and state in ("idle", "mixed", "allocated"):
                return
            time.sleep(0.25)
        raise SlurmSetupError(f"node {NODE} not idle after {timeout_s:.0f} s (state {state!r}); "
                              f"see {self.root}/slurmctld.log and {self.root}/slurmd.log")

    # -- use -----------------------------------------------------------------------
    def cpus(self) -> int:
        out = _run(["sinfo", "-h", "-n", NODE, "-o", "%c"], env=self.env, timeout=30)
        return int(out.stdout.strip())

    def job_ids(self) -> set[str]:
        """Every job the controller knows (finished ones stay MinJobAge seconds)."""
        out = _run(["squeue", "-h", "-t", "all", "-o", "%i"], env=self.env, timeout=30)
        return set(out.stdout.split())

    def job_info(self, job_id: str) -> dict[str, str]:
        """`scontrol show job` as a dict (Comment, NumCPUs, CPUs/Task, JobState, ...)."""
        out = _run(["scontrol", "show", "job", "-o", job_id], env=self.env, timeout=30)
        return dict(f.split("=", 1) for f in out.stdout.split() if "=" in f)

    def batch_script(self, job_id: str) -> str:
        out = _run(["scontrol", "write", "batch_script", job_id, "-"], env=self.env, timeout=30)
        return out.stdout

    # -- stop ----------------------------------------------------------------------
    def stop(self) -> None:
        """Stop every daemon this object started, by its PID (slurmd first), and remove
        the /etc/slurm/slurm.conf symlink."""
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self.procs.pop(name, None)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self._linked and SYSTEM_CONF.is_symlink() and os.readlink(SYSTEM_CONF) == str(self.conf):
            SYSTEM_CONF.unlink()
        self._linked = False

    def __enter__(self) -> "LocalSlurm":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()
