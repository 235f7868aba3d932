"""How a chunk of genomes travels to an actor: as few, small buffers as possible.

Ray inlines small arguments (under ~100 KB) in the call itself and sends bigger
ones through the object store, which costs milliseconds per call. So a chunk of
equal-shape arrays travels as one stacked buffer, and bool arrays (bitstring
genomes) as packed bits, 8 times smaller: a list of bytes, ints and strings.
Anything else travels as a list, pickled.
`unpack(pack(genomes))` gives back equal genomes, as a list. Members travel
on the same packing (`evolution/packed_members.py`); this module knows chunks only.

A chunk's call and its reply each travel as one `sealed` bytes object: Ray
serialises every argument and every value on its own, through a Python hook
per object, and one call of three arguments with a reply of a few arrays cost
its caller ~195 us of the calling thread against ~147 us sealed, and ~405 us
of the process against ~326 (`benchmarks/bench_chunk_call.py`, 2-core VM).
"""

from __future__ import annotations

import pickle
from typing import Any, Sequence

import numpy as np


def pack(genomes: Sequence[Any]) -> tuple | list:
    """A compact, picklable form of a chunk of genomes (checked and joined by C loops: the log's
    writer process is sent every generation's genomes, at ~1 µs a genome for `np.stack`)."""
    first = genomes[0] if len(genomes) else None
    if type(first) is not np.ndarray or first.dtype.kind not in "biufc" or not first.ndim or \
            not first.dtype.isnative or set(map(type, genomes)) != {np.ndarray} or len(set(map(len, genomes))) != 1:
        return ("list", list(genomes))  # objects, records, 0-d arrays, subclasses, other byte orders: as they are
    try:  # one shape and type: equal lengths, and the join refuses other dimensions and any cast
        stacked = np.concatenate(genomes, dtype=first.dtype, casting="no").reshape(len(genomes), *first.shape)
    except (TypeError, ValueError):
        return ("list", list(genomes))
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


def sealed(value: Any) -> bytes:
    """`value` as one bytes object for a Ray call (`opened` gives it back): the C pickler, or
    Ray's cloudpickle for what that refuses (a lambda, a function or class made in a function)."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError):
        from ray import cloudpickle

        return cloudpickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def opened(blob: bytes) -> Any:
    """What `sealed` was given."""
    return pickle.loads(blob)
