"""Migration between islands: who leaves, where they go, whom they replace.

Plain functions over lists of individuals with a DEAP `.fitness`; the
island model calls `migrate` every `interval` generations. By default the
best `migrants` of each island replace the worst of their destination
(Cantú-Paz's "best replace worst"), which spreads good building blocks
while each island keeps most of its own population.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .selection import best_first

__all__ = ["TOPOLOGIES", "destinations", "emigrants", "migrate", "place"]

TOPOLOGIES = ("ring", "random", "full")


def emigrants(population: Sequence[Any], count: int) -> list[Any]:
    """The best `count` members (copies go; the originals stay home)."""
    return best_first(population)[:count]


def destinations(topology: str, islands: int, rng: np.random.Generator) -> list[list[int]]:
    """For each island, the islands its emigrants go to."""
    if islands < 2:
        return [[] for _ in range(islands)]
    if topology == "ring":
        return [[(i + 1) % islands] for i in range(islands)]
    if topology == "full":
        return [[j for j in range(islands) if j != i] for i in range(islands)]
    if topology == "random":  # one other island each, drawn from the migration's own rng
        return [[int((i + 1 + rng.integers(islands - 1)) % islands)] for i in range(islands)]
    raise ValueError(f"unknown topology {topology!r}; valid: {', '.join(TOPOLOGIES)}")


def place(population: Sequence[Any], immigrants: Sequence[Any]) -> list[Any]:
    """`population` with its worst members replaced by the immigrants (the best one always stays)."""
    room = min(len(immigrants), len(population) - 1)
    if room <= 0:
        return list(population)
    kept = best_first(population)[: len(population) - room]
    return kept + list(immigrants[:room])


def migrate(populations: Sequence[Sequence[Any]], count: int, topology: str,
            rng: np.random.Generator) -> list[list[Any]]:
    """Every island sends its best `count` along the topology; arrivals replace the worst."""
    routes = destinations(topology, len(populations), rng)
    leaving = [emigrants(p, count) for p in populations]
    arriving: list[list[Any]] = [[] for _ in populations]
    for source, targets in enumerate(routes):
        for target in targets:
            arriving[target].extend(leaving[source])
    return [place(p, arriving[i]) for i, p in enumerate(populations)]
