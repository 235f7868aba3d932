"""Islands on Ray, the driver's side: a runner per island, each with its share of the pool's actors.

Import only after `ray_connect.connect()` (it imports Ray).

The driver's pool (`RayEvaluator`) starts the evaluation actors; once they
are up, each island gets a share of them (`actors.shares`: an even split, one
node's actors together) and a runner (`runner.IslandRunner`, no CPU of its
own) placed on its actors' node. Each epoch's call takes the object refs of
its sources' populations where a migration comes first (with `islands.lag`,
as they were one migration earlier, long since there); Ray starts it as soon
as those exist, so the driver submits epochs ahead (`LOOKAHEAD` rounds) and is
on no island's path: it reads each epoch's log rows, replaces the actors a
runner found dead (handing the successor to that runner), and on a stop kills
the runners. A runner that dies (its node lost), or an island left with no
actor, raises `IslandsLost`: the driver replaces the dead actors and starts
every island again from the last recorded generation on new runners, which
gives the same members.
"""

from __future__ import annotations

from typing import Any

import ray
from ray.exceptions import RayError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..evaluation.core import EvaluationError, one_line
from ..evaluation.cpu import CpuLedger
from ..evaluation.pool_cpu import cpu_answers
from ..evaluation.ray_errors import kill_actor
from ..evaluation.ray_pool import RayEvaluator
from ..evaluation.transport import opened
from ..evolution.islands import Plan
from ..evolution.members import Member
from ..evolution.packed_members import pack_members
from .actors import shares
from .epochs import IslandGeneration, IslandsLost
from .runner import IslandRunner, received

__all__ = ["RayIslands"]

LOOKAHEAD = 2  # rounds of epochs (one per island) submitted ahead of the results read
PROBE_SECONDS = 2.0  # how long a restart waits for actors to answer whether they are alive


