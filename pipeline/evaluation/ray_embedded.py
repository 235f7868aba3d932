"""Our embedded Ray: started once per process, kept warm for the next run, stopped at exit.

Ray's own start (seconds: `ray.init`, then each actor's worker process) and stop
(about a second) cost more than a short run's evaluation, and a notebook runs
many. So the embedded Ray a run starts is not shut down when the run ends: the
next run in the process reuses it if it holds enough CPUs (else it is restarted
with more), and it stops at interpreter exit (for `evo run`, after the done line)
or on `pipeline.shutdown()`. The actor pool is kept too (parked, its task built),
for a next run of the same task with the same workers and options. It is marked as ours, so `engine = "auto"` does not
take it for a Ray the user started (which means "evaluate on Ray"), and joining
a cluster first stops it. Without a dashboard, and with usage stats off, it runs
the components a run needs: Ray 2.60's `ray.init` offers no switch for the rest.
"""

from __future__ import annotations

import atexit
import hashlib
import pickle
import sys
from typing import Any, Callable


__all__ = ["embedded_ray", "is_ours", "shutdown_embedded", "embedded_starts", "warm_for", "parked_key", "unpark",
           "parker"]

# The GCS of the Ray we started (None: none), its CPUs, and how many times one was started.
_ours: dict = {"gcs": None, "cpus": 0, "starts": 0, "atexit": False}
_parked: dict[str, Any] = {}  # key (`parked_key`) -> an actor pool idle between runs


def _current_gcs() -> str | None:
    if "ray" not in sys.modules or not sys.modules["ray"].is_initialized():
        return None
    from .ray_gcs import current_gcs

    return current_gcs()


def is_ours() -> bool:
    """The Ray initialised in this process is the embedded one we started (never imports Ray)."""
    return _ours["gcs"] is not None and _current_gcs() == _ours["gcs"]


def warm_for(num_cpus: int) -> bool:
    """Our embedded Ray is up with at least `num_cpus` CPUs: a run starts its actors on it at once."""
    return is_ours() and _ours["cpus"] >= num_cpus


def embedded_ray(num_cpus: int, start: Callable[[int], None]) -> bool:
    """Make sure our embedded Ray runs with at least `num_cpus` CPUs, started by `start`
    (`ray_connect.start_local_ray`, which imports Ray on loopback); True if started now."""
    if warm_for(num_cpus):
        return False
    shutdown_embedded()  # too small for this run: a larger one replaces it
    start(num_cpus)
    _ours.update(gcs=_current_gcs(), cpus=num_cpus, starts=_ours["starts"] + 1)
    if not _ours["atexit"]:  # registered after Ray's own, so it runs first: our Ray, stopped by us
        atexit.register(shutdown_embedded)
        _ours["atexit"] = True
    return True


def parked_key(*parts: Any) -> str:
    """What a parked pool must match to serve a run: its task, workers and options."""
    return hashlib.sha256(pickle.dumps(parts)).hexdigest()


def unpark(key: str) -> Any:
    """The pool parked under `key` (None: none); any other parked pool is discarded, since its
    actors hold CPUs of our Ray that the new pool needs."""
    pool = _parked.pop(key, None)
    for other in _parked.values():
        other.discard()
    _parked.clear()
    return pool if pool is not None and is_ours() else None


def parker(key: str) -> Callable[[Any], None]:
    """The `park` of a pool on our Ray: its close() keeps it under `key` for the next run."""
    return lambda pool: _parked.__setitem__(key, pool)


def shutdown_embedded() -> None:
    """Stop our embedded Ray (and the pools parked on it) if it runs; a user's Ray is left alone."""
    _parked.clear()
    if is_ours():
        sys.modules["ray"].shutdown()
    _ours.update(gcs=None, cpus=0)


def embedded_starts() -> int:
    """How many embedded Rays this process has started (tests: a second run reuses the first)."""
    return _ours["starts"]
