"""MAP-Elites (`population.algorithm = "map-elites"`, with an `[archive]` section): a grid
archive over behaviour descriptors, each cell keeping the fittest individual that fell in it.

Generation 0 scores `population.size` random genomes; each later generation
breeds `population.offspring` children from elites drawn uniformly (DEAP's
`varOr` over the genome kind's operators) and places each scored child: into
its cell if the cell is empty or the child is fitter than the cell's elite
(a tie keeps the elite). The archive is the state's population (the elites,
by cell), so population/ logs it each generation; the state's `extra` holds it
as plain data too (`"elites"`: [cell, id] pairs, and the `"grid"`), which
every checkpoint records and resume reads back; every scored individual's
flat cell index is logged in its `cell` column.
Generation rows get `qd_score` (the sum over elites of their fitness above a
floor fixed for the run) and `coverage` (the share of cells filled). Elites
keep the figures they were placed with: sampled fitness is not re-scored.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..spec_archive import archive_ranges
from .algorithms import Context, register
from .generational import Generational, first_population
from .members import Member, viable
from .state import State

__all__ = ["MapElites"]


@register("map-elites")
class MapElites(Generational):
    def __init__(self, context: Context) -> None:
        archive = context.spec.archive
        if archive is None or context.task is None:
            raise ValueError("population.algorithm: map-elites needs an [archive] section")
        self.context = context
        self.settings = context.spec.population
        self.names = list(archive.descriptors)
        self.bins = list(archive.bins)
        self.ranges = archive_ranges(context.spec, context.task)
        self.cells = math.prod(self.bins)

    def cell_of(self, member: Member) -> int | None:
        """The flat (row-major) index of the member's cell; None if a descriptor is not a number."""
        index = []
        for name, bins, (low, high) in zip(self.names, self.bins, self.ranges):
            value = member.columns.get(name)
            if value is None or not math.isfinite(float(value)):
                return None
            index.append(min(bins - 1, max(0, int((float(value) - low) / (high - low) * bins))))
        return int(np.ravel_multi_index(index, self.bins))

    def ask(self, state: State, rng: np.random.Generator) -> list[Member]:
        if state.generation < 0:
            return first_population(self.context, rng, self.settings.size)
        return self.breed(state.populations[0], state.generation + 1, state.next_id, self.settings.offspring, rng)

    def tell(self, state: State, scored: list[Member]) -> State:
        by_id = {m.id: m for m in state.populations[0]}
        archive = {cell: by_id[i] for cell, i in state.extra.get("elites", [])}
        for m in scored:
            cell = self.cell_of(m) if m.error is None else None
            m.columns["cell"] = cell
            if cell is not None and (cell not in archive or m.fitness > archive[cell].fitness):
                archive[cell] = m
        cells = sorted(archive)
        elites = [archive[cell] for cell in cells]
        first = state.generation < 0
        population = elites or (scored if first else state.populations[0])
        next_id = max(m.id for m in scored) + 1 if first else state.next_id + len(scored)
        floor = state.extra.get("qd_floor")
        if floor is None:
            floor = self._floor(viable(scored) or scored)
        row = {"qd_score": self._qd_score(elites, floor), "coverage": len(elites) / self.cells}
        grid = {"descriptors": self.names, "bins": self.bins, "ranges": [list(r) for r in self.ranges]}
        placed = [[cell, m.id] for cell, m in zip(cells, elites)]
        return replace(state, generation=state.generation + 1, populations=[population], next_id=next_id,
                       extra={**state.extra, "grid": grid, "elites": placed, "qd_floor": floor, "row": row})

    def _gain(self, value: float, floor: float) -> float:
        return value - floor if self.context.objectives.maximise_primary else floor - value

    def _qd_score(self, elites: list[Member], floor: float) -> float:
        """Sum over the elites of how far their primary fitness is above the floor (never below 0):
        an elite is only ever replaced by a fitter one, so it never decreases."""
        objectives = self.context.objectives
        return math.fsum(max(0.0, self._gain(objectives.primary_value(m), floor)) for m in elites)

    def _floor(self, members: list[Member]) -> float:
        """The fitness QD-score counts from: the worst the objectives' bounds allow (Nim's rates:
        0), else the worst primary value among generation 0's members."""
        objectives = self.context.objectives
        bounds = objectives.bounds
        if objectives.mode == "weighted" and all(n in bounds for n in objectives.weights):
            return math.fsum(min(w * bounds[n][0], w * bounds[n][1]) for n, w in objectives.weights.items())
        if objectives.primary in bounds:
            return float(bounds[objectives.primary][0])
        values = [objectives.primary_value(m) for m in members if m.fitness is not None and m.fitness.valid]
        if not values:
            return 0.0
        return min(values) if objectives.maximise_primary else max(values)
