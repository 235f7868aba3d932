"""Members in a compact form for a pipe or a Ray call: their genomes packed, one list per
column and per field, each DEAP fitness as its weighted values. Islands send their
populations so (`islands/travel.py`), and the log's writer gets the hall of fame so.

Ray pickling each member (its genome array among them) instead cost about
13 ms for an epoch of 640 members on a quiet machine, in the runner between
two epochs, and as much again in the driver (benchmarks/README.md, "An
epoch's boundary, and island members packed"); pickling nine Nim-table
members whole cost 59 µs against 18 packed.
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields, replace
from functools import cache
from operator import attrgetter
from typing import Sequence

from ..evaluation.transport import pack, unpack
from .members import Member

__all__ = ["member_fields", "pack_members", "unpack_members"]


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
