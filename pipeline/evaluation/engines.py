"""Which engine a run evaluates on: in-process, a local process pool, or Ray actors.

`execution.engine = "auto"` (the default) picks what serves best where the run is:
Ray for a cluster (an address, or RAY_ADDRESS), for a Ray this process already
runs (a test session, a notebook) and for generational islands (they evolve on
runner actors); on one machine otherwise a process pool, which is ready in
milliseconds where an embedded Ray takes seconds to start and stop
(benchmarks/README.md, "Every core of one machine"). `workers = 0` is in-process.
"""

from __future__ import annotations

import sys

from ..spec_execution import ENGINES
from .ray_connect import cluster_address
from .ray_embedded import is_ours

__all__ = ["chosen_engine", "ray_initialized"]


def ray_initialized() -> bool:
    """A Ray the user initialised in this process (without importing Ray to ask); our embedded
    Ray kept warm from an earlier run (`ray_embedded`) does not count."""
    return "ray" in sys.modules and sys.modules["ray"].is_initialized() and not is_ours()


def chosen_engine(engine: str, workers: int | str, address: str | None = None, runners: bool = False) -> str:
    """The engine `engine` ("auto" or one of the others) means for this run: "in-process",
    "processes" or "ray" (`runners`: generational islands, which need Ray's actors)."""
    if engine not in ENGINES:
        raise ValueError(f"execution.engine: must be one of {', '.join(ENGINES)}; got {engine!r}")
    if workers == 0 or engine == "in-process":
        return "in-process"
    if engine != "auto":
        return engine
    if runners or cluster_address(address) is not None or ray_initialized():
        return "ray"
    return "processes"
