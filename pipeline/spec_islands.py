"""The spec's `[islands]` section (see docs/algorithms.md, "Islands"), kept apart from spec.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Mapping

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
    loop: Literal["driver", "own"] | None = Field(None, description=(
        "steady-state islands only: 'driver' (the default) breeds every island in one asynchronous loop in the "
        "driver, all islands migrating at once; 'own': each island runs its own asynchronous loop (on Ray, in "
        "its island runner on its own actors), migrating island to island as generational islands do, so no "
        "process but an island's own is on its evaluations' path. Generational islands always run their own"))


GENERATIONAL_ALGORITHMS = ("mu+lambda", "mu,lambda", "nsga2")  # islands on runner actors, an epoch at a time
ASYNCHRONOUS_ISLAND_ALGORITHMS = ("steady-state",)  # islands in the driver's asynchronous loop, or their own
ISLAND_ALGORITHMS = GENERATIONAL_ALGORITHMS + ASYNCHRONOUS_ISLAND_ALGORITHMS


def on_runners(algorithm: str | None, islands: Any) -> bool:
    """Whether a run's islands evolve on runner actors, each its own loop (they need the actors
    from the start): generational islands, and steady-state islands with `loop = "own"`; other
    steady-state islands live in the driver's asynchronous loop. `islands`: the section, or
    its dict (run.json's)."""
    if islands is None:
        return False
    loop = islands.get("loop") if isinstance(islands, Mapping) else getattr(islands, "loop", None)
    return algorithm not in ASYNCHRONOUS_ISLAND_ALGORITHMS or loop == "own"


def check_islands(spec: RunSpec) -> None:
    """What the section cannot check alone (ValueError: RunSpec's validator makes it one line)."""
    islands = spec.islands
    if islands is None:
        return
    if spec.population.algorithm not in ISLAND_ALGORITHMS:
        raise ValueError(f"islands: the island model runs the algorithms {', '.join(ISLAND_ALGORITHMS)}, "
                         f"not population.algorithm = {spec.population.algorithm!r}")
    steady = spec.population.algorithm in ASYNCHRONOUS_ISLAND_ALGORITHMS
    if islands.lag and steady and islands.loop != "own":
        raise ValueError("islands.lag: steady-state islands in the driver's loop never wait for each other (they all "
                         "migrate at once); lag = 1 is for islands that run their own loop (generational, or "
                         "islands.loop = 'own')")
    if islands.loop == "driver" and not steady:
        raise ValueError(f"islands.loop: 'driver' is for steady-state islands; {spec.population.algorithm} islands "
                         "always run their own loop (leave the key out, or set 'own')")
    if spec.population.restart_after is not None:
        raise ValueError("population.restart_after: restarts run in one population, not with [islands]")
    if islands.migrants >= spec.population.size:
        raise ValueError(f"islands.migrants: must be < population.size = {spec.population.size}, as each island "
                         f"keeps its best (got {islands.migrants})")
