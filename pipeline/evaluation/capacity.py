"""How many Ray actors this machine can hold: the cap on an embedded Ray's workers.

An embedded Ray is told it has as many CPUs as the run asks for workers, and
starts one actor process per worker whatever the cores: `--workers 1000` on a
2-core, 23 GB machine would start 1000 processes of ~175 MB. Memory is what
runs out, so memory sets the cap: what the machine has available now
(`MemAvailable`), less a share kept free and what Ray itself and the driver
take, divided by an actor's size (figures in benchmarks/README.md, "How many
actors a machine holds"). CPUs do not cap it: actors beyond the cores share
them, which pays where evaluations wait rather than compute (the scale
benchmarks run 64 sleeping actors on 2 cores). A cluster (`--address`, or
a Ray this process already joined) keeps any number: its nodes are not this
machine.
"""

from __future__ import annotations

import os

from .engines import ray_initialized
from .ray_connect import cluster_address

__all__ = ["ACTOR_BYTES", "available_memory", "embedded_actor_limit", "fit_workers"]

GIB, MIB = 2**30, 2**20
# An idle evaluation actor, resident: 130 MiB (nim-table) to 172 MiB (setcover-1000), Ray 2.60.
ACTOR_BYTES = 180 * MIB
# The embedded Ray's own processes (GCS, raylet, agents: ~0.55 GiB resident) and the driver (~0.25 GiB).
RAY_OWN_BYTES = 1 * GIB
# Left free of the available memory: actors grow while they evaluate, and the machine has other work.
HEADROOM_SHARE = 0.2


def available_memory() -> int | None:
    """Bytes this machine can give without swapping (Linux `MemAvailable`); None where it cannot tell."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def embedded_actor_limit(available: int) -> int:
    """The most actors `available` bytes hold beside Ray itself, with the headroom kept (at least 1)."""
    return max(1, int((available * (1 - HEADROOM_SHARE) - RAY_OWN_BYTES) // ACTOR_BYTES))


def _starts_embedded_ray(address: str | None) -> bool:
    """Whether a run would start its own Ray on this machine (no cluster, no Ray of the user's
    joined already; our own warm embedded Ray restarts with the workers asked for, so it counts as none)."""
    return cluster_address(address) is None and not ray_initialized()


def fit_workers(workers: int | str, address: str | None, other_actors: int = 0,
                available: int | None = None) -> tuple[int | str, str | None]:
    """`(workers, None)`, or for an embedded Ray asked for more actors than this machine holds
    (`other_actors` beside them: island runners), `(the most it holds, one line saying so)`.
    `available`: bytes of memory (default: `available_memory()`, and no cap where it is unknown)."""
    if workers == 0 or not _starts_embedded_ray(address):
        return workers, None
    available = available_memory() if available is None else available
    if available is None:
        return workers, None
    cpus = os.cpu_count() or 1
    asked = cpus if workers == "auto" else int(workers)
    limit = embedded_actor_limit(available)
    fitted = max(1, limit - other_actors)  # one worker at least, even where island actors fill the machine
    if fitted >= asked:
        return workers, None
    given = f"'auto' ({cpus} CPUs)" if workers == "auto" else str(workers)
    beside = f" beside {other_actors} island actors" if other_actors else ""
    return fitted, (f"execution.workers = {given}: this machine holds about {limit} Ray actors ({available / GIB:.1f} GiB "
                    f"available, ~{ACTOR_BYTES // MIB} MiB each, with headroom), so the embedded Ray runs {fitted}{beside} "
                    f"({cpus} CPUs: actors beyond them share the cores); a cluster (--address) keeps any number")
