"""SIGTERM stops `evo run` and `evo resume` as Ctrl-C does: run.json says interrupted, exit 143.

Ray's core installs abseil's failure-signal handler for SIGTERM in a driver: it
arms a 3-second abort alarm, then chains to Ray's Python handler, which raises
SystemExit. Stopping a run and Ray takes longer than that on a busy machine, so
a SIGTERM (`kill`, a scheduler's stop, `timeout`) aborted the driver: exit 134,
a core dump, and run.json still saying running. So while a command runs a run,
SIGTERM raises `Terminated` in the main thread (a KeyboardInterrupt: the run
stops where Ctrl-C stops it, its committed generations kept), and every
`ray.init` is followed by `after_ray_init`, which puts this handler back in
place of Ray's and abseil's. A second SIGTERM kills at once (the default).
Not covered: a SIGTERM during `ray.init` itself (the seconds Ray takes to start)
still meets Ray's handlers.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Any, Iterator

__all__ = ["Terminated", "after_ray_init", "stopping_on_sigterm"]

EXIT_CODE = 128 + signal.SIGTERM  # what a shell reports for a process ended by SIGTERM: 143

_active = {"on": False, "pid": 0}  # a command's run is under `stopping_on_sigterm`, in process `pid`


class Terminated(KeyboardInterrupt):
    """SIGTERM during a run: stop as Ctrl-C does, and exit `EXIT_CODE`."""


def _terminate(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM while stopping kills at once
    if os.getpid() != _active["pid"]:  # a worker forked from the driver (`processes`): ends as it did
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated()


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def stopping_on_sigterm() -> Iterator[None]:
    """Within: SIGTERM raises `Terminated` in the main thread (elsewhere this does nothing).
    The handler before it is put back after."""
    if not _in_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    _active.update(on=True, pid=os.getpid())
    try:
        yield
    finally:
        _active["on"] = False
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def after_ray_init() -> None:
    """Called after `ray.init`: within `stopping_on_sigterm`, ours again instead of Ray's."""
    if _active["on"] and _in_main_thread():
        signal.signal(signal.SIGTERM, _terminate)
