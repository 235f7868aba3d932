"""CPU per evaluation of every process of an island run: which one would cap a bigger cluster.

A process that spends s seconds of CPU per evaluation of the run caps it at
1 / s evaluations a second however many cores the cluster has (DESIGN.md,
"Scale-out"). So the run measures it for itself: the driver its own process
(every thread: Ray's too), the log's writer process its own, and each island runner and
evaluation actor its own (`time.process_time()` there): a runner's with each
epoch it sends, an actor's asked (`cpu()`) once the islands are up and once
more at the end. A runner or actor lost meanwhile counts what it had spent
when last heard of; an actor's successor from when it is first asked (its
start-up then included). The figures go to run.json
(`cpu_per_evaluation`) and `evo report`'s Workers section.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cpu_summary"]


def cpu_summary(spent: dict[str, float], driver: float, evaluations: int,
                writer: float | None = None) -> dict[str, Any] | None:
    """µs of CPU per evaluation of the run: the driver's, each island runner's (`spent` keys
    "island <i>"), the log's writer process's (`writer` seconds; None where it is a thread of
    the driver), the actors' (keys "actor-<n>") max and mean, and the busiest process named.
    None with no evaluation to divide by."""
    if evaluations <= 0:
        return None

    def per(seconds: float) -> float:
        return round(seconds / evaluations * 1e6, 2)

    islands = sorted((int(label.split()[1]), per(s)) for label, s in spent.items() if label.startswith("island "))
    actors = {label: per(s) for label, s in spent.items() if label.startswith("actor-")}
    every = {"driver": per(driver), **{f"island {i}": us for i, us in islands}, **actors}
    if writer is not None:
        every["log writer"] = per(writer)
    busiest = max(every, key=every.__getitem__)
    return {
        "evaluations": evaluations,
        "driver": every["driver"],
        "islands": [us for _, us in islands],
        "writer": every.get("log writer"),
        "actors": {"count": len(actors), "max": max(actors.values(), default=0.0),
                   "mean": round(sum(actors.values()) / len(actors), 2) if actors else 0.0},
        "busiest": {"process": busiest, "us": every[busiest]},
    }
