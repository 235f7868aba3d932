"""Variation: DEAP's `varOr` shape over a genome kind, one child per draw.

Each child is a crossover (probability `cxpb`), a mutation (`mutpb`) or a
copy of one parent; parents come from a selection function. All draws come
from one generator in a fixed order, so a generation's children replay
exactly from `(seed, generation)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from .kind import GenomeKind

__all__ = ["Child", "Unfinished", "finish_all", "var_or"]

# select(k, rng) -> k indices into the parents' genomes (a list, or an array of ints)
Select = Callable[[int, np.random.Generator], Sequence[int]]


class Unfinished(NamedTuple):
    """A child's genome before the kind's `finish` (`Finishing`): what the member holds between
    breeding and scoring, which finishes it (`finish_all`), on the workers where they can."""

    genome: Any
    parent: Any  # the mutated parent; None after crossover
    finish: Callable[[Any, Any], Any]


def finish_all(genomes: list[Any], run: Callable[[Callable, list[tuple]], list[Any]] | None = None) -> list[Any]:
    """`genomes` (the same list if none is `Unfinished`), with every `Unfinished` one finished;
    `run(fn, args)` applies `fn` to each args tuple (an evaluator's `map_pure`, across its
    workers), by default here."""
    at = [i for i, g in enumerate(genomes) if isinstance(g, Unfinished)]
    if not at:
        return genomes
    finish = genomes[at[0]].finish
    args = [(genomes[i].genome, genomes[i].parent) for i in at]
    done = run(finish, args) if run is not None else [finish(*a) for a in args]
    finished = list(genomes)
    for i, genome in zip(at, done, strict=True):
        finished[i] = genome
    return finished


@dataclass
class Child:
    genome: Any
    parents: list[int]  # indices into the genomes handed to var_or
    origin: str  # "crossover", "mutation" or "reproduction"


def var_or(kind: GenomeKind, genomes: Sequence[Any], select: Select, count: int, cxpb: float, mutpb: float,
           rng: np.random.Generator, repair: bool = True, parents_first: bool = False,
           finish_later: bool = False) -> list[Child]:
    """`count` children of `genomes`; each repaired unless the kind's operator for its origin repairs already.
    `finish_later`, for a kind with `finishing`: children the kind would finish (a mutant, a child
    it repairs) come `Unfinished`, the same draws made; the scorer finishes them (`finish_all`).

    Draw order: per child, its origin, its parents, its variation; or with `parents_first`, every
    child's origin, then all their parents in one `select` call, then each child's variation. One
    selection call a batch is what a steady-state driver can afford on many workers; a batch of
    one child draws the same either way."""
    if parents_first:
        origins = rng.random(count).tolist()
        take = iter(select(sum(2 if d < cxpb else 1 for d in origins), rng)).__next__
        draw, one = iter(origins).__next__, take

        def two() -> tuple[int, int]:
            return take(), take()
    else:
        draw = rng.random

        def one() -> int:
            return select(1, rng)[0]

        def two() -> Sequence[int]:
            return select(2, rng)
    later = kind.finishing if finish_later else None
    children = []
    for _ in range(count):
        origin = draw()
        if origin < cxpb:
            a, b = two()
            a, b = int(a), int(b)
            child = Child(kind.crossover(genomes[a], genomes[b], rng), [a, b], "crossover")
        elif origin < cxpb + mutpb:
            a = int(one())
            mutant = (later or kind).mutate(genomes[a], rng)  # `later`: the kind's mutation before its finish
            child = Child(Unfinished(mutant, genomes[a], later.finish) if later else mutant, [a], "mutation")
        else:
            a = int(one())
            child = Child(kind.copy(genomes[a]), [a], "reproduction")
        if repair and child.origin not in kind.repaired_origins:
            child.genome = Unfinished(child.genome, None, later.finish) if later is not None \
                else kind.repair(child.genome, rng)
        children.append(child)
    return children
