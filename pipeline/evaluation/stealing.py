"""An actor's side of work stealing: a chunk evaluated in slices whose unstarted tail can be taken.

Why: an island's generation waits for its slowest chunk, and with evaluation
times that vary (lognormal σ = 1) the other islands' chunks do not fill the
actors that finish early: 8 islands of 128 on 64 actors, chunks of 8 genomes,
keep at most 0.70 of them busy in `benchmarks/model_islands.py`, 0.89 when an
idle actor takes the unstarted half of a running or queued chunk, with about
twice the calls, not the eight times that chunks of one genome (0.93) cost.

The actor evaluates a chunk slice by slice (about `SLICE_SECONDS` each, so a
cheap task still runs whole chunks in one call) and checks, before each
slice, where the chunk now stops; `steal`, run on another thread, moves that
stop back. Results are placed by genome index and every genome has its own
seed, so which actor ran which genome changes no value.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Sequence

from .core import narrowed

__all__ = ["Slices", "SLICE_SECONDS"]

SLICE_SECONDS = 0.005  # a slice's target: few `evaluate` calls for a cheap task, little begun for a steal to miss
REMEMBERED = 256  # finished chunks remembered, so a late steal of one takes nothing

Slice = tuple[Any, float, int, int]  # (the task's columns, seconds, start, stop) in chunk coordinates


class Slices:
    """Chunks (by ticket) being evaluated on this actor, and where each now stops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stop: dict[int, int] = {}  # ticket -> where its evaluation stops now
        self._begun: dict[int, int] = {}  # ticket -> genomes begun, while it runs
        self._finished: deque[int] = deque(maxlen=REMEMBERED)
        self._seconds_per_genome: float | None = None

    def evaluate(self, task: Any, ticket: int, genomes: Sequence[Any], seeds: Sequence[int], start: int,
                 stop: int) -> list[Slice]:
        """Genomes [start, end) in slices, `end` <= `stop` being where steals left it."""
        if start == stop:  # an empty batch: its columns' names still come back
            return [(task.evaluate([], []), 0.0, start, stop)]
        done: list[Slice] = []
        with self._lock:
            self._stop.setdefault(ticket, stop)
            self._begun[ticket] = start
        at = start
        while True:
            with self._lock:
                end = self._stop[ticket]
                if at >= end:  # finished, atomically with the check: a later steal takes nothing
                    self._forget(ticket)
                    return done
                upto = min(end, at + self._slice())
                self._begun[ticket] = upto
            began = time.perf_counter()
            columns = narrowed(task.evaluate, genomes[at:upto], seeds[at:upto], "a slice")
            seconds = time.perf_counter() - began
            self._seconds_per_genome = seconds / (upto - at)
            done.append((columns, seconds, at, upto))
            at = upto

    def steal(self, ticket: int, start: int, stop: int) -> int:
        """Where chunk `ticket` (genomes [start, stop) when sent) now stops: the caller takes the rest
        up to `stop`. A chunk not begun is taken whole; a running one loses half its unstarted
        genomes; a finished one nothing (`stop` is returned)."""
        with self._lock:
            if ticket in self._finished:
                return stop
            limit = self._stop.get(ticket, stop)
            if ticket not in self._begun:
                cut = start
            else:
                cut = limit - (limit - self._begun[ticket]) // 2
            self._stop[ticket] = cut
            return cut

    def _slice(self) -> int:
        if self._seconds_per_genome is None:
            return 1
        return max(1, int(SLICE_SECONDS / max(self._seconds_per_genome, 1e-9)))

    def _forget(self, ticket: int) -> None:
        self._stop.pop(ticket, None)
        self._begun.pop(ticket, None)
        self._finished.append(ticket)
