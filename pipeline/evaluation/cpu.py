"""CPU per evaluation of every process of a run: which one would cap a bigger cluster.

A process that spends s seconds of CPU per evaluation of the run caps it at
1 / s evaluations a second however many cores the cluster has (DESIGN.md,
"Scale-out"). So a run on Ray measures it for itself: the driver its own
process (every thread: Ray's too), the log's writer process its own, and each
island runner and evaluation actor its own (`time.process_time()` there, asked
of an actor with `cpu()`): an island run's runners with each epoch they send,
its actors once the islands are up and once more at the end
(`islands/on_ray.py`); a run whose evaluation actors are up from the loop's
start (not one handed over mid-run), its actors at the loop's start and end
(`pool_cpu.py`). A process counts from when it is first heard of: one lost
meanwhile counts what it had spent when last heard of, a successor from its
first answer. The figures go to run.json (`cpu_per_evaluation`) and
`evo report`'s Workers section.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CpuLedger", "cpu_summary"]


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


class CpuLedger:
    """The CPU seconds each process (by label) spent since it was first heard of, from what it
    says it has spent so far, told now and then."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}  # label -> CPU seconds between its first answer and its last
        self.answers: dict[str, int] = {}  # label -> how many times it answered
        self._at: dict[str, float] = {}  # label -> its CPU seconds at its last answer

    def count(self, label: str, seconds: float) -> None:
        """Process `label` has spent `seconds` so far."""
        if label in self._at:
            self.spent[label] = self.spent.get(label, 0.0) + seconds - self._at[label]
        self._at[label] = seconds
        self.spent.setdefault(label, 0.0)
        self.answers[label] = self.answers.get(label, 0) + 1

    def forget(self, prefix: str) -> None:
        """Processes labelled `prefix`... are replaced: their successors count from their first
        answer (what the old ones spent stays)."""
        self._at = {label: at for label, at in self._at.items() if not label.startswith(prefix)}
