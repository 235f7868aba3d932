"""The island model's driver: it hands the islands to a backend and writes the log of what they did.

An epoch is an island's run of generations up to the next multiple of
`interval` (`Plan.epoch_last`). The backend runs every island's epochs on
its own, migrations included: all in this process (`InProcessIslands`,
workers = 0, the reference log), or in island runners on the cluster that
pass emigrants to each other and score on their own actors (`on_ray.py`). The driver only

* takes in each finished epoch, and settles each migration a second time
  (the same function on the same members, so the same result) to log it;
  with `islands.lag` it keeps each island's emigrants one migration longer,
  and in the checkpoint (`State.emigrants`) so that resume has them;
* records generation g once every island has reached it (and its migration
  is settled): one individuals file of the rows every island built itself
  (`epochs.Rows`; `selected` set here, from who is alive after the
  migration) and the migrants placed, the hall of fame from each island's
  candidates (`Tracker.candidates`), one generations.parquet row over all
  islands, the checkpoint; `wall_seconds` is the time from the moment the
  last island finished g - 1 to the moment the last finished g;
* checks the stop rules after each recorded generation. A stop at g
  discards whatever islands did after g, so the log is the one an
  uninterrupted run stopping at g writes. If an island runner (or every actor
  of an island) is lost, the islands start again from the last recorded
  generation (the same members).
"""

from __future__ import annotations

import operator
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from operators.migration import emigrants

from ..evaluation import EvaluationError
from ..evaluation.cpu import cpu_summary
from ..evolution.loop import Hook, announce
from ..evolution.members import Member, Objectives
from ..evolution.scoring import Scorer
from ..evolution.state import State
from ..evolution.tracking import Tracker, check_some_viable
from ..records.island_rows import IslandRows
from ..records.schema import Schema
from ..evolution.islands import Plan, migrated
from .epochs import IslandGeneration, IslandsLost, Rows
from .steady import Epochs, island_epochs
from .travel import Changes

if TYPE_CHECKING:
    from ..evaluation import Evaluator
    from ..spec import RunSpec
    from ..evolution.parts import Parts

__all__ = ["Backend", "InProcessIslands", "IslandLoop", "IslandsLost", "island_loop"]

_ID = operator.attrgetter("id")

_POLL_SECONDS = 1.0
MAX_RESTARTS = 3  # restarts after losing island runners or an island's actors, in one session, before giving up


class Backend(Protocol):
    """Where islands run: `begin` at once; `results` gives the epochs finished since, in any order."""

    def begin(self, homes: list[list[Member]], first: int, pools: list[list[Member]]) -> None: ...

    def results(self, timeout: float) -> list[tuple[int, list[IslandGeneration]]]: ...

    def busy(self) -> bool: ...

    def cpu_spent(self) -> dict[str, float]: ...

    def close(self) -> None: ...


class TableRecording(Protocol):
    """The recorder, as the island loop uses it: islands build their rows themselves."""

    schema: Schema

    def record_table(self, state: State, rows: IslandRows, failures: int, started: float) -> State: ...

    def writer_cpu(self) -> float | None: ...


class InProcessIslands:
    """workers = 0: every island's next epoch, one after the other, when results are asked for."""

    def __init__(self, epochs: Epochs, plan: Plan, end: int) -> None:
        self.epochs, self.plan, self.end = epochs, plan, end
        self.homes: list[list[Member]] = []
        self.pools: dict[int, list[Member]] = {}  # islands.lag: each island's emigrants, one migration back
        self.first = end + 1

    def begin(self, homes: list[list[Member]], first: int, pools: list[list[Member]]) -> None:
        self.homes, self.first = [list(h) for h in homes], first
        self.pools = dict(enumerate(pools))

    def results(self, timeout: float) -> list[tuple[int, list[IslandGeneration]]]:
        if not self.busy():
            return []
        first, last = self.first, self.plan.epoch_last(self.first, self.end)
        finished, leaving = [], {}
        for island, home in enumerate(self.homes):
            done, leaving[island] = self.epochs(island, home, first, last)
            finished.append((island, done))
        sources = self.pools if self.plan.lagged() else leaving
        self.homes = [migrated(self.plan, last, i, {**sources, i: leaving[i]})[0] for i in range(self.plan.count)]
        if self.plan.keeps_pools_after(last):
            self.pools = {i: emigrants(leaving[i], self.plan.migrants) for i in leaving}
        self.first = last + 1
        return finished

    def busy(self) -> bool:
        return self.first <= self.end

    def cpu_spent(self) -> dict[str, float]:
        return {}  # no process but the driver's

    def close(self) -> None:
        self.homes = []


