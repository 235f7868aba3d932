"""A user's own evolution algorithm: (mu + lambda) that restarts on a plateau.

Named in a spec as `population.algorithm = "restarts:Restarts"`, it is built
as `Restarts(context)` and driven by evo's loop: `ask` gives the individuals
to score, `tell` returns the new state. Scoring, the hall of fame, the logs,
checkpoints and resume are evo's. It uses the project's operators by role.

When the best has not improved for `patience` generations, the generation
scores fresh genomes instead of children, and the best `keep` share of the
population stays beside them. The number of restarts is the algorithm's own
state (`state.extra`), saved with every checkpoint and restored on resume.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from operators import selection, survival
from operators.variation import var_or
from pipeline.evolution import Member, State


class Restarts:
    def __init__(self, context) -> None:
        self.kind = context.kind
        self.population = context.spec.population
        self.operators = context.spec.operators
        options = dict(self.population.options)
        self.patience = int(options.pop("patience", 10))
        self.keep = float(options.pop("keep", 0.25))
        if options or self.patience < 1 or not 0 < self.keep < 1:
            raise ValueError(f"options are patience >= 1 and 0 < keep < 1 (got {dict(self.population.options)})")

    def _fresh(self, count: int, generation: int, first_id: int, rng: np.random.Generator) -> list[Member]:
        genomes = [self.kind.repair(g, rng) for g in self.kind.init(count, rng)]
        return [Member(first_id + i, generation, g, [], "init", {}) for i, g in enumerate(genomes)]

    def _restarting(self, state: State) -> bool:
        return state.stagnant > 0 and state.stagnant % self.patience == 0

    def ask(self, state: State, rng: np.random.Generator) -> list[Member]:
        generation = state.generation + 1
        if state.generation < 0:
            return self._fresh(self.population.size, 0, 0, rng)
        parents = state.populations[0]
        if self._restarting(state):
            kept = max(1, int(self.keep * len(parents)))
            return self._fresh(len(parents) - kept, generation, state.next_id, rng)
        ranks = selection.dense_ranks(parents)
        children = var_or(self.kind, [m.genome for m in parents],
                          lambda k, rng: selection.tournament(ranks, k, self.population.tournament, rng),
                          self.population.offspring, self.operators.crossover_rate, self.operators.mutation_rate, rng)
        return [Member(state.next_id + i, generation, c.genome, [parents[j].id for j in c.parents], c.origin, {})
                for i, c in enumerate(children)]

    def tell(self, state: State, scored: list[Member]) -> State:
        next_id = max(m.id for m in scored) + 1
        if state.generation < 0:
            return replace(state, generation=0, populations=[scored], next_id=next_id, extra={"restarts": 0})
        parents = state.populations[0]
        if self._restarting(state):
            kept = selection.best_first(parents)[: len(parents) - len(scored)]
            extra = {"restarts": state.extra["restarts"] + 1}
            return replace(state, generation=state.generation + 1, populations=[kept + scored], next_id=next_id,
                           extra=extra)
        survivors = survival.plus(parents, scored, self.population.size,
                                  key=lambda m: self.kind.identity(m.genome))
        return replace(state, generation=state.generation + 1, populations=[survivors], next_id=next_id)
