"""Islands on Ray: one light runner actor per island; their chunks share one queue to every actor.

Import only after `ray_connect.connect()` (it imports Ray).

A runner (`IslandRunner`, no CPU of its own, spread over the nodes) builds
the run's parts from the spec, then runs one island's epochs: variation,
selection, and scoring through the shared `Dispatcher`
(`island_dispatch.py`), which feeds every evaluation actor of the run's pool
from one queue. So islands need the driver only at migrations, and no actor
idles while any island has a chunk waiting. The driver polls the dispatcher
for dead actors and replaces them at once; a runner that dies itself (its
node lost) is replaced and its epoch run again from the same inputs, which
gives the same members.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import ray
from ray.exceptions import RayError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from fitness.plugins import install_bundle

from ..evolution.islands import IslandGeneration, Plan, evolve
from ..evolution.members import Member
from ..evolution.scoring import Scorer
from .core import EvaluationError, one_line
from .island_dispatch import DispatchedEvaluator, Dispatcher
from .ray_pool import RayEvaluator

__all__ = ["IslandRunner", "RayIslands"]

MAX_RUNNER_FAILURES = 3  # an island's epoch may lose its runner this many times


def _bare(members: list[Member]) -> list[Member]:
    """Members as they travel: without the DEAP fitness (rebuilt from the columns on arrival)."""
    return [replace(m, fitness=None) for m in members]


class IslandRunner:
    """A Ray actor running one island's epochs (see the module docstring)."""

    def setup(self, spec: dict[str, Any], code: bytes | None, dispatcher: Any) -> None:
        from ..evolution.parts import build_parts
        from ..spec import RunSpec

        try:
            if code is not None:
                install_bundle(code)
            run_spec = RunSpec.model_validate(spec)
            self.parts = build_parts(run_spec)
            self.plan = Plan.of(run_spec)
            self.chunk_size = run_spec.execution.chunk_size
            self.dispatcher = dispatcher
        except Exception as exc:  # raised again by every epoch: the driver sees this cause
            self.broken = exc
            raise

    def run_epoch(self, island: int, population: list[Member], first: int, last: int,
                  workers: int) -> list[IslandGeneration]:
        """Generations `first`..`last` of `island` (members without their DEAP fitness)."""
        if hasattr(self, "broken"):
            raise self.broken
        for m in population:
            m.fitness = self.parts.objectives.fitness(m.columns)
        evaluator = DispatchedEvaluator(self.dispatcher, workers, self.plan.count, self.chunk_size)
        scorer = Scorer(evaluator, self.parts.noise, self.parts.objectives)
        done = evolve(self.parts.algorithm, scorer, self.plan, island, population, first, last)
        for generation in done:
            generation.scored = _bare(generation.scored)
        return done


class RayIslands:
    """The driver's side: the dispatcher over the run's pool, and a runner per island."""

    def __init__(self, spec: Any, pool: RayEvaluator, code: bytes | None) -> None:
        """Starts the dispatcher and the runners; with `execution.wait_for_workers`, returns once
        they and every actor are ready (the pool was made without waiting, so all start together)."""
        self.pool = pool
        self._spec = spec.model_dump(mode="json")
        self._code = None if code is None else ray.put(code)
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True)
        self.dispatcher = ray.remote(Dispatcher).options(num_cpus=0, max_restarts=0,
                                                         scheduling_strategy=here).remote(pool.max_retries)
        self.dispatcher.adopt.remote(pool.slots())
        self._remote = ray.remote(IslandRunner).options(num_cpus=0, max_restarts=0, scheduling_strategy="SPREAD")
        self._setups: list[Any] = []
        self.runners = [self._runner() for _ in range(spec.islands.count)]
        self._running: dict[Any, tuple[int, tuple, int]] = {}  # epoch ref -> island, arguments, attempt
        if spec.execution.wait_for_workers:
            try:
                ray.get(self._setups)
            except RayTaskError as error:
                self.close()
                raise error.cause from None
            pool.wait_until_ready()

    def _runner(self) -> Any:
        handle = self._remote.remote()
        self._setups.append(handle.setup.remote(self._spec, self._code, self.dispatcher))  # or: the first epoch fails
        return handle

    def start(self, island: int, population: list[Member], first: int, last: int, attempt: int = 0) -> None:
        arguments = (_bare(population), first, last)
        ref = self.runners[island].run_epoch.remote(island, *arguments, self.pool.workers)
        self._running[ref] = (island, arguments, attempt)

    def busy(self) -> bool:
        return bool(self._running)

    def results(self, timeout: float | None) -> list[tuple[int, list[IslandGeneration]]]:
        self._replace_lost()
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
                finished.append((island, ray.get(ref)))
            except RayTaskError as error:  # the island's own code raised (a task error, a broken spec)
                cause = error.cause
                raise (cause if isinstance(cause, EvaluationError) else EvaluationError(
                    f"island {island}: {one_line(cause)}")) from cause
            except RayError as error:  # the runner died (its node was lost): run the epoch again
                self._restart(island, arguments, attempt + 1, one_line(error))
        return finished

    def _replace_lost(self) -> None:
        """Replace the actors the dispatcher found dead, and give the successors lanes."""
        lost = ray.get(self.dispatcher.lost.remote())
        for number, cause in lost:
            self.pool.replace(number, cause)
        if lost:
            self.dispatcher.adopt.remote(self.pool.slots())

    def _restart(self, island: int, arguments: tuple, attempt: int, cause: str) -> None:
        if attempt >= MAX_RUNNER_FAILURES:
            raise EvaluationError(f"island {island}'s runner failed {attempt} times; last cause: {cause}")
        ray.kill(self.runners[island])
        self.runners[island] = self._runner()
        population, first, last = arguments
        self.start(island, population, first, last, attempt)

    def close(self) -> None:
        """Kill the runners and the dispatcher (a stop discards the epochs they were running)."""
        for handle in [*self.runners, self.dispatcher]:
            ray.kill(handle)
        self.runners = []
        self._running.clear()
