"""What a valid spec asks for that will not happen as written: said, not refused.

Refusing would break old run directories (`execution.steal` was accepted with
every algorithm), and `generations = 0` is a real use (score a population).
`evo run` and `evo resume` print these under their start line; the Python API
gives them as `RunNote` warnings, so a notebook hears them too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from .spec_checks import pareto_survival
from .spec_execution import DEFAULT_IN_FLIGHT, FIXED_IN_FLIGHT
from .spec_islands import GENERATIONAL_ALGORITHMS

if TYPE_CHECKING:
    from .spec import RunSpec

__all__ = ["RunNote", "lexicographic_pareto_note", "resume_notes", "run_notes", "unused_in_flight_note",
           "unused_steal_note", "zero_generations_note"]


class RunNote(UserWarning):
    """A note of the Python API's `run` or `resume`: a key not used, a file repaired."""


def zero_generations_note(generations: int) -> str | None:
    """`generations = 0` only scores the initial population: say so."""
    if generations != 0:
        return None
    return ("generations = 0: only the initial population (generation 0) is made and scored; "
            "no evolution (give --generations N for N generations after it)")


def unused_steal_note(execution: Mapping[str, Any]) -> str | None:
    """`execution.steal` is accepted (old runs keep their specs) but nothing steals work any more:
    each island on Ray sends its chunks to actors of its own (`islands/actors.py`)."""
    if not execution.get("steal"):
        return None
    return ("execution.steal = true is not used here: nothing steals work any more; islands on Ray send their "
            "chunks to actors of their own, sized from the measured evaluation time")


def unused_in_flight_note(execution: Mapping[str, Any], algorithm: Any) -> str | None:
    """`execution.in_flight` bounds the children an asynchronous algorithm has on Ray actors; a
    generational one (its own barrier) and an in-process run (one child at a time) never use it.
    A plug-in algorithm may be asynchronous: not said."""
    in_process = execution.get("workers", 2) == 0
    # the default, or the bound a run recorded before "auto" spells out (FIXED_IN_FLIGHT): nothing asked
    unasked = execution.get("in_flight", DEFAULT_IN_FLIGHT) in (DEFAULT_IN_FLIGHT, FIXED_IN_FLIGHT)
    if unasked or not (in_process or algorithm in GENERATIONAL_ALGORITHMS):
        return None
    why = ("in-process (workers = 0) one child at a time is bred, scored and told" if in_process
           else f"{algorithm} waits for each generation")
    return (f"execution.in_flight = {execution['in_flight']} is not used here: it bounds the children in flight of "
            f"an asynchronous algorithm (steady-state or your own) on Ray workers; {why}")


def lexicographic_pareto_note(mode: Any, algorithm: Any) -> str | None:
    """A run started before `objectives.mode = "pareto"` was refused with a lexicographic algorithm
    (`spec_checks.pareto_survival`) resumes as it began: said, since "pareto" is not what it does."""
    if not isinstance(mode, str) or not isinstance(algorithm, str) or not pareto_survival(mode, algorithm):
        return None
    return (f"objectives.mode = 'pareto' with population.algorithm = {algorithm!r}: this run goes on as it began, its "
            f"survivors chosen lexicographically (a new run with these settings is refused; nsga2 is Pareto)")


def run_notes(spec: RunSpec) -> list[str]:
    """The notes for a new run of a validated `RunSpec`."""
    execution = spec.execution.model_dump()
    notes = [*spec.path_notes, zero_generations_note(spec.generations), unused_steal_note(execution),
             unused_in_flight_note(execution, spec.population.algorithm)]
    return [note for note in notes if note]


def resume_notes(spec: Mapping[str, Any]) -> list[str]:
    """The notes for a resume, from the spec as run.json holds it with the resume's overrides (not
    yet validated: `resume_run` refuses a bad one with its reason)."""

    def section(name: str) -> Mapping[str, Any]:
        return spec.get(name) if isinstance(spec.get(name), dict) else {}

    algorithm = section("population").get("algorithm", "mu+lambda")
    notes = [unused_steal_note(section("execution")),
             unused_in_flight_note(section("execution"), algorithm),
             lexicographic_pareto_note(section("objectives").get("mode"), algorithm)]
    return [note for note in notes if note]
