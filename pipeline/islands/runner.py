"""An island runner: a Ray actor that evolves one island, scoring on its own evaluation actors.

Import only after `ray_connect.connect()` (it imports Ray).

The runner builds the run's parts from the spec, then runs the island's
epochs: migration in (from its sources' populations), then generations
(`steady.island_epochs`: generational, or a steady-state island's own
asynchronous loop, whose batches in flight wait for the next epoch) scored
on its share of the pool's actors (`actors.IslandActors`), called directly:
no process stands between an island and its evaluations.
It sends back each generation's log rows (`epochs.Rows`), its population and
its hall-of-fame candidates, never every scored member.
Its own population it keeps from epoch to epoch; its sources' come as object
refs that Ray resolves before the call starts, so an island that is ahead
waits only for the sources of its next migration, never for every island.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from fitness.plugins import install_bundle

from ..evaluation.transport import sealed
from ..heap import freeze_heap
from ..evolution.members import Member
from ..evolution.scoring import Scorer
from ..evolution.tracking import Tracker
from .actors import IslandActors, Slot
from ..evolution.islands import Plan, migrated
from .epochs import IslandGeneration, Rows
from .steady import island_epochs
from ..evolution.packed_members import pack_members, unpack_members
from .travel import Changes

__all__ = ["IslandRunner", "received"]

Sent = list[tuple[Changes, list, IslandGeneration]]  # an epoch's generations, their members and tables packed


def _sent(done: list[IslandGeneration], start: list[Member]) -> Sent:
    """An epoch's generations as they travel: each population as its changes since the one before
    (`start` for the first: the driver holds it, settled), candidates packed; each table is
    packed already (`epochs.Rows`), and the driver hands it on to its log's writer unread."""
    sent, before = [], start
    for generation in done:
        sent.append((Changes.of(generation.population, before), pack_members(generation.candidates),
                     replace(generation, population=[], candidates=[])))
        before = generation.population
    return sent


def received(sent: Sent, fitness_class: type) -> list[IslandGeneration]:
    """An epoch's generations as the runner did them (fitness from the weighted values it sent);
    each population still as its `Changes`, for the driver to rebuild from the one before."""
    return [replace(generation, population=population, candidates=unpack_members(candidates, fitness_class))
            for population, candidates, generation in sent]


class IslandRunner:
    """A Ray actor running one island's epochs (see the module docstring)."""

    def setup(self, spec: dict[str, Any], code: bytes | None, run_id: str, slots: list[Slot], max_retries: int) -> None:
        from ..evolution.parts import build_parts
        from ..spec import RunSpec

        try:
            if code is not None:
                install_bundle(code)
            run_spec = RunSpec.model_validate(spec)
            self.parts = build_parts(run_spec)
            self.rows = Rows(run_id, self.parts.kind, self.parts.objectives, Tracker(run_spec, self.parts.objectives),
                             self.parts.noise.reevaluate)
            self.plan = Plan.of(run_spec)
            self.actors = IslandActors(slots, max_retries, run_spec.execution.chunk_size, learner=self.parts.task)
            scorer = Scorer(self.actors, self.parts.noise, self.parts.objectives, run_spec.execution.on_error)
            self.epochs = island_epochs(self.parts.algorithm, scorer, self.rows, self.plan,
                                        run_spec.execution.in_flight)
            self.kept: tuple[int | None, list[Member]] = (None, [])  # (generation, population) of the last epoch
            # its parts, modules and Ray's live as long as the runner: no full collection walks them
            # (one did every ~100 generations, 65 ms of its CPU each; `heap.py`)
            freeze_heap()
        except Exception as exc:  # raised again by every epoch: the driver sees this cause
            self.broken = exc
            raise

    def cpu(self) -> float:
        """This process's CPU seconds so far (`cpu.py`)."""
        return time.process_time()

    def adopt(self, slots: list[Slot]) -> None:
        """Successors of this island's dead actors (the driver's pool replaced them)."""
        self.actors.adopt(slots)

    def run_epoch(self, island: int, first: int, last: int, migrate: bool, own: list | None,
                  *packed_sources: list) -> tuple[bytes, list]:
        """Generations `first`..`last` of `island` from `own` (with the migration after `first - 1`
        from `sources`, in `Plan.sources` order, if `migrate`): the epoch's generations, the
        actors found dead meanwhile and this process's CPU seconds so far (`cpu.py`); and its
        population after `last`. `own` None: the population this runner's previous epoch ended
        with. Members come and go packed (`evolution/packed_members.py`); the epoch's generations,
        dead actors and CPU go `sealed` (one object for Ray, not a hook call per object)."""
        if hasattr(self, "broken"):
            raise self.broken
        if own is None:
            ended, population = self.kept
            if ended != first - 1:
                raise RuntimeError(f"island {island}: asked to go on from generation {first - 1}, "
                                   f"but this runner's last epoch ended at {ended}")
        else:
            population = self._arrived(own)
        if migrate:
            sources = [self._arrived(source) for source in packed_sources]
            leaving = {island: population, **dict(zip(self.plan.sources(first - 1, island), sources))}
            population = migrated(self.plan, first - 1, island, leaving)[0]
        start = population
        done, population = self.epochs(island, population, first, last)
        self.kept = (last, population)
        lost, self.actors.lost = self.actors.lost, []
        return sealed((_sent(done, start), lost, time.process_time())), pack_members(population)

    def _arrived(self, packed: list) -> list[Member]:
        """Members as `pack_members` sent them, with their DEAP fitness."""
        members = unpack_members(packed, self.parts.objectives.fitness_class)
        for m in members:
            if m.fitness is None:  # sent whole (columns that differ)
                m.fitness = self.parts.objectives.fitness(m.columns, m.error)
        return members
