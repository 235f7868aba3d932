"""Why a Ray actor died, in one line: from the exception, then from Ray's own logs.

An `ActorDiedError`'s first line is always "The actor died unexpectedly
before finishing this task."; the reason follows among a block of ids, or is
only in a log: the worker's stderr (a module that printed and exited on
import), or this driver's core log (a cluster refusing it for
authentication). `death_reason` digs it out, so a pool can say "actor-3 could
not start: out of memory on 10.0.0.2 (...)" instead of the first line.
Import this only after `ray_connect.connect()`.
"""

from __future__ import annotations

import os
import re
from collections import deque
from contextlib import suppress
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import (ActorUnschedulableError, OutOfMemoryError, RayActorError, RayError, RayTaskError,
                            RuntimeEnvSetupError)

from .core import one_line

__all__ = ["death_reason", "kill_actor"]

_RAY_ADVICE = re.compile(r"\.? *(Some common causes include|Refer to the documentation|To adjust the kill).*$")
_AUTH_LOG = ("authorization header", "InvalidAuthToken", "UNAUTHENTICATED")
_TAIL_LINES = 200  # of a log, enough for its last error


def death_reason(error: RayError) -> tuple[str, bool]:
    """(why the actor died, in one line; True when retrying cannot help: its own code failed)."""
    if isinstance(error, RayTaskError):
        return one_line(error.cause), True
    if isinstance(error, (RuntimeEnvSetupError, ActorUnschedulableError)):
        return one_line(error), True
    if isinstance(error, OutOfMemoryError):
        return f"out of memory: {_first_sentence(str(error))}", False
    if isinstance(error, RayActorError):
        text = getattr(error, "error_msg", "") or str(error)
        if getattr(error, "actor_init_failed", False):  # its class or __init__ raised on the worker
            return f"its creation task raised {_last_exception_line(text)}", True
        return _system_death(text), False
    return _driver_refusals() or one_line(error), False  # e.g. the actor's registration refused


def kill_actor(handle: Any) -> None:
    """Kill an actor, dead or alive. Ray's `kill` waits for the actor's registration and raises
    that registration's error (a `RaySystemError`, "Actor creation cancelled", when the cluster
    refused or dropped it): such an actor is gone already, which is all a kill asks."""
    with suppress(RayError):
        ray.kill(handle)


def _system_death(text: str) -> str:
    """The reason line of a system-level ActorDiedError, plus what Ray logged about it."""
    fields = dict(re.findall(r"^\t(\w+): (.*)$", text, re.MULTILINE))
    said = [line for line in text.splitlines()
            if line and not line.startswith("\t") and "died unexpectedly before finishing" not in line]
    reason = said[0] if said else "no reason given by Ray"
    detail = re.search(r"Worker exit type: (\w+) Worker exit detail: (.*)", reason)
    where = f" on {fields['ip']}" if "ip" in fields else ""
    if detail:
        exit_type, said_why = detail.group(1), _RAY_ADVICE.sub("", detail.group(2))
        if "MEMORY" in exit_type or "low on memory" in said_why or "Memory on the node" in said_why:
            return f"out of memory{where} (Ray's memory monitor killed its worker): {said_why}"
        reason = f"its worker process (pid {fields.get('pid', '?')}{where}) died: {said_why}"
    refused = _driver_refusals()  # explains any death that follows: nothing of the cluster reaches us
    if refused:
        return refused
    logged = _worker_stderr(fields.get("pid"))
    return f"{reason}; Ray logged: {logged}" if logged else reason


def _first_sentence(text: str) -> str:
    return _RAY_ADVICE.sub("", text.strip().splitlines()[0] if text.strip() else text)


def _last_exception_line(text: str) -> str:
    """`Name: message` of the innermost exception in a traceback's text."""
    lines = [line.strip() for line in text.splitlines()]
    found = [line for line in lines if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt)\b", line)]
    return found[-1] if found else (lines[-1] if lines else "an unknown error")


def _logs_dir() -> Path | None:
    """This machine's Ray log folder for the session the driver joined."""
    try:
        import ray._private.worker as worker

        return Path(worker._global_node.get_logs_dir_path())
    except Exception:  # noqa: BLE001 - a private Ray helper: no folder means nothing to add
        return None


def _tail(path: Path) -> list[str]:
    try:
        with path.open(errors="replace") as handle:
            return [line.rstrip() for line in deque(handle, _TAIL_LINES)]
    except OSError:
        return []


def _worker_stderr(pid: str | None) -> str | None:
    """The last line a dead worker wrote to stderr, when it ran on this machine."""
    folder = _logs_dir()
    if folder is None or not pid:
        return None
    for path in folder.glob(f"worker-*-{pid}.err"):
        lines = [line for line in _tail(path) if line.strip() and not line.startswith(":")]
        if lines:
            return lines[-1].strip()
    return None


def _driver_refusals() -> str | None:
    """An authentication refusal in this driver's own core log (a cluster and driver in different modes)."""
    folder = _logs_dir()
    if folder is None:
        return None
    for path in folder.glob(f"python-core-driver-*_{os.getpid()}.log"):
        for line in reversed(_tail(path)):
            if any(mark in line for mark in _AUTH_LOG):
                said = line.split("] ", 1)[-1].split(": ", 1)[-1]
                return (f"the cluster and this driver refuse each other's calls (Ray's driver log: {said}): they "
                        "use different RAY_AUTH_MODE or tokens; let evo join the cluster (no ray.init of your own, "
                        "RAY_AUTH_MODE unset) and it uses the cluster's mode")
    return None
