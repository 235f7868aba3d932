"""The evolution loop: vary, evaluate, select, log, checkpoint; and resume.

Every random choice of generation g comes from SeedSequence([seed, g, ...]):
variation from one stream, each evaluation from its own seed. Nothing
depends on the wall clock, the workers or the chunking, so a run resumed
from its last complete generation writes exactly the log an uninterrupted
run would have written.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np
import pyarrow as pa
from deap import tools

from .evaluation import Evaluator, LocalEvaluator
from .kinds import GenomeKind
from .members import Member, Objectives, jsonable, scalar
from .rundir import RunDir
from .sampling import NoiseControl
from .spec import RunSpec

__all__ = ["Evolution", "Member", "Objectives", "State"]

_VARIATION_STREAM = 1


@dataclass
class State:
    """What a generation leaves behind for the next one (and for resume)."""

    generation: int
    population: list[Member]
    hall_of_fame: list[Member]
    next_id: int
    evaluations: int
    best_primary: float | None
    stagnant: int
    elapsed: float
    generation_rows: list[dict[str, Any]] = field(default_factory=list)


class Evolution:
    """Runs one spec to completion on an evaluator, logging into a run directory."""

    def __init__(self, spec: RunSpec, rundir: RunDir, evaluator: Evaluator, kind: GenomeKind,
                 objectives: Objectives, run_id: str, noise: NoiseControl,
                 on_generation: Callable[[dict[str, Any]], bool | None] | None = None) -> None:
        self.spec = spec
        self.noise = noise
        self.rundir = rundir
        self.evaluator = evaluator
        self.kind = kind
        self.objectives = objectives
        self.run_id = run_id
        self.on_generation = on_generation or (lambda row: None)
        self.stop_requested = False  # set when on_generation returns True
        self.hof_size = 10
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-writer")
        self._pending: Future | None = None

    # -- randomness ---------------------------------------------------------
    def _variation_rng(self, generation: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence([self.spec.seed, generation, _VARIATION_STREAM]))

    # -- evaluation ---------------------------------------------------------
    def _evaluate(self, generation: int, members: list[Member]) -> int:
        seeds = self.noise.seeds(generation, len(members))
        result = self.evaluator.evaluate([self.kind.task_genome(m.genome) for m in members], seeds)
        for i, m in enumerate(members):
            fresh = {name: scalar(values[i]) for name, values in result.columns.items()}
            m.columns = self.noise.pool(m.columns, fresh) if m.columns else fresh
            m.eval_seconds = float(result.eval_seconds[i])
            m.worker = str(result.worker[i])
            m.fitness = self.objectives.fitness_class(self.objectives.values(m.columns))
        return int(result.failures)

    # -- selection and variation -------------------------------------------
    def _pick_parents(self, population: list[Member], ranks: np.ndarray, k: int,
                      rng: np.random.Generator) -> list[Member]:
        """Tournaments drawn from the generation's rng (DEAP's use the global `random`);
        uniform picks for NSGA-II, whose pressure comes from survivor selection.
        A tournament's winner is its fittest entrant, the first one drawn among equals."""
        if self.spec.population.algorithm == "nsga2":
            return [population[i] for i in rng.integers(len(population), size=k)]
        entrants = rng.integers(len(population), size=(k, self.spec.population.tournament))
        winners = entrants[np.arange(k), ranks[entrants].argmin(axis=1)]
        return [population[i] for i in winners]

    @staticmethod
    def _tournament_ranks(population: list[Member]) -> np.ndarray:
        """Dense ranks by fitness, 0 the fittest, equal fitness equal rank (one sort a
        generation instead of a Python max over DEAP fitnesses per tournament)."""
        order = sorted(range(len(population)), key=lambda i: population[i].fitness, reverse=True)
        ranks = np.zeros(len(population), dtype=np.int64)
        for previous, current in zip(order, order[1:]):
            same = population[current].fitness == population[previous].fitness
            ranks[current] = ranks[previous] + (0 if same else 1)
        return ranks

    def _offspring(self, generation: int, population: list[Member], next_id: int) -> list[Member]:
        rng = self._variation_rng(generation)
        ops = self.spec.operators
        ranks = self._tournament_ranks(population) if self.spec.population.algorithm != "nsga2" else np.zeros(0)
        children = []
        for i in range(self.spec.population.offspring):
            draw = rng.random()
            if draw < ops.crossover_rate:
                a, b = self._pick_parents(population, ranks, 2, rng)
                genome = self.kind.crossover(a.genome, b.genome, rng)
                parents, origin = [a.id, b.id], "crossover"
            elif draw < ops.crossover_rate + ops.mutation_rate:
                (a,) = self._pick_parents(population, ranks, 1, rng)
                genome = self.kind.mutate(a.genome, rng)
                parents, origin = [a.id], "mutation"
            else:
                (a,) = self._pick_parents(population, ranks, 1, rng)
                genome = self.kind.copy(a.genome)
                parents, origin = [a.id], "reproduction"
            if ops.repair and origin not in self.kind.repaired_origins:
                genome = self.kind.repair(genome, rng)
            children.append(Member(next_id + i, generation, genome, parents, origin, {}))
        return children

    def _survivors(self, population: list[Member], offspring: list[Member]) -> list[Member]:
        mu = self.spec.population.size
        algorithm = self.spec.population.algorithm
        if algorithm == "nsga2":
            return tools.selNSGA2(population + offspring, mu)
        pool = offspring if algorithm == "mu,lambda" else population + offspring
        ranked = tools.selBest(pool, len(pool))
        if not self.spec.population.distinct:
            return ranked[:mu]
        # Best first, one copy of each genome; copies only if distinct ones run out
        # (an elitist population of clones stops exploring).
        seen, first, copies = set(), [], []
        for m in ranked:
            key = self.kind.key(m.genome)
            (copies if key in seen else first).append(m)
            seen.add(key)
        return (first + copies)[:mu]

    def _update_hall_of_fame(self, hof: list[Member], candidates: list[Member]) -> list[Member]:
        pool = {m.id: m for m in hof + candidates}.values()
        if self.objectives.mode == "pareto":
            front = tools.sortNondominated(list(pool), len(pool), first_front_only=True)[0]
            return sorted(front, key=lambda m: m.id)[: self.hof_size * 10]
        return sorted(pool, key=lambda m: (m.fitness, -m.id), reverse=True)[: self.hof_size]

    # -- the loop -----------------------------------------------------------
    def start(self) -> State:
        rng = self._variation_rng(0)
        genomes = self.kind.init(self.spec.population.size, rng)
        if self.spec.operators.repair:
            genomes = [self.kind.repair(g, rng) for g in genomes]
        population = [Member(i, 0, g, [], "init", {}) for i, g in enumerate(genomes)]
        return self._finish_generation(0, population, population, None, started=time.perf_counter(), elapsed=0.0)

    def step(self, state: State) -> State:
        started = time.perf_counter()
        generation = state.generation + 1
        offspring = self._offspring(generation, state.population, state.next_id)
        previous = state.population
        if self.noise.reevaluate:  # survivors play again beside the offspring; their counts pool
            previous = [replace(m, columns=dict(m.columns), fitness=None, selected=False) for m in previous]
            offspring = offspring + previous
        return self._finish_generation(generation, offspring, previous, state, started, state.elapsed)

    def _finish_generation(self, generation: int, evaluated: list[Member], previous: list[Member],
                           state: State | None, started: float, elapsed: float) -> State:
        failures = self._evaluate(generation, evaluated)
        if state is None:
            population = evaluated
        else:
            offspring = [m for m in evaluated if m.generation == generation]
            population = self._survivors(previous, offspring)
        chosen = {m.id for m in population}
        for m in evaluated:
            m.selected = m.id in chosen
        hof = self._update_hall_of_fame([] if state is None else state.hall_of_fame, evaluated)
        if self.objectives.mode == "pareto":  # no single best: follow the primary objective
            values = [self.objectives.primary_value(m) for m in population]
            best_primary = max(values) if self.objectives.maximise_primary else min(values)
        else:
            best_primary = self.objectives.primary_value(max(population, key=lambda m: m.fitness))
        if state is None or state.best_primary is None or self.objectives.better(best_primary, state.best_primary):
            stagnant = 0
            record = best_primary
        else:
            stagnant = state.stagnant + 1
            record = state.best_primary
        evaluations = (0 if state is None else state.evaluations) + len(evaluated)
        # wall_seconds counts all of the generation's work: the statistics, the
        # table to write, and waiting for the previous generation's files.
        row = self._generation_row(generation, population, evaluations, 0.0, 0.0, failures)
        table = self._individuals_table(generation, evaluated)
        self.flush()
        seconds = time.perf_counter() - started
        row.update(wall_seconds=seconds, elapsed_seconds=elapsed + seconds)
        rows = ([] if state is None else state.generation_rows) + [row]
        next_id = max(m.id for m in evaluated) + 1 if state is None else state.next_id + self.spec.population.offspring
        new_state = State(generation, population, hof, next_id, evaluations, record, stagnant,
                          elapsed + seconds, rows)
        self._commit(new_state, table)
        if self.on_generation(dict(row)) is True:
            self.stop_requested = True
        return new_state

    def should_stop(self, state: State) -> str | None:
        stop = self.spec.stop
        if state.generation >= self.spec.generations:
            return "generations"
        if stop.target is not None and state.best_primary is not None:
            reached = state.best_primary >= stop.target if self.objectives.maximise_primary else state.best_primary <= stop.target
            if reached:
                return "target"
        if stop.stagnation is not None and state.stagnant >= stop.stagnation:
            return "stagnation"
        if self.stop_requested:
            return "callback"
        return None

    # -- logging ------------------------------------------------------------
    def _generation_row(self, generation, population, evaluations, seconds, elapsed, failures) -> dict[str, Any]:
        row: dict[str, Any] = {
            "generation": generation,
            "evaluations": evaluations,
            "wall_seconds": seconds,
            "elapsed_seconds": elapsed,
            "worker_failures": failures,
        }
        metrics = list(self.objectives.names) + (["fitness"] if self.objectives.mode == "weighted" else [])
        for name in metrics:
            values = np.asarray([m.fitness.values[0] if name == "fitness" else float(m.columns[name])
                                 for m in population])
            maximise = name == "fitness" or self.objectives.directions[name] > 0
            row[f"best_{name}"] = float(values.max() if maximise else values.min())
            row[f"mean_{name}"] = float(values.mean())
            row[f"std_{name}"] = float(values.std())
        row["diversity"] = float(self.kind.diversity([m.genome for m in population]))
        return row

    def _individuals_table(self, generation: int, members: list[Member]) -> pa.Table:
        columns: dict[str, Any] = {
            "run_id": pa.array([self.run_id] * len(members), pa.string()),
            "generation": pa.array([generation] * len(members), pa.int64()),
            "id": pa.array([m.id for m in members], pa.int64()),
            "born": pa.array([m.generation for m in members], pa.int64()),
            "parents": pa.array([m.parents for m in members], pa.list_(pa.int64())),
            "origin": pa.array([m.origin for m in members], pa.string()),
            "genome": self.kind.record_array([m.genome for m in members]),
            "selected": pa.array([m.selected for m in members], pa.bool_()),
        }
        if self.objectives.mode == "weighted":
            columns["fitness"] = pa.array([m.fitness.values[0] for m in members], pa.float64())
        for name in members[0].columns:
            columns[name] = pa.array([m.columns[name] for m in members])
        columns["eval_seconds"] = pa.array([m.eval_seconds for m in members], pa.float64())
        columns["worker"] = pa.array([m.worker for m in members], pa.string())
        return pa.table(columns)

    def _commit(self, state: State, table: pa.Table) -> None:
        """Write generation g in the background while g+1 is being evaluated.

        Files are built here (the individuals table by the caller, inside the
        generation's timing), written (fsync'd, in commit order) by one writer
        thread; the next commit first waits for this one, so at most one
        generation is in flight and a crash only ever loses that one, which
        resume regenerates identically. The individuals file is the commit
        point: it carries the state and summary row the other files derive from.
        """
        checkpoint = self._checkpoint(state)
        best = self.best_payload(state)
        rows = list(state.generation_rows)

        def write() -> None:
            self.rundir.write_individuals(state.generation, table, {"state": checkpoint, "summary": rows[-1]})
            self.rundir.write_derived(rows, checkpoint, best)

        self.flush()
        self._pending = self._writer.submit(write)

    def _checkpoint(self, state: State) -> dict[str, Any]:
        return {
            "generation": state.generation,
            "next_id": state.next_id,
            "evaluations": state.evaluations,
            "population": [m.id for m in state.population],
            "population_rank": self._ranks(state.population),
            "hall_of_fame": [m.id for m in state.hall_of_fame],
            "best_primary": state.best_primary,
            "stagnant": state.stagnant,
            "elapsed_seconds": state.elapsed,
        }

    def _ranks(self, population: list[Member]) -> list[int]:
        """Each member's rank in its population, 0 = best: by fitness (ties: older id first),
        or for Pareto runs the non-dominated front it is on (0 = the first front)."""
        if self.objectives.mode == "pareto":
            fronts = tools.sortNondominated(population, len(population))
            front_of = {id(m): f for f, front in enumerate(fronts) for m in front}
            return [front_of[id(m)] for m in population]
        order = sorted(range(len(population)), key=lambda i: (population[i].fitness, -population[i].id), reverse=True)
        ranks = [0] * len(population)
        for rank, i in enumerate(order):
            ranks[i] = rank
        return ranks

    def rewrite_derived(self, state: State) -> None:
        """On resume: generations.parquet, checkpoint.json and best.json from the restored state."""
        self.rundir.write_derived(list(state.generation_rows), self._checkpoint(state), self.best_payload(state))

    def flush(self) -> None:
        """Wait until every generation handed to the writer is on disk (re-raising its error)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._writer.shutdown(wait=True)

    def best_payload(self, state: State) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "generation": state.generation,
            "kind": self.kind.name,
            "task": self.spec.task_spec(),
            "primary": self.objectives.primary,
            "hall_of_fame": [
                {
                    "id": m.id,
                    "generation": m.generation,
                    "genome": self.kind.to_record(m.genome),
                    "fitness": list(m.fitness.values),
                    "objectives": {n: jsonable(m.columns[n]) for n in m.columns},
                }
                for m in state.hall_of_fame
            ],
        }

    def write_verdict(self, state: State) -> None:
        """best.json's final form: where fitness was sampled, the hall of fame is scored
        again on `hall_of_fame_games` fresh games per opponent, ranked by that, with 95%
        intervals; the figures selection saw stay beside them."""
        self.flush()
        if not self.noise.active or not state.hall_of_fame:
            return
        members = state.hall_of_fame
        with LocalEvaluator(self.noise.verdict_task_spec(self.spec.task_spec())) as evaluator:
            result = evaluator.evaluate([self.kind.task_genome(m.genome) for m in members],
                                        self.noise.hall_of_fame_seeds(len(members)))
        fresh = []
        for i, m in enumerate(members):
            columns = {name: scalar(values[i]) for name, values in result.columns.items()}
            fresh.append(replace(m, columns=columns, fitness=self.objectives.fitness_class(self.objectives.values(columns))))
        if self.objectives.mode == "pareto":  # the front as the fresh figures draw it
            fresh = sorted(tools.sortNondominated(fresh, len(fresh), first_front_only=True)[0], key=lambda m: m.id)
        else:
            fresh.sort(key=lambda m: (m.fitness, -m.id), reverse=True)
        payload = self.best_payload(replace(state, hall_of_fame=fresh))
        payload["verdict"] = {"games": self.spec.sampling.hall_of_fame_games, "sampled": sorted(self.noise.sampled)}
        selection = {m.id: m.columns for m in members}
        for entry, m in zip(payload["hall_of_fame"], fresh):
            entry["intervals"] = self.noise.intervals(m.columns)
            entry["selection_objectives"] = {n: jsonable(v) for n, v in selection[m.id].items()}
        self.rundir.write_best(payload)

    # -- resume -------------------------------------------------------------
    def restore(self, checkpoint: dict[str, Any], generation_rows: list[dict[str, Any]]) -> State:
        """The state a verified checkpoint names (see verify.py), members read back from the log."""
        generation = int(checkpoint["generation"])
        wanted = set(checkpoint["population"]) | set(checkpoint["hall_of_fame"])
        frame = self.rundir.read_individuals(range(0, generation + 1))
        # A re-evaluated survivor has a row per generation it was scored in: the last one is current.
        frame = frame[frame["id"].isin(wanted)].sort_values("generation", kind="stable").drop_duplicates("id", keep="last")
        skip = {"run_id", "generation", "id", "born", "parents", "origin", "genome", "selected", "fitness",
                "eval_seconds", "worker"}
        members = {}
        for row in frame.to_dict("records"):
            columns = {k: scalar(v) for k, v in row.items() if k not in skip}
            m = Member(int(row["id"]), int(row.get("born", row["generation"])), self.kind.from_record(row["genome"]),
                       [int(p) for p in row["parents"]], row["origin"], columns,
                       float(row["eval_seconds"]), row["worker"], selected=bool(row["selected"]))
            m.fitness = self.objectives.fitness_class(self.objectives.values(columns))
            members[m.id] = m
        missing = wanted - set(members)
        if missing:
            raise ValueError(f"{self.rundir.path}: the log lacks individuals {sorted(missing)[:5]} named by the checkpoint")
        return State(
            generation=generation,
            population=[members[i] for i in checkpoint["population"]],
            hall_of_fame=[members[i] for i in checkpoint["hall_of_fame"]],
            next_id=int(checkpoint["next_id"]),
            evaluations=int(checkpoint["evaluations"]),
            best_primary=checkpoint["best_primary"],
            stagnant=int(checkpoint["stagnant"]),
            elapsed=float(checkpoint["elapsed_seconds"]),
            generation_rows=list(generation_rows),
        )
