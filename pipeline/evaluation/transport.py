"""How a chunk of genomes travels to an actor: as few, small buffers as possible.

Ray inlines small arguments (under ~100 KB) in the call itself and sends bigger
ones through the object store, which costs milliseconds per call. So a chunk of
equal-shape arrays travels as one stacked buffer, and bool arrays (bitstring
genomes) as packed bits, 8 times smaller. Numeric chunks travel as a list of
bytes, ints and strings, which Ray encodes with msgpack; an ndarray or a tuple
would go through cloudpickle, which cost the driver (or the island dispatcher)
about 30 us a call, 10-13% of its CPU at 64 workers (measured with py-spy,
benchmarks/README.md). Anything else travels as a list, pickled.
`unpack(pack(genomes))` gives back equal genomes, as a list.

Members (an island's scored individuals and populations, between island
runners and the driver) travel the same way: their genomes packed, one list
per column and per field (`pack_members`). Ray pickling each member (its
genome array among them) instead cost about 13 ms for an epoch of 640
members on a quiet machine, in the runner between two epochs, and as much
again in the driver (benchmarks/README.md, "An epoch's boundary, and island
members packed").
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields, replace
from functools import cache
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:  # not imported at run time: the evaluation actors need none of it
    from ..evolution.members import Member


def pack(genomes: Sequence[Any]) -> tuple | list:
    """A compact, picklable form of a chunk of genomes."""
    first = genomes[0] if len(genomes) else None
    if type(first) is not np.ndarray or first.dtype.kind not in "biufc" or not first.ndim or \
            not first.dtype.isnative or not all(type(g) is np.ndarray and g.shape == first.shape and
                                                g.dtype == first.dtype for g in genomes):
        return ("list", list(genomes))  # objects, records, 0-d arrays, subclasses, other byte orders: as they are
    stacked = np.stack(genomes)
    if stacked.dtype == np.bool_:
        flat = stacked.reshape(len(stacked), -1)
        return ["bits", np.packbits(flat, axis=1).tobytes(), flat.shape[1], list(stacked.shape)]
    return ["stack", stacked.tobytes(), stacked.dtype.str, list(stacked.shape)]


def unpack(packed: tuple | list) -> list:
    """The genomes `pack` was given, as a list (arrays come back as rows of one writable buffer)."""
    kind = packed[0]
    if kind == "bits":
        _, data, width, shape = packed
        bits = np.frombuffer(data, dtype=np.uint8).reshape(shape[0], -1)
        flat = np.unpackbits(bits, axis=1, count=width).view(bool)  # 0/1 bytes: a valid bool view
        return list(flat.reshape(shape))
    if kind == "stack":
        _, data, dtype, shape = packed
        return list(np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape).copy())
    return packed[1]


def pack_members(members: Sequence[Member]) -> list:
    """A compact form of members, without their DEAP fitness (rebuilt from the columns on arrival)."""
    names, fields = list(members[0].columns) if members else [], member_fields()
    if any(list(m.columns) != names for m in members):  # columns that differ: each member as it is
        return ["members", [replace(m, fitness=None) for m in members]]
    columns = [[m.columns[name] for m in members] for name in names]
    return ["packed", pack([m.genome for m in members]), names, columns,
            [[getattr(m, f) for m in members] for f in fields]]


def unpack_members(packed: list) -> list[Member]:
    """The members `pack_members` was given (equal fields, genomes and column values)."""
    from ..evolution.members import Member

    if packed[0] == "members":
        return packed[1]
    _, genomes, names, columns, values = packed
    own = unpack(genomes)
    if genomes[0] != "list":  # copies, not rows of one buffer that a member kept long would keep whole
        own = [genome.copy() for genome in own]
    fields = member_fields()
    return [Member(genome=genome, columns={name: column[i] for name, column in zip(names, columns)},
                   **dict(zip(fields, row))) for i, (genome, row) in enumerate(zip(own, zip(*values)))]


@cache
def member_fields() -> tuple[str, ...]:
    """A member's fields that travel as lists: all but its genome, columns and DEAP fitness."""
    from ..evolution.members import Member

    return tuple(f.name for f in dataclass_fields(Member) if f.name not in ("genome", "columns", "fitness"))