class IslandLoop:
    """Records the islands' generations until a stop rule fires; see the module docstring."""

    def __init__(self, plan: Plan, backend: Backend, tracker: Tracker, recorder: TableRecording, objectives: Objectives,
                 hooks: list[Hook] | None = None) -> None:
        self.plan, self.backend, self.tracker, self.recorder = plan, backend, tracker, recorder
        self.objectives = objectives
        self.hooks = list(hooks or [])
        self.restarts = 0
        self.cpu: dict[str, Any] | None = None  # µs of CPU per evaluation by process, once run (`cpu.py`)

    def run(self, state: State) -> tuple[State, str]:
        """Generations until a stop rule fires; the final state and the rule's name."""
        reason = self.tracker.stop_reason(state)
        if reason is not None:
            return state, reason
        self._begin(state)
        started, evaluated = time.process_time(), state.evaluations
        try:
            while True:
                if not self._recordable(state.generation + 1):
                    if not self.backend.busy():
                        raise RuntimeError(f"islands stalled before generation {state.generation + 1}")
                    self._receive(state, _POLL_SECONDS)
                    continue
                state = self._record(state)
                reason = self.tracker.stop_reason(state)
                if reason is not None:
                    self.cpu = cpu_summary(self.backend.cpu_spent(), time.process_time() - started,
                                           state.evaluations - evaluated, self.recorder.writer_cpu())
                    return state, reason
        finally:
            self.backend.close()

    def _begin(self, state: State) -> None:
        count = self.plan.count
        if state.generation < 0:
            homes: list[list[Member]] = [[] for _ in range(count)]
        else:
            expected = self.plan.next_id(state.generation + 1)
            if len(state.populations) != count or state.next_id != expected:
                raise ValueError(f"the checkpoint after generation {state.generation} holds "
                                 f"{len(state.populations)} island(s) and next id {state.next_id}; "
                                 f"the spec's island model expects {count} and {expected}")
            homes = [list(p) for p in state.populations]
        self.homes = {i: (state.generation, homes[i]) for i in range(count)}  # where each island's next epoch starts
        pools = state.emigrants if self.plan.lagged() and state.generation >= 0 else []
        if self.plan.lagged() and state.generation >= 0 and len(pools) != count:
            raise ValueError(f"the checkpoint after generation {state.generation} holds {len(pools)} emigrant "
                             f"pool(s); islands.lag = 1 with {count} islands expects {count}")
        # islands.lag: (island, g) -> the emigrants chosen after g for the migration one interval later
        self.pools = {(i, self.plan.pool_point(state.generation)): pool for i, pool in enumerate(pools)}
        self.inbox: dict[tuple[int, int], list[IslandGeneration]] = {}  # (island, first generation) -> epoch
        self.done: dict[int, dict[int, IslandGeneration]] = {}  # generation -> island -> what it did (settled)
        self.leaving: dict[tuple[int, int], list[Member]] = {}  # (island, m): its population before migrating
        self.arrived: dict[tuple[int, int], list[Member]] = {}  # (island, m): the migrants it took in
        self._finished = time.time()  # when the last island finished the last recorded generation
        self.backend.begin(homes, state.generation + 1, pools)

    def _receive(self, state: State, timeout: float) -> None:
        try:
            results = self.backend.results(timeout)
        except IslandsLost as lost:
            self.restarts += 1
            if self.restarts > MAX_RESTARTS:
                raise EvaluationError(f"the islands' runners or actors lost {self.restarts} times (they start "
                                      f"again at most {MAX_RESTARTS}); last cause: {lost}") from None
            self._begin(state)  # the same members again, from the last recorded generation
            return
        for island, generations in results:
            self.inbox[(island, generations[0].generation)] = generations
        while self._advance():
            pass

    def _advance(self) -> bool:
        """Take in every epoch whose start is settled, and settle what migrations can be; False: no progress."""
        progress = False
        for island, (generation, home) in list(self.homes.items()):
            epoch = self.inbox.pop((island, generation + 1), None)
            if epoch is None:
                continue
            progress = True
            before = home
            for done in epoch:
                if isinstance(done.population, Changes):  # from a runner: rebuilt from the one before
                    done.population = done.population.against(before, self.objectives.fitness_class)
                before = done.population
                for m in (*done.population, *done.candidates):
                    if m.fitness is None:  # members from a runner travel without their DEAP fitness
                        m.fitness = self.objectives.fitness(m.columns, m.error)
                self.done.setdefault(done.generation, {})[island] = done
            last = epoch[-1].generation
            self.leaving[(island, last)] = self.done[last][island].population
            if self.plan.keeps_pools_after(last):
                self.pools[(island, last)] = emigrants(self.leaving[(island, last)], self.plan.migrants)
            del self.homes[island]
        for island in range(self.plan.count):
            progress |= self._settle(island)
        return progress

    def _settle(self, island: int) -> bool:
        """Settle `island`'s migration after its last epoch if its sources have got there too."""
        ends = [m for (i, m) in self.leaving if i == island and (island, m) not in self.arrived]
        if island in self.homes or not ends:
            return False
        m = max(ends)
        sources = self.plan.sources(m, island) if self.plan.migrates_after(m) else []
        basis, kept = self.plan.emigration(m), self.pools if self.plan.lagged() else self.leaving
        if any((s, basis) not in kept for s in sources):
            return False
        population, self.arrived[(island, m)] = migrated(
            self.plan, m, island, {**{s: kept[(s, basis)] for s in sources}, island: self.leaving[(island, m)]})
        self.done[m][island] = replace(self.done[m][island], population=population)
        self.homes[island] = (m, population)
        return True

    def _recordable(self, generation: int) -> bool:
        """Every island has done `generation`, and settled the migration after it if its epoch ended there."""
        islands = self.done.get(generation, {})
        return len(islands) == self.plan.count and all(
            (i, generation) not in self.leaving or (i, generation) in self.arrived for i in range(self.plan.count))

    def _record(self, state: State) -> State:
        generation = state.generation + 1
        by_island = self.done.pop(generation)
        done = [by_island[i] for i in range(self.plan.count)]
        migrants = [m for i in range(self.plan.count) for m in self.arrived.pop((i, generation), [])]
        for i in range(self.plan.count):
            self.leaving.pop((i, generation), None)
        state = replace(state, generation=generation, populations=[d.population for d in done],
                        next_id=self.plan.next_id(generation + 1))
        if self.plan.lagged():  # the pools the next migration takes; older ones are spent
            chosen = self.plan.pool_point(generation)
            self.pools = {key: pool for key, pool in self.pools.items() if key[1] >= chosen}
            state = replace(state, emigrants=[self.pools[(i, chosen)] for i in range(self.plan.count)])
        evaluations = sum(d.evaluations for d in done)
        candidates = [m for d in done for m in d.candidates]
        check_some_viable(generation, candidates, evaluations)
        state = self.tracker.update(state, candidates, evaluations)  # placed migrants are copies, not evaluations
        finished = max(d.finished for d in done)
        seconds, self._finished = max(0.0, finished - self._finished), max(finished, self._finished)
        alive = np.fromiter(map(_ID, state.population), np.int64, len(state.population))
        rows = IslandRows([d.table for d in done], alive, Schema.fields(migrants) if migrants else None)
        state = self.recorder.record_table(state, rows, sum(d.failures for d in done), time.perf_counter() - seconds)
        announce(self.hooks, self.tracker, state)
        return state


def island_loop(spec: RunSpec, parts: Parts, evaluator: Evaluator, tracker: Tracker, recorder: TableRecording,
                hooks: list[Hook], code: bytes | None) -> IslandLoop:
    """The island model's loop for a run: in this process on workers = 0, else island runners
    on the Ray actors of `evaluator` (with the spec's own modules, `code`)."""
    plan = Plan.of(spec)
    if evaluator.workers == 0:
        scorer = Scorer(evaluator, parts.noise, parts.objectives, spec.execution.on_error)
        rows = Rows(recorder.schema.run_id, parts.kind, parts.objectives, tracker, parts.noise.reevaluate)
        epochs = island_epochs(parts.algorithm, scorer, rows, plan, spec.execution.in_flight)
        backend: Backend = InProcessIslands(epochs, plan, spec.generations)
    else:
        from .on_ray import RayIslands

        backend = RayIslands(spec, evaluator, code, recorder.schema.run_id, parts.objectives.fitness_class)
    return IslandLoop(plan, backend, tracker, recorder, parts.objectives, hooks)