class RayIslands:
    """The driver's side: a runner per island over its share of the run's pool, epochs ahead."""

    def __init__(self, spec: Any, pool: RayEvaluator, code: bytes | None, run_id: str, fitness_class: type) -> None:
        """Waits for the pool's actors (an island needs its share), then starts the runners."""
        self.pool, self.plan, self.end = pool, Plan.of(spec), spec.generations
        self._fitness_class = fitness_class  # of the members the runners send (`received`)
        self._spec = spec.model_dump(mode="json")
        self._code = None if code is None else ray.put(code)
        self._run_id = run_id
        self._remote = ray.remote(IslandRunner)
        self.runners: list[Any] = []
        self.owner: dict[int, int] = {}  # actor number -> its island
        self._running: dict[Any, int] = {}  # epoch log ref -> island
        self._begun = False
        self._cpu = CpuLedger()  # each runner's ("island <i>") and actor's ("actor-<n>")
        self._start_runners()

    def _start_runners(self) -> None:
        """A runner per island, on the node of its share of the (ready) actors."""
        self.pool.wait_until_ready()
        slots = self.pool.slots()
        nodes = [node for _, node in ray.get([setup for _, _, setup in slots])]
        node_of = {slot[1]: node for slot, node in zip(slots, nodes)}
        self.owner, self.runners, setups = {}, [], []
        for island, share in enumerate(shares(slots, nodes, self.plan.count)):
            self.owner.update((number, island) for _, number, _ in share)
            here = NodeAffinitySchedulingStrategy(node_of[share[0][1]], soft=True) if share else "SPREAD"
            runner = self._remote.options(num_cpus=0, max_restarts=0, scheduling_strategy=here).remote()
            setups.append(runner.setup.remote(self._spec, self._code, self._run_id, share, self.pool.max_retries))
            self.runners.append(runner)
        try:
            ray.get(setups)
        except RayTaskError as error:
            self.close()
            raise error.cause from None
        self._read_cpu()  # the runners' (and new actors') starting points

    def begin(self, homes: list[list[Member]], first: int, pools: list[list[Member]]) -> None:
        if self._begun:  # a restart: fresh runners over live actors, nothing of the old queued epochs
            self._cpu.forget("island ")
            for runner in self.runners:
                kill_actor(runner)
            self._replace_dead_actors()
            self._start_runners()
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
            log, population = runner.run_epoch.options(num_returns=2).remote(island, first, last, migrate, *inputs)
            self._running[log] = island
            leaving.append(population)
        if self.plan.keeps_pools_after(last):
            self._chosen = {g: refs for g, refs in self._chosen.items() if g >= self.plan.emigration(last)}
            self._chosen[last] = leaving
        self._leaving, self._first, self._migrate, self._homes_sent = leaving, last + 1, True, True

    def busy(self) -> bool:
        return bool(self._running) or self._first <= self.end

    def results(self, timeout: float) -> list[tuple[int, list[IslandGeneration]]]:
        while self._first <= self.end and len(self._running) < LOOKAHEAD * self.plan.count:
            self._submit_round()
        refs = list(self._running)
        ready, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        finished, values = [], _values(ready)
        for ref in ready:
            island = self._running.pop(ref)
            try:
                sent, lost, cpu = opened(values[ref] if ref in values else ray.get(ref))
            except RayTaskError as error:  # the island's own code raised (a task error, a broken spec)
                cause = error.cause
                if isinstance(cause, (RayError, IslandsLost)):  # a source's runner, or its own actors, lost
                    raise IslandsLost(f"island {island}: {one_line(cause)}") from None
                raise (cause if isinstance(cause, EvaluationError) else EvaluationError(
                    f"island {island}: {one_line(cause)}")) from cause
            except RayError as error:  # the runner died (its node was lost)
                raise IslandsLost(f"island {island}'s runner: {one_line(error)}") from None
            self._replace(island, lost)
            self._cpu.count(f"island {island}", cpu)
            finished.append((island, received(sent, self._fitness_class)))
        return finished

    def _replace(self, island: int, lost: list[tuple[int, str]]) -> None:
        """Replace the actors `island`'s runner found dead, and hand it their successors."""
        for number, cause in lost:
            self.pool.replace(number, cause)
            self.owner.pop(number, None)
        successors = [slot for slot in self.pool.slots() if slot[1] not in self.owner]
        self.owner.update((number, island) for _, number, _ in successors)
        if successors:
            self.runners[island].adopt.remote(successors)

    def _replace_dead_actors(self) -> None:
        """Replace the pool's actors that are dead (a lost runner cannot say which of its own died)."""
        probes = {handle.__ray_ready__.remote(): number for handle, number, _ in self.pool.slots()}
        answered, _ = ray.wait(list(probes), num_returns=len(probes), timeout=PROBE_SECONDS)
        for ref in answered:  # a busy actor answers late, after its chunks: it is alive
            try:
                ray.get(ref)
            except RayError as error:
                self.pool.replace(probes[ref], one_line(error))

    def cpu_spent(self) -> dict[str, float]:
        """CPU seconds each runner ("island <i>") and actor ("actor-<n>") spent since it was first
        heard of (`evaluation/cpu.py`); one that does not answer in time counts until its last answer."""
        self._read_cpu(runners=False)  # a runner's comes with each epoch (one may run on after a stop)
        return dict(self._cpu.spent)

    def _read_cpu(self, runners: bool = True) -> None:
        asked = {runner.cpu.remote(): f"island {i}" for i, runner in enumerate(self.runners)} if runners else {}
        cpu_answers({**asked, **self.pool.ask_cpu()}, self._cpu)

    def close(self) -> None:
        """Kill the runners (a stop discards the epochs they were running); the pool is the run's."""
        for handle in self.runners:
            kill_actor(handle)
        self.runners = []
        self._running.clear()


def _values(refs: list[Any]) -> dict[Any, Any]:
    """The values of `refs` in one `ray.get` (a call costs the driver ~0.1 ms); none where one
    of them raised, for the caller to get each alone and see which."""
    try:
        return dict(zip(refs, ray.get(refs)))
    except RayError:
        return {}
