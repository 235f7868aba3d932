"""The state of a run between two generations: plain data, serialisable, enough to resume.

An algorithm's `tell` returns a new `State`; the tracker adds the run's
bookkeeping (hall of fame, best so far); the recorder writes it as the
checkpoint record of the generation's individuals file (`checkpoint`),
and resume reads it back (`restore` in `records.recorder`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .members import Member

__all__ = ["CHECKPOINT_KEYS", "State", "variation_rng"]

# What every checkpoint record holds (older runs included), checked by resume.
CHECKPOINT_KEYS = ("generation", "next_id", "evaluations", "population", "hall_of_fame", "best_primary",
                   "stagnant", "elapsed_seconds")

_VARIATION_STREAM = 1


def variation_rng(seed: int, generation: int, island: int | None = None) -> np.random.Generator:
    """The generator of every variation draw of a generation (of one island, for island runs)."""
    key = [seed, generation, _VARIATION_STREAM] + ([] if island is None else [island])
    return np.random.default_rng(np.random.SeedSequence(key))


@dataclass
class State:
    """Where a run stands after `generation` (-1: nothing made yet)."""

    generation: int = -1
    populations: list[list[Member]] = field(default_factory=lambda: [[]])  # one per island
    hall_of_fame: list[Member] = field(default_factory=list)
    next_id: int = 0  # the id the next new individual gets
    evaluations: int = 0  # individuals scored so far (re-scored survivors count again)
    best_so_far: float | None = None  # of the primary objective, for the stop rules
    stagnant: int = 0  # generations since best_so_far last improved
    elapsed: float = 0.0  # seconds spent in generations, over every session of the run
    rows: list[dict[str, Any]] = field(default_factory=list)  # the generations rows so far
    extra: dict[str, Any] = field(default_factory=dict)  # an algorithm's own (JSON) state
    emigrants: list[list[Member]] = field(default_factory=list)  # islands.lag: pools of the next migration

    @property
    def population(self) -> list[Member]:
        """Every island's members, island by island."""
        if len(self.populations) == 1:
            return self.populations[0]
        return [m for island in self.populations for m in island]

    def checkpoint(self, ranks: list[int]) -> dict[str, Any]:
        """The record resume needs (`CHECKPOINT_KEYS`, plus islands and the algorithm's own)."""
        record: dict[str, Any] = {
            "generation": self.generation,
            "next_id": self.next_id,
            "evaluations": self.evaluations,
            "population": [m.id for m in self.population],
            "population_rank": ranks,
            "hall_of_fame": [m.id for m in self.hall_of_fame],
            "best_primary": self.best_so_far,
            "stagnant": self.stagnant,
            "elapsed_seconds": self.elapsed,
        }
        if len(self.populations) > 1:
            record["islands"] = [len(island) for island in self.populations]
        if self.extra:
            record["algorithm"] = self.extra
        if self.emigrants:
            record["emigrants"] = [[m.id for m in pool] for pool in self.emigrants]
        return record
