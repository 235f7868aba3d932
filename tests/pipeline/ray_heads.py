"""Real `ray start --head` processes for tests: each in its own temp dir, on free loopback
ports, stopped (or killed) by the pids under that temp dir, never by a machine-wide `ray stop`."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

RAY = Path(sys.executable).with_name("ray")


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def processes_under(temp_dir: str) -> list[int]:
    """Pids whose command line names this head's temp dir (its GCS, raylet, agents)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if temp_dir.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def driver_env(**extra: str) -> dict[str, str]:
    """A driver's environment: this one without RAY_* settings, on loopback, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    return {**env, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", **extra}


@dataclass
class Head:
    address: str  # host:port of the GCS
    dashboard: str  # http://host:port, for Ray Jobs
    env: dict[str, str]  # a driver's environment
    temp_dir: str
    process: subprocess.Popen = field(repr=False)


def start_head(head_env: dict[str, str], env: dict[str, str]) -> Head:
    """`ray start --head --block` with `head_env`, 2 CPUs, in a fresh short temp dir (socket paths).

    On this shared machine a head sometimes misses Ray's raylet registration deadline under
    load: it gets more time, and one more try."""
    failures = []
    for _ in range(2):
        head, log = _launch({"RAY_raylet_start_wait_time_s": "120", **head_env}, env)
        deadline = time.monotonic() + 150
        while "Ray runtime started" not in log.read_text():
            if head.process.poll() is not None or time.monotonic() > deadline:
                failures.append(log.read_text()[-3000:])
                stop_head(head)
                break
            time.sleep(0.5)
        else:
            return head
    pytest.fail("ray start --head did not come up:\n" + "\n".join(failures))


def _launch(head_env: dict[str, str], env: dict[str, str]) -> tuple[Head, Path]:
    temp_dir = tempfile.mkdtemp(prefix="evo-head-")
    gcs, dashboard, client, agent_http, agent_grpc, metrics = free_ports(6)
    log = Path(temp_dir) / "ray-start.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [str(RAY), "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--temp-dir", temp_dir,
             "--port", str(gcs), "--num-cpus", "2", "--dashboard-host", "127.0.0.1",
             "--dashboard-port", str(dashboard), "--ray-client-server-port", str(client),
             "--dashboard-agent-listen-port", str(agent_http), "--dashboard-agent-grpc-port", str(agent_grpc),
             "--metrics-export-port", str(metrics), "--disable-usage-stats"],
            env=head_env, stdout=out, stderr=subprocess.STDOUT, cwd=temp_dir, start_new_session=True)
    return Head(f"127.0.0.1:{gcs}", f"http://127.0.0.1:{dashboard}", env, temp_dir, process), log


def kill_head(head: Head) -> None:
    """SIGKILL the head and every process under its temp dir: a machine lost at once."""
    for pid in [head.process.pid, *processes_under(head.temp_dir)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    head.process.wait()


def stop_head(head: Head) -> None:
    """Stop the head (--block: SIGTERM stops what it started), then whatever did not follow."""
    head.process.send_signal(signal.SIGTERM)
    try:
        head.process.wait(30)
    except subprocess.TimeoutExpired:
        head.process.kill()
    time.sleep(1)
    kill_head(head)
    shutil.rmtree(head.temp_dir, ignore_errors=True)
