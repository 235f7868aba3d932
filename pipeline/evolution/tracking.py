"""The run's bookkeeping after each generation, whatever the algorithm: hall of fame,
best so far, stagnation, evaluations; and the stop rules that read them."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from deap import tools

from operators.selection import oldest_first_ranking

from ..evaluation import EvaluationError
from .members import Member, Objectives, viable
from .state import State

if TYPE_CHECKING:
    from ..spec import RunSpec

__all__ = ["HALL_OF_FAME_SIZE", "GenerationFailed", "Tracker", "check_some_viable"]

HALL_OF_FAME_SIZE = 10


class GenerationFailed(EvaluationError):
    """Every evaluation of a generation failed: the task's `evaluate` is broken, not unlucky."""


def check_some_viable(generation: int, scored: list[Member], count: int | None = None) -> None:
    """Raise `GenerationFailed` if `scored` evaluated members and none is viable (the migrants a
    generation places are copies, not evaluations); `count`: the evaluations, where `scored` holds
    some of them (an island's first member and its hall-of-fame candidates)."""
    evaluated = [m for m in scored if m.origin != "migrant" or m.born < generation]
    if evaluated and not viable(evaluated):
        first = evaluated[0]
        raise GenerationFailed(f"generation {generation}: all {count or len(evaluated)} evaluations failed (individual "
                               f"{first.id}: {first.error}); a task failing for every genome is a bug in its "
                               "evaluate, not bad luck")


class Tracker:
    def __init__(self, spec: RunSpec, objectives: Objectives) -> None:
        self.spec = spec
        self.objectives = objectives
        self.stop_requested = False  # a callback asked to stop after this generation

    def update(self, state: State, scored: list[Member], evaluations: int | None = None) -> State:
        """`state` (as the algorithm left it) with the bookkeeping of a generation that scored `scored`;
        each scored member is marked `selected` if it is in the population now. A generation whose
        every evaluation failed stops the run (`GenerationFailed`). `evaluations`: how many there
        were, where `scored` holds only the `candidates` of them."""
        check_some_viable(state.generation, scored, evaluations)
        population = state.population  # (with islands, a list made per call)
        alive = {m.id for m in population}
        for m in scored:
            m.selected = m.id in alive
        best = self.objectives.best_of(population)
        if state.best_so_far is None or self.objectives.better(best, state.best_so_far):
            best_so_far, stagnant = best, 0
        else:
            best_so_far, stagnant = state.best_so_far, state.stagnant + 1
        return replace(state, hall_of_fame=self._hall_of_fame(state.hall_of_fame, scored),
                       best_so_far=best_so_far, stagnant=stagnant,
                       evaluations=state.evaluations + (len(scored) if evaluations is None else evaluations))

    def candidates(self, generation: int, scored: list[Member]) -> list[Member]:
        """The members of `scored` the hall of fame can take whatever it holds: those an empty one
        takes (the first of a total order; all of the first front), and the viable
        re-scored survivors (their new row replaces the one it holds); and the first member if
        none is viable (what `check_some_viable` names). The hall over the candidates of every
        part of a generation is the hall over all of it: islands send only these."""
        pool = viable(scored)
        if not pool:
            entering: set[int] = set()
        elif self.objectives.mode == "pareto":  # the whole front: the hall keeps its first by id
            entering = {m.id for m in tools.sortNondominated(pool, len(pool), first_front_only=True)[0]}
        else:
            entering = {m.id for m in self._hall_of_fame([], pool)}
        chosen = [m for m in scored if m.id in entering or (m.born < generation and m.viable)]
        return chosen if chosen or not scored else scored[:1]

    def entering(self, held: list[Member], candidates: list[Member]) -> tuple[list[Member], list[Member]]:
        """Those of a part's `candidates` that enter `held`, the hall of that part's own members so
        far, and what it becomes. Where no member is scored twice and the order is total (not
        Pareto), the hall over all parts is the best of their own halls: a member that does not
        enter its part's cannot enter it, so an island sends only these. The first candidate
        goes if none enters (it says whether any was viable: `check_some_viable`)."""
        hall = self._hall_of_fame(held, candidates)
        kept = {m.id for m in hall}
        return [m for m in candidates if m.id in kept] or candidates[:1], hall

    def _hall_of_fame(self, hall: list[Member], candidates: list[Member]) -> list[Member]:
        pool = list({m.id: m for m in hall + viable(candidates)}.values())
        if self.objectives.mode == "pareto":
            front = tools.sortNondominated(pool, len(pool), first_front_only=True)[0]
            return sorted(front, key=lambda m: m.id)[: HALL_OF_FAME_SIZE * 10]
        return oldest_first_ranking(pool)[:HALL_OF_FAME_SIZE]

    def stop_reason(self, state: State) -> str | None:
        """Why the run stops after `state` (None: it goes on)."""
        if state.generation < 0:
            return None
        stop = self.spec.stop
        if state.generation >= self.spec.generations:
            return "generations"
        if stop.target is not None and state.best_so_far is not None:
            reached = state.best_so_far >= stop.target if self.objectives.maximise_primary \
                else state.best_so_far <= stop.target
            if reached:
                return "target"
        if stop.stagnation is not None and state.stagnant >= stop.stagnation:
            return "stagnation"
        if self.stop_requested:
            return "callback"
        return None
