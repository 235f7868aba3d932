"""An island's epoch: its generations between two migrations, run wherever it lives.

Between two migrations an island needs nobody: `evolve` runs its generations
(the run's generational algorithm, ask -> score -> tell) on whatever scores
members, in this process or in an island runner on the cluster, with the
draws and ids of `evolution/islands.py`'s plan; and makes each generation's
log rows there (`Rows`), so that the driver touches no scored member.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..evolution.islands import Plan
from ..evolution.members import Member, Objectives
from ..evolution.state import State, variation_rng
from ..records.ipc import PackedTable, pack_table
from ..records.schema import Fields, Schema

if TYPE_CHECKING:
    from .travel import Changes
    from ..evolution.algorithms import Algorithm
    from ..evolution.scoring import Scorer
    from operators.kind import GenomeKind

    from ..evolution.tracking import Tracker

__all__ = ["IslandGeneration", "IslandsLost", "Rows", "evolve"]


class IslandsLost(RuntimeError):
    """An island runner (its node lost) or all of an island's evaluation actors died: the driver
    starts every island again from the last recorded generation (the same members)."""


@dataclass
class IslandGeneration:
    """What one island did in one generation, as the driver needs it: its individuals rows
    (built where it ran), who is alive after it (before any migration), the members that may enter
    the hall of fame (`Tracker.candidates`), and counts."""

    generation: int
    table: PackedTable | None  # its scored members' individuals rows (`selected` set by the log's writer)
    population: list[Member] | Changes  # alive after it (before any migration); from a runner, as changes
    candidates: list[Member]
    evaluations: int
    failures: int  # worker failures recovered while scoring
    finished: float = 0.0  # when it ended (time.time(), wherever it ran)


class Rows:
    """Makes an island's generations the driver's `IslandGeneration`s: the work on every member
    (its log row, whether it may enter the hall of fame) done where the island runs. Each
    generation's rows are taken when it ends (`of`) and made into tables once an epoch
    (`built`): one table for all its generations, ~15 pyarrow calls where each cost ~15."""

    def __init__(self, run_id: str, kind: GenomeKind, objectives: Objectives, tracker: Tracker,
                 rescored: bool = False) -> None:
        """`rescored`: survivors are scored again (sampled fitness), so islands send every hall
        candidate; else only those entering their own island's hall (`Tracker.entering`)."""
        self.schema = Schema(run_id, kind, objectives, viability=True)  # the driver drops them if it must
        self.tracker = tracker
        self.taken: list[tuple[int, Fields]] = []  # the generations `of` made, their tables not built
        self.halls: dict[int, list[Member]] | None = None if rescored or objectives.mode == "pareto" else {}

    def of(self, island: int, generation: int, scored: list[Member], population: list[Member], failures: int,
           finished: float) -> IslandGeneration:
        """The generation, its table still to build (`built`)."""
        self.taken.append((generation, self.schema.fields(scored)))
        candidates = self.tracker.candidates(generation, scored)
        if self.halls is not None and any(m.born != generation for m in scored):
            self.halls = None  # a member scored twice after all: every candidate from now on
        if self.halls is not None:
            candidates, self.halls[island] = self.tracker.entering(self.halls.get(island, []), candidates)
        return IslandGeneration(generation, None, population, candidates, len(scored), failures, finished)

    def built(self, done: list[IslandGeneration]) -> list[IslandGeneration]:
        """`done`, the generations `of` made since the last call, with their tables packed (as they
        travel to the driver and on to its log's writer, `records.ipc`)."""
        taken, self.taken = self.taken[len(self.taken) - len(done):], []  # (an epoch that raised left its own)
        tables = self.schema.tables(taken, islands=True)
        return [replace(generation, table=pack_table(table)) for generation, table in zip(done, tables, strict=True)]


def evolve(algorithm: Algorithm, scorer: Scorer, rows: Rows, plan: Plan, island: int, population: list[Member],
           first: int, last: int) -> tuple[list[IslandGeneration], list[Member]]:
    """Generations `first`..`last` of one island, from its population after `first - 1`;
    and its population after `last` (before any migration)."""
    done: list[IslandGeneration] = []
    made = None  # the last generation's (generation, batch, population, failures, end), rows not made yet
    for generation in range(first, last + 1):
        state = State(generation=generation - 1, populations=[population],
                      next_id=plan.next_id(generation) + island * plan.offspring)
        batch = algorithm.ask(state, variation_rng(plan.seed, generation, island))
        if generation == 0:  # the algorithm numbers from 0: island i's block starts at i * size
            batch = [replace(m, id=m.id + island * plan.size) for m in batch]
        elif sum(m.born == generation for m in batch) > plan.offspring:
            raise ValueError(f"island {island} made more than population.offspring = {plan.offspring} children "
                             f"in generation {generation}")
        for m in batch:
            m.island = island
        ticket = scorer.start(generation, batch, island)
        if made is not None:  # the last generation's rows while this one is scored
            done.append(rows.of(island, *made))
        failures = scorer.finish(ticket, batch)
        population = algorithm.tell(state, batch).populations[0]
        made = (generation, batch, population, failures, time.time())
    if made is not None:
        done.append(rows.of(island, *made))
    return rows.built(done), population
