"""NSGA-III (`population.algorithm = "nsga3"`): generational, its survivors chosen by DEAP's
`selNSGA3` on reference points fixed for the run.

Everything but survival is `Generational`'s (uniform parents, as for NSGA-II).
The reference points (`operators.survival.reference_points`: as many as fit the
population size) are recorded in the state's `extra` (`"reference_points"`),
so every checkpoint holds them and a resumed run niches on the same points even
if the rule that chose them changes. DEAP's niching shuffles with numpy's
global generator: each generation seeds it from `(seed, generation, stream 4)`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from operators.survival import nsga3, reference_points

from .algorithms import Context, register
from .generational import Generational
from .members import Member
from .state import State

__all__ = ["NSGA3", "niching_seed"]

_NICHING_STREAM = 4  # variation is stream 1, migration 3


def niching_seed(seed: int, generation: int) -> int:
    """The numpy seed of generation `generation`'s niching draws."""
    return int(np.random.SeedSequence([seed, generation, _NICHING_STREAM]).generate_state(1)[0])


@register("nsga3")
class NSGA3(Generational):
    """One population; survivors by non-dominated fronts, then niching on reference points."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.settings = context.spec.population
        self.points = reference_points(len(context.objectives.order), self.settings.size)
        self._generation = 0

    def survivors(self, previous: list[Member], offspring: list[Member]) -> list[Member]:
        return nsga3(previous, offspring, self.settings.size, points=self.points,
                     seed=niching_seed(self.context.spec.seed, self._generation))

    def tell(self, state: State, scored: list[Member]) -> State:
        self.points = state.extra.get("reference_points", self.points)  # a resumed run's own
        self._generation = state.generation + 1
        told = super().tell(state, scored)
        return replace(told, extra={**told.extra, "reference_points": self.points})
