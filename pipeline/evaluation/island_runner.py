"""Islands on Ray: a light runner actor per island, emigrants passed runner to runner, chunks
pulled from one shared queue by every evaluation actor.

Import only after `ray_connect.connect()` (it imports Ray).

A runner (`IslandRunner`, no CPU of its own, spread over the nodes) builds
the run's parts from the spec, then runs one island's epochs: migration in
(from its sources' populations), variation, selection, and scoring through
the shared `Dispatcher` (`island_dispatch.py`). Each epoch's call takes the
object refs of its sources' populations where a migration comes first (with
`islands.lag`, as they were one migration earlier, long since there); its own
island's population it kept from its previous epoch (only the first call
after `begin` passes it). Ray starts the call as soon as those exist,
so the driver submits epochs ahead (`LOOKAHEAD` rounds) and is on no
island's path: it only reads each epoch's log rows, replaces dead actors the
dispatcher reports, and on a stop kills the runners. A runner that dies
(its node lost), or the dispatcher, raises `IslandsLost`: the driver starts
every island again from the last recorded generation on new runners (and a
new dispatcher if it died, numbering its dispatches past the old one's), which
gives the same members.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import ray
from ray.exceptions import RayError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from fitness.plugins import install_bundle

from ..evolution.island_loop import IslandsLost
from ..evolution.islands import IslandGeneration, Plan, evolve, migrated
from ..evolution.members import Member
from ..evolution.scoring import Scorer
from .core import EvaluationError, one_line
from .island_dispatch import DispatchedEvaluator, Dispatcher
from .ray_pool import RayEvaluator
from .timing import SecondsPerMember
from .transport import pack_members, unpack_members

__all__ = ["IslandRunner", "RayIslands"]

LOOKAHEAD = 2  # rounds of epochs (one per island) submitted ahead of the results read
LOST_SECONDS = 60.0  # a dispatcher that does not say which actors died within this is taken for lost
PROBE_SECONDS = 2.0  # how long a restart waits for actors to answer whether they are alive
TICKETS_PER_DISPATCHER = 1 << 48  # a successor dispatcher numbers its dispatches past these


def _sent(done: list[IslandGeneration]) -> list[tuple[list, IslandGeneration]]:
    """An epoch's generations as they travel: the scored members packed (`pack_members`)."""
    return [(pack_members(generation.scored), replace(generation, scored=[])) for generation in done]


def _received(sent: list[tuple[list, IslandGeneration]]) -> list[IslandGeneration]:
    return [replace(generation, scored=unpack_members(packed)) for packed, generation in sent]


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
            self.on_error = run_spec.execution.on_error
            self.per_member = SecondsPerMember()  # evaluation time, carried from epoch to epoch
            self.kept: tuple[int | None, list[Member]] = (None, [])  # (generation, population) of the last epoch
            self.dispatcher = dispatcher
        except Exception as exc:  # raised again by every epoch: the driver sees this cause
            self.broken = exc
            raise

    def run_epoch(self, island: int, first: int, last: int, workers: int, migrate: bool, own: list | None,
                  *packed_sources: list) -> tuple[list[tuple[list, IslandGeneration]], list]:
        """Generations `first`..`last` of `island` from `own` (with the migration after `first - 1`
        from `sources`, in `Plan.sources` order, if `migrate`); and its population after `last`.
        `own` None: the population this runner's previous epoch ended with, kept here, so that an
        epoch does not wait for its own island's population to come back through the driver.
        Members come and go packed (`pack_members`)."""
        if hasattr(self, "broken"):
            raise self.broken
        if own is None:
            ended, own = self.kept
            if ended != first - 1:
                raise RuntimeError(f"island {island}: asked to go on from generation {first - 1}, "
                                   f"but this runner's last epoch ended at {ended}")
        else:
            own = self._arrived(own)
        sources = [self._arrived(source) for source in packed_sources]
        population = own
        if migrate:
            leaving = {island: own, **dict(zip(self.plan.sources(first - 1, island), sources))}
            population = migrated(self.plan, first - 1, island, leaving)[0]
        evaluator = DispatchedEvaluator(self.dispatcher, workers, self.plan.count, self.chunk_size,
                                        self.per_member)
        scorer = Scorer(evaluator, self.parts.noise, self.parts.objectives, self.on_error)
        done, population = evolve(self.parts.algorithm, scorer, self.plan, island, population, first, last)
        self.kept = (last, population)
        return _sent(done), pack_members(population)

    def _arrived(self, packed: list) -> list[Member]:
        """Members as `pack_members` sent them, with their DEAP fitness rebuilt."""
        members = unpack_members(packed)
        for m in members:
            m.fitness = self.parts.objectives.fitness(m.columns, m.error)
        return members


