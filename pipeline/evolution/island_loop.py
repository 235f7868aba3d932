"""The island model's driver: it starts each island's epochs, routes migrants and writes the log.

An epoch is an island's run of generations up to the next multiple of
`interval` (`Plan.epoch_last`). Islands run their epochs on their own: all at
once in this process (`InProcessIslands`, workers = 0, the reference log), or
each in an island runner on the cluster (`evaluation/island_runner.py`). The
driver only

* settles an island's migration after generation m as soon as that island and
  the islands sending to it have reached m, and starts its next epoch there
  (a ring needs no global barrier: an island waits for its one source only);
* records generation g once every island has reached it (and settled its
  migration): one individuals file holding every island's members, one
  generations.parquet row over all islands, the checkpoint;
* checks the stop rules after each recorded generation. A stop at g
  discards whatever islands did after g, so the log is the one an
  uninterrupted run stopping at g writes.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from .algorithms import Algorithm
from .islands import IslandGeneration, Plan, evolve, immigrants, settle
from .loop import Hook, Recording
from .members import Member, Objectives
from .scoring import Scorer
from .state import State
from .tracking import Tracker

if TYPE_CHECKING:
    from ..evaluation import Evaluator
    from ..spec import RunSpec
    from .parts import Parts

__all__ = ["Backend", "InProcessIslands", "IslandLoop", "island_loop"]

_POLL_SECONDS = 1.0


class Backend(Protocol):
    """Where epochs run: `start` returns at once; `results` gives the epochs finished since."""

    def start(self, island: int, population: list[Member], first: int, last: int) -> None: ...

    def results(self, timeout: float | None) -> list[tuple[int, list[IslandGeneration]]]: ...

    def busy(self) -> bool: ...

    def close(self) -> None: ...


class InProcessIslands:
    """workers = 0: each epoch runs as soon as it is started, in this process."""

    def __init__(self, algorithm: Algorithm, scorer: Scorer, plan: Plan) -> None:
        self.algorithm, self.scorer, self.plan = algorithm, scorer, plan
        self._done: list[tuple[int, list[IslandGeneration]]] = []

    def start(self, island: int, population: list[Member], first: int, last: int) -> None:
        self._done.append((island, evolve(self.algorithm, self.scorer, self.plan, island, population, first, last)))

    def results(self, timeout: float | None) -> list[tuple[int, list[IslandGeneration]]]:
        done, self._done = self._done, []
        return done

    def busy(self) -> bool:
        return bool(self._done)

    def close(self) -> None:
        self._done = []


class IslandLoop:
    """Drives the islands until a stop rule fires; see the module docstring."""

    def __init__(self, plan: Plan, backend: Backend, tracker: Tracker, recorder: Recording, objectives: Objectives,
                 end: int, hooks: list[Hook] | None = None) -> None:
        self.plan, self.backend, self.tracker, self.recorder = plan, backend, tracker, recorder
        self.objectives = objectives
        self.end = end  # the run's last generation (spec.generations)
        self.hooks = list(hooks or [])
        self.homes: list[list[Member]] = []  # each island's population when its next epoch starts
        self.reached: list[int] = []  # the last generation each island has done
        self.done: dict[int, dict[int, list]] = {}  # generation -> island -> [scored, population, failures]
        self.leaving: dict[tuple[int, int], list[Member]] = {}  # (island, m): its population before migrating
        self.arrived: dict[tuple[int, int], list[Member]] = {}  # (island, m): the migrants it took in
        self.waiting: set[int] = set()  # islands at a migration waiting for their sources
        self._since = time.perf_counter()

    def run(self, state: State) -> tuple[State, str]:
        """Generations until a stop rule fires; the final state and the rule's name."""
        reason = self.tracker.stop_reason(state)
        if reason is not None:
            return state, reason
        self._begin(state)
        try:
            while True:
                if not self._recordable(state.generation + 1):
                    if not self.backend.busy():
                        raise RuntimeError(f"islands stalled before generation {state.generation + 1}: "
                                           f"they reached {self.reached}, none is running")
                    self._receive(_POLL_SECONDS)
                    continue
                state = self._record(state)
                reason = self.tracker.stop_reason(state)
                if reason is not None:
                    return state, reason
                self._receive(0)  # route what has come meanwhile before the next record
        finally:
            self.backend.close()

    def _begin(self, state: State) -> None:
        count = self.plan.count
        if state.generation < 0:
            self.homes = [[] for _ in range(count)]
        else:
            if len(state.populations) != count or state.next_id != self.plan.next_id(state.generation + 1):
                raise ValueError(f"the checkpoint after generation {state.generation} holds "
                                 f"{len(state.populations)} island(s) and next id {state.next_id}; "
                                 f"the spec's island model expects {count} and {self.plan.next_id(state.generation + 1)}")
            self.homes = [list(p) for p in state.populations]
        self.reached = [state.generation] * count
        for island in range(count):
            self._start(island)

    def _start(self, island: int) -> None:
        first = self.reached[island] + 1
        if first <= self.end:
            self.backend.start(island, self.homes[island], first, self.plan.epoch_last(first, self.end))

    def _receive(self, timeout: float) -> None:
        """Take in the epochs finished (waiting up to `timeout`), settle migrations, start epochs."""
        for island, generations in self.backend.results(timeout):
            self._take(island, generations)
        self._settle()

    def _take(self, island: int, generations: list[IslandGeneration]) -> None:
        known = {m.id: m for m in self.homes[island]}
        population = self.homes[island]
        for done in generations:
            for m in done.scored:
                if m.fitness is None:  # members from a runner travel without their DEAP fitness
                    m.fitness = self.objectives.fitness(m.columns)
                known[m.id] = m
            population = [known[i] for i in done.population]
            known = {m.id: m for m in population}
            self.done.setdefault(done.generation, {})[island] = [done.scored, population, done.failures]
        last = generations[-1].generation
        self.reached[island] = last
        if self.plan.migrates_after(last):
            self.leaving[(island, last)] = population
            self.waiting.add(island)
        else:
            self.homes[island] = population
            self._start(island)

    def _settle(self) -> None:
        """Migrate into every waiting island whose sources have reached the same generation."""
        for island in sorted(self.waiting):
            m = self.reached[island]
            sources = self.plan.sources(m, island)
            if any((s, m) not in self.leaving for s in sources):
                continue
            arrivals = immigrants(self.plan, m, island, {s: self.leaving[(s, m)] for s in sources})
            population = settle(self.leaving[(island, m)], arrivals)
            self.done[m][island][1] = population
            self.arrived[(island, m)] = arrivals
            self.homes[island] = population
            self.waiting.discard(island)
            self._start(island)

    def _recordable(self, generation: int) -> bool:
        islands = self.done.get(generation, {})
        if len(islands) < self.plan.count:
            return False
        return not self.plan.migrates_after(generation) or \
            all((i, generation) in self.arrived for i in range(self.plan.count))

    def _record(self, state: State) -> State:
        generation = state.generation + 1
        done = self.done.pop(generation)
        islands = range(self.plan.count)
        scored = [m for i in islands for m in done[i][0]]
        migrants = [m for i in islands for m in self.arrived.pop((i, generation), [])]
        for i in islands:
            self.leaving.pop((i, generation), None)
        state = replace(state, generation=generation, populations=[done[i][1] for i in islands],
                        next_id=self.plan.next_id(generation + 1))
        state = self.tracker.update(state, scored)
        state = self.recorder.record(state, scored + migrants, sum(done[i][2] for i in islands), self._since)
        self._since = time.perf_counter()
        for hook in self.hooks:
            if hook(dict(state.rows[-1])) is True:
                self.tracker.stop_requested = True
        return state


def island_loop(spec: RunSpec, parts: Parts, evaluator: Evaluator, tracker: Tracker, recorder: Recording,
                hooks: list[Hook], code: bytes | None) -> IslandLoop:
    """The island model's loop for a run: in this process on workers = 0, else island runners
    on the Ray actors of `evaluator` (with the spec's own modules, `code`)."""
    plan = Plan.of(spec)
    if evaluator.workers == 0:
        backend: Backend = InProcessIslands(parts.algorithm, Scorer(evaluator, parts.noise, parts.objectives), plan)
    else:
        from ..evaluation.island_runner import RayIslands

        backend = RayIslands(spec, evaluator, code)
    return IslandLoop(plan, backend, tracker, recorder, parts.objectives, spec.generations, hooks)
