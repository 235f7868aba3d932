"""How island members travel between runners and the driver: their genomes packed, one list per
column and per field.

Ray pickling each member (its genome array among them) instead cost about
13 ms for an epoch of 640 members on a quiet machine, in the runner between
two epochs, and as much again in the driver (benchmarks/README.md, "An
epoch's boundary, and island members packed").
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields, replace
from functools import cache
from typing import Sequence

from ..evaluation.transport import pack, unpack
from ..evolution.members import Member

__all__ = ["member_fields", "pack_members", "unpack_members"]


def pack_members(members: Sequence[Member]) -> list:
    """A compact form of members: their DEAP fitness as its weighted values only."""
    names, fields = list(members[0].columns) if members else [], member_fields()
    if any(list(m.columns) != names for m in members):  # columns that differ: each member as it is
        return ["members", [replace(m, fitness=None) for m in members]]
    columns = [[m.columns[name] for m in members] for name in names]
    return ["packed", pack([m.genome for m in members]), names, columns,
            [[getattr(m, f) for m in members] for f in fields], [getattr(m.fitness, "wvalues", None) for m in members]]


def unpack_members(packed: list, fitness_class: type | None = None) -> list[Member]:
    """The members `pack_members` was given (equal fields, genomes and column values); with
    `fitness_class`, each DEAP fitness from the weighted values it was sent with (the same as
    `Objectives.fitness` of its columns made where it was scored, at a fraction of the cost), else
    none (as for members sent whole), for the receiver to rebuild from the columns."""
    if packed[0] == "members":
        return packed[1]
    _, genomes, names, columns, values, wvalues = packed
    own = unpack(genomes)
    if genomes[0] != "list":  # copies, not rows of one buffer that a member kept long would keep whole
        own = [genome.copy() for genome in own]
    fields = member_fields()
    members = [Member(genome=genome, columns={name: column[i] for name, column in zip(names, columns)},
                      **dict(zip(fields, row))) for i, (genome, row) in enumerate(zip(own, zip(*values)))]
    if fitness_class is not None:
        for m, weighted in zip(members, wvalues):
            if weighted is not None:
                m.fitness = object.__new__(fitness_class)
                m.fitness.wvalues = weighted
    return members


@cache
def member_fields() -> tuple[str, ...]:
    """A member's fields that travel as lists: all but its genome, columns and DEAP fitness."""
    return tuple(f.name for f in dataclass_fields(Member) if f.name not in ("genome", "columns", "fitness"))