class RayIslands:
    """The driver's side: the dispatcher over the run's pool, a runner per island, epochs ahead."""

    def __init__(self, spec: Any, pool: RayEvaluator, code: bytes | None) -> None:
        """Starts the dispatcher and the runners (with the pool's actors still starting); with
        `execution.wait_for_workers`, returns once they and every actor are ready."""
        self.pool, self.plan, self.end = pool, Plan.of(spec), spec.generations
        self._spec = spec.model_dump(mode="json")
        self._code = None if code is None else ray.put(code)
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True)
        self._dispatcher = ray.remote(Dispatcher).options(num_cpus=0, max_restarts=0, scheduling_strategy=here)
        self._dispatchers = 0  # started so far
        self.dispatcher = self._start_dispatcher()
        self._remote = ray.remote(IslandRunner).options(num_cpus=0, max_restarts=0, scheduling_strategy="SPREAD")
        self.runners, self._setups = self._start_runners()
        self._running: dict[Any, int] = {}  # epoch log ref -> island
        self._begun = False
        if spec.execution.wait_for_workers:
            try:
                ray.get(self._setups)
            except RayTaskError as error:
                self.close()
                raise error.cause from None
            pool.wait_until_ready()

    def _start_dispatcher(self) -> Any:
        self._dispatchers += 1
        dispatcher = self._dispatcher.remote(self.pool.max_retries, self.pool.stealing,
                                             1 + (self._dispatchers - 1) * TICKETS_PER_DISPATCHER)
        dispatcher.adopt.remote(self.pool.slots())
        return dispatcher

    def _start_runners(self) -> tuple[list[Any], list[Any]]:
        runners = [self._remote.remote() for _ in range(self.plan.count)]
        return runners, [r.setup.remote(self._spec, self._code, self.dispatcher) for r in runners]

    def begin(self, homes: list[list[Member]], first: int, pools: list[list[Member]]) -> None:
        if self._begun:  # a restart: fresh runners, nothing of the old ones' queued epochs
            for runner in self.runners:
                ray.kill(runner)
            try:
                self._replace_lost()
            except IslandsLost:  # the dispatcher died too: a new one, over actors known to be alive
                ray.kill(self.dispatcher)
                self._replace_dead_actors()
                self.dispatcher = self._start_dispatcher()
            self.runners, self._setups = self._start_runners()
            self._running.clear()
        self._begun = True
        self._leaving = [ray.put(pack_members(home)) for home in homes]  # refs of each island's latest population
        # islands.lag: generation g -> refs of the islands' populations (or emigrants) chosen after g
        chosen = [ray.put(pack_members(pool)) for pool in pools]
        self._chosen = {self.plan.pool_point(first - 1): chosen} if pools else {}
        self._first, self._migrate = first, False  # the homes are settled already
        self._homes_sent = False  # after the first round, each runner goes on from the population it kept

    def _submit_round(self) -> None:
        """Every island's next epoch, started by Ray once the populations it needs exist."""
        first, last = self._first, self.plan.epoch_last(self._first, self.end)
        migrate = self._migrate and self.plan.migrates_after(first - 1)
        routes = [self.plan.sources(first - 1, i) if migrate else [] for i in range(self.plan.count)]
        sources = self._chosen.get(self.plan.emigration(first - 1)) if self.plan.lagged() else self._leaving
        leaving = []
        for island, runner in enumerate(self.runners):
            inputs = [None if self._homes_sent else self._leaving[island], *(sources[s] for s in routes[island])]
            log, population = runner.run_epoch.options(num_returns=2).remote(
                island, first, last, self.pool.workers, migrate, *inputs)
            self._running[log] = island
            leaving.append(population)
        if self.plan.keeps_pools_after(last):
            self._chosen = {g: refs for g, refs in self._chosen.items() if g >= self.plan.emigration(last)}
            self._chosen[last] = leaving
        self._leaving, self._first, self._migrate, self._homes_sent = leaving, last + 1, True, True

    def busy(self) -> bool:
        return bool(self._running) or self._first <= self.end

    def results(self, timeout: float) -> list[tuple[int, list[IslandGeneration]]]:
        self._replace_lost()
        while self._first <= self.end and len(self._running) < LOOKAHEAD * self.plan.count:
            self._submit_round()
        refs = list(self._running)
        ready, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        finished = []
        for ref in ready:
            island = self._running.pop(ref)
            try:
                finished.append((island, _received(ray.get(ref))))
            except RayTaskError as error:  # the island's own code raised (a task error, a broken spec)
                cause = error.cause
                if isinstance(cause, RayError):  # an epoch it depends on lost its runner
                    raise IslandsLost(one_line(cause)) from None
                raise (cause if isinstance(cause, EvaluationError) else EvaluationError(
                    f"island {island}: {one_line(cause)}")) from cause
            except RayError as error:  # the runner died (its node was lost)
                raise IslandsLost(f"island {island}'s runner: {one_line(error)}") from None
        return finished

    def _replace_lost(self) -> None:
        """Replace the actors the dispatcher found dead, and hand it the successors."""
        try:
            lost = ray.get(self.dispatcher.lost.remote(), timeout=LOST_SECONDS)
        except RayError as error:  # the dispatcher died or hangs: the islands start again (`begin`)
            raise IslandsLost(f"the island dispatcher: {one_line(error)}") from None
        for number, cause in lost:
            self.pool.replace(number, cause)
        if lost:
            self.dispatcher.adopt.remote(self.pool.slots())

    def _replace_dead_actors(self) -> None:
        """Replace the pool's actors that are dead (a lost dispatcher cannot say which), so that
        its successor does not spend a chunk's attempts finding them one by one."""
        probes = {handle.__ray_ready__.remote(): number for handle, number, _ in self.pool.slots()}
        answered, _ = ray.wait(list(probes), num_returns=len(probes), timeout=PROBE_SECONDS)
        for ref in answered:  # a busy actor answers late, after its chunks: it is alive
            try:
                ray.get(ref)
            except RayError as error:
                self.pool.replace(probes[ref], one_line(error))

    def close(self) -> None:
        """Kill the runners and the dispatcher (a stop discards the epochs they were running)."""
        for handle in [*self.runners, self.dispatcher]:
            ray.kill(handle)
        self.runners = []
        self._running.clear()
