"""How island members travel between runners and the driver: their genomes packed, one list per
column and per field; an island's populations as what changed since the one before.

Ray pickling each member (its genome array among them) instead cost about
13 ms for an epoch of 640 members on a quiet machine, in the runner between
two epochs, and as much again in the driver (benchmarks/README.md, "An
epoch's boundary, and island members packed"). And most of a population
stays from one generation to the next (after the first few, 95% of a
sleepy island's): the driver holds those already, so only the others travel
(`Changes`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields as dataclass_fields, replace
from functools import cache
from operator import attrgetter
from typing import Sequence

from ..evaluation.transport import pack, unpack
from ..evolution.members import Member

__all__ = ["Changes", "member_fields", "pack_members", "unpack_members"]

def pack_members(members: Sequence[Member]) -> list:
    """A compact form of members: their DEAP fitness as its weighted values only."""
    names, fields = list(members[0].columns) if members else [], member_fields()
    if any(list(m.columns) != names for m in members):  # columns that differ: each member as it is
        return ["members", [replace(m, fitness=None) for m in members]]
    columns = [[m.columns[name] for m in members] for name in names]
    values = [list(column) for column in zip(*map(attrgetter(*fields), members))] if members else [[]] * len(fields)
    return ["packed", pack([m.genome for m in members]), names, columns, values,
            [getattr(m.fitness, "wvalues", None) for m in members]]


def unpack_members(packed: list, fitness_class: type | None = None) -> list[Member]:
    """The members `pack_members` was given (equal fields, genomes and column values); with
    `fitness_class`, each DEAP fitness from the weighted values it was sent with (the same as
    `Objectives.fitness` of its columns made where it was scored, at a fraction of the cost), else
    none (as for members sent whole), for the receiver to rebuild from the columns.

    A member is made by filling its `__dict__` (every field is given, so the dataclass's
    `__init__` adds nothing but ~3 µs a member, in the driver, for every island's population
    every generation)."""
    if packed[0] == "members":
        return packed[1]
    _, genomes, names, columns, values, wvalues = packed
    own = unpack(genomes)
    if genomes[0] != "list":  # copies, not rows of one buffer that a member kept long would keep whole
        own = [genome.copy() for genome in own]
    scores = [dict(zip(names, row)) for row in zip(*columns)] if names else [{} for _ in own]
    fitnesses = [None if w is None or fitness_class is None else _fitness(fitness_class, w) for w in wvalues]
    keys, members, new = ("genome", "columns", *member_fields(), "fitness"), [], object.__new__
    for row in zip(own, scores, *values, fitnesses):
        member = new(Member)
        member.__dict__.update(zip(keys, row))
        members.append(member)
    return members


def _fitness(fitness_class: type, weighted: tuple) -> object:
    """A DEAP fitness holding `weighted` (what its `values` setter would store)."""
    fitness = object.__new__(fitness_class)
    fitness.wvalues = weighted
    return fitness


@cache
def member_fields() -> tuple[str, ...]:
    """A member's fields that travel as lists: all but its genome, columns and DEAP fitness."""
    return tuple(f.name for f in dataclass_fields(Member) if f.name not in ("genome", "columns", "fitness"))


@dataclass
class Changes:
    """An island's population as it travels after its first: `held` says, place by place, the
    id of a member of the population before it (which the receiver holds: `against`), or None
    for the next of the `fresh` members (packed)."""

    held: list[int | None]
    fresh: list

    @classmethod
    def of(cls, population: Sequence[Member], before: Sequence[Member]) -> Changes:
        """`population` for a receiver holding `before`: a member of it (the same object) goes as
        its id. A member changed in place would not: no island changes a member it has scored."""
        kept = {id(m) for m in before}
        return cls([m.id if id(m) in kept else None for m in population],
                   pack_members([m for m in population if id(m) not in kept]))

    def against(self, before: Sequence[Member], fitness_class: type) -> list[Member]:
        """The population, from the receiver's own `before` (the same members, by id)."""
        by_id = {m.id: m for m in before}
        fresh = iter(unpack_members(self.fresh, fitness_class))
        return [next(fresh) if held is None else by_id[held] for held in self.held]
