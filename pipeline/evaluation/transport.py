"""How a chunk of genomes travels to an actor: as few, small buffers as possible.

Ray inlines small arguments (under ~100 KB) in the call itself and sends bigger
ones through the object store, which costs milliseconds per call. So a chunk of
equal-shape arrays travels as one stacked array, and bool arrays (bitstring
genomes) as packed bits, 8 times smaller. Anything else travels as a list.
`unpack(pack(genomes))` gives back equal genomes, as a list.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def pack(genomes: Sequence[Any]) -> tuple:
    """A compact, picklable form of a chunk of genomes."""
    first = genomes[0] if len(genomes) else None
    if not isinstance(first, np.ndarray) or not all(
        isinstance(g, np.ndarray) and g.shape == first.shape and g.dtype == first.dtype for g in genomes
    ):
        return ("list", list(genomes))
    stacked = np.stack(genomes)
    if stacked.dtype == np.bool_:
        flat = stacked.reshape(len(stacked), -1)
        return ("bits", np.packbits(flat, axis=1), flat.shape[1], first.shape)
    return ("stack", stacked)


def unpack(packed: tuple) -> list:
    """The genomes `pack` was given, as a list (arrays come back as rows of one buffer)."""
    kind = packed[0]
    if kind == "bits":
        _, bits, width, shape = packed
        flat = np.unpackbits(bits, axis=1, count=width).view(bool)  # 0/1 bytes: a valid bool view
        return list(flat.reshape(len(flat), *shape))
    if kind == "stack":
        return list(packed[1])
    return packed[1]
