"""The spec's `[islands]` section (see docs/algorithms.md, "Islands"), kept apart from spec.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from .spec import RunSpec

__all__ = ["ASYNCHRONOUS_ISLAND_ALGORITHMS", "GENERATIONAL_ALGORITHMS", "ISLAND_ALGORITHMS", "Islands", "check_islands",
           "on_runners"]


class Islands(BaseModel):
    """The island model: `count` populations of `population.size` evolve apart; every `interval`
    generations each sends copies of its best `migrants` along the topology, where they replace
    the worst (the best of an island always stays)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as every spec section

    count: int = Field(ge=1, le=1024, description="islands, each of population.size (offspring per island too)")
    interval: int = Field(5, ge=1, le=1_000_000, description="generations between migrations")
    migrants: int = Field(1, ge=0, le=100_000, description="best members each island sends per migration")
    topology: Literal["ring", "random", "full"] = Field(
        "ring", description="ring: to the next island; random: to one other island drawn per migration; full: to all")
    lag: int = Field(0, ge=0, le=1, description=(
        "0: migrants leave from their source's population as it is at the migration, so each island waits "
        "for its sources; 1: from the source's population at the migration before (generation 0 for the "
        "first), so no island waits for another"))


GENERATIONAL_ALGORITHMS = ("mu+lambda", "mu,lambda", "nsga2")  # islands on runner actors, an epoch at a time
ASYNCHRONOUS_ISLAND_ALGORITHMS = ("steady-state",)  # islands in the driver's asynchronous loop
ISLAND_ALGORITHMS = GENERATIONAL_ALGORITHMS + ASYNCHRONOUS_ISLAND_ALGORITHMS


def on_runners(algorithm: str | None, islands: object) -> bool:
    """Whether a run's islands evolve on runner actors (generational islands: they need the
    actors from the start); steady-state islands live in the driver's asynchronous loop."""
    return islands is not None and algorithm not in ASYNCHRONOUS_ISLAND_ALGORITHMS


def check_islands(spec: RunSpec) -> None:
    """What the section cannot check alone (ValueError: RunSpec's validator makes it one line)."""
    islands = spec.islands
    if islands is None:
        return
    if spec.population.algorithm not in ISLAND_ALGORITHMS:
        raise ValueError(f"islands: the island model runs the algorithms {', '.join(ISLAND_ALGORITHMS)}, "
                         f"not population.algorithm = {spec.population.algorithm!r}")
    if islands.lag and spec.population.algorithm in ASYNCHRONOUS_ISLAND_ALGORITHMS:
        raise ValueError("islands.lag: steady-state islands never wait for each other (they all migrate at once, "
                         "in the driver); lag = 1 is for the generational algorithms")
    if spec.population.restart_after is not None:
        raise ValueError("population.restart_after: restarts run in one population, not with [islands]")
    if islands.migrants >= spec.population.size:
        raise ValueError(f"islands.migrants: must be < population.size = {spec.population.size}, as each island "
                         f"keeps its best (got {islands.migrants})")
