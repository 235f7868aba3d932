"""Islands on Ray: one light runner actor per island, every runner sharing every evaluation actor.

Import only after `ray_connect.connect()` (it imports Ray).

A runner (`IslandRunner`, no CPU of its own) builds the run's parts from the
spec, then runs one island's epochs: variation, selection, and its own
dispatch of small chunks over **all** the run's evaluation actors (a
`RayEvaluator` adopting the driver pool's actors, at most two chunks per
actor from each runner). While one island waits for the tail of its
generation, the others' chunks keep every actor busy, so no actor idles at
an island's generation barrier; only a migration waits, and only for the
islands that send to it. A runner skips an actor that died (its chunks run
elsewhere) and reports it; the driver replaces it for the next epochs. A
runner that dies itself is replaced and its epoch run again from the same
inputs, which gives the same members.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import ray
from ray.exceptions import RayError, RayTaskError

from fitness.plugins import install_bundle

from ..evolution.islands import IslandGeneration, Plan, evolve
from ..evolution.members import Member
from ..evolution.scoring import Scorer
from .core import EvaluationError, one_line
from .ray_pool import RayEvaluator, Slot

__all__ = ["IslandRunner", "RayIslands"]

MAX_RUNNER_FAILURES = 3  # an island's epoch may lose its runner this many times


def _bare(members: list[Member]) -> list[Member]:
    """Members as they travel: without the DEAP fitness (rebuilt from the columns on arrival)."""
    return [replace(m, fitness=None) for m in members]


class IslandRunner:
    """A Ray actor running one island's epochs (see the module docstring)."""

    def setup(self, spec: dict[str, Any], code: bytes | None) -> None:
        from ..evolution.parts import build_parts
        from ..spec import RunSpec

        try:
            if code is not None:
                install_bundle(code)
            run_spec = RunSpec.model_validate(spec)
            self.parts = build_parts(run_spec)
            self.plan = Plan.of(run_spec)
            self.chunk_size = run_spec.execution.chunk_size
        except Exception as exc:  # raised again by every epoch: the driver sees this cause
            self.broken = exc
            raise

    def run_epoch(self, island: int, population: list[Member], first: int, last: int,
                  slots: list[Slot]) -> tuple[list[IslandGeneration], list[tuple[int, str]]]:
        """Generations `first`..`last` of `island`; with the actors found dead meanwhile."""
        if hasattr(self, "broken"):
            raise self.broken
        for m in population:
            m.fitness = self.parts.objectives.fitness(m.columns)
        shift = island * len(slots) // self.plan.count  # each island starts on its own share of the actors
        pool = RayEvaluator({}, 0, chunk_size=self.chunk_size, adopt=slots[shift:] + slots[:shift])
        try:
            scorer = Scorer(pool, self.parts.noise, self.parts.objectives)
            done = evolve(self.parts.algorithm, scorer, self.plan, island, population, first, last)
        finally:
            pool.close()
        for generation in done:
            generation.scored = _bare(generation.scored)
        return done, pool.lost


class RayIslands:
    """The driver's side: a runner per island, fed the current actors of the run's pool."""

    def __init__(self, spec: Any, pool: RayEvaluator, code: bytes | None) -> None:
        self.pool = pool
        self._spec = spec.model_dump(mode="json")
        self._code = None if code is None else ray.put(code)
        self._remote = ray.remote(IslandRunner).options(num_cpus=0, max_restarts=0)
        self.runners = [self._runner() for _ in range(spec.islands.count)]
        self._running: dict[Any, tuple[int, tuple, int]] = {}  # epoch ref -> island, arguments, attempt

    def _runner(self) -> Any:
        handle = self._remote.remote()
        handle.setup.remote(self._spec, self._code)  # a failure surfaces with the first epoch
        return handle

    def start(self, island: int, population: list[Member], first: int, last: int, attempt: int = 0) -> None:
        arguments = (_bare(population), first, last)
        ref = self.runners[island].run_epoch.remote(island, *arguments, self.pool.slots())
        self._running[ref] = (island, arguments, attempt)

    def busy(self) -> bool:
        return bool(self._running)

    def results(self, timeout: float | None) -> list[tuple[int, list[IslandGeneration]]]:
        refs = list(self._running)
        if not refs:
            return []
        ready, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        finished = []
        for ref in ready:
            island, arguments, attempt = self._running.pop(ref)
            try:
                done, lost = ray.get(ref)
            except RayTaskError as error:  # the island's own code raised (a task error, a broken spec)
                cause = error.cause
                raise (cause if isinstance(cause, EvaluationError) else EvaluationError(
                    f"island {island}: {one_line(cause)}")) from cause
            except RayError as error:  # the runner died (its node was lost): run the epoch again
                self._restart(island, arguments, attempt + 1, one_line(error))
                continue
            for number, cause in lost:
                self.pool.replace(number, cause)
            finished.append((island, done))
        return finished

    def _restart(self, island: int, arguments: tuple, attempt: int, cause: str) -> None:
        if attempt >= MAX_RUNNER_FAILURES:
            raise EvaluationError(f"island {island}'s runner failed {attempt} times; last cause: {cause}")
        ray.kill(self.runners[island])
        self.runners[island] = self._runner()
        population, first, last = arguments
        self.start(island, population, first, last, attempt)

    def close(self) -> None:
        """Kill the runners (a stop discards the epochs they were running)."""
        for handle in self.runners:
            ray.kill(handle)
        self.runners = []
        self._running.clear()
