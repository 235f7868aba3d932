"""A batch as the Ray pool tracks it: its chunks, their attempts and results (`ray_pool`).

Kept free of Ray. A chunk that runs past `eval_timeout` is cut into chunks of one genome
(`split`), so the batch's chunks grow while it is in flight; results are merged by position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .core import Evaluated, merge_chunks

__all__ = ["Batch"]


@dataclass(eq=False)
class Batch:
    ticket: int
    genomes: Sequence[Any]
    seeds: Sequence[int]
    bounds: list[tuple[int, int]]
    task_spec: dict | None
    failures_before: int  # the pool's failure count when the batch was submitted
    attempts: list[int] = field(init=False)
    results: list[tuple[dict, float, str] | None] = field(init=False)
    remaining: int = field(init=False)

    def __post_init__(self) -> None:
        self.attempts = [0] * len(self.bounds)
        self.results = [None] * len(self.bounds)
        self.remaining = len(self.bounds)

    def describe(self, chunk: int) -> str:
        start, stop = self.bounds[chunk]
        return f"chunk {chunk + 1} of {len(self.bounds)} (genomes {start}-{stop - 1})"

    def split(self, chunk: int) -> list[int]:
        """Chunk `chunk` cut into chunks of one genome each (a timed-out chunk); their indices."""
        start, stop = self.bounds[chunk]
        self.bounds[chunk] = (start, start + 1)
        added = list(range(len(self.bounds), len(self.bounds) + stop - start - 1))
        self.bounds += [(i, i + 1) for i in range(start + 1, stop)]
        self.attempts += [0] * len(added)
        self.results += [None] * len(added)
        self.remaining += len(added)
        return [chunk, *added]

    def merged(self, failures: int) -> Evaluated:
        """The batch's result once every chunk is back (split chunks in genome order)."""
        order = sorted(range(len(self.bounds)), key=lambda chunk: self.bounds[chunk])
        return merge_chunks([self.results[c] for c in order], [self.bounds[c] for c in order], failures)
