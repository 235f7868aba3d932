"""A pure function's calls cut into shares for a pool's workers (`ProcessEvaluator.map_pure`).

A share travels packed, as a chunk of genomes does (`transport.pack`): its
arguments column by column, each column's equal-shape arrays as one buffer
(bool arrays as bits) and its Nones apart, and the results the same way. For
set cover's repair (200 children of 3,619 lists and their parents a
generation) that is ~0.1 MB each way instead of ~1 MB of arrays pickled one
by one, which cost the driver ~8 ms a generation on this project's 2-core VM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .core import one_line
from .transport import pack, unpack

__all__ = ["Share", "pack_args", "run_share", "split", "unpack_args", "unpack_results"]


@dataclass(frozen=True)
class Share:
    """What a worker runs of a `map_pure` call: its `key`-th share."""
    key: int


def split(args: list[tuple], parts: int) -> list[list[tuple]]:
    """`args` in at most `parts` consecutive shares of near-equal length."""
    size = -(-len(args) // parts)
    return [args[i:i + size] for i in range(0, len(args), size)]


def pack_args(args: Sequence[tuple]) -> tuple[int, list[tuple[list[int] | None, Any]]]:
    """`args` column by column: each column's values that are not None, packed, and where some
    are None the places of the others."""
    columns = []
    for column in zip(*args):
        present = [i for i, value in enumerate(column) if value is not None]
        columns.append((present if len(present) < len(column) else None, pack([column[i] for i in present])))
    return len(args), columns


def unpack_args(count: int, columns: list[tuple[list[int] | None, Any]]) -> list[tuple]:
    """The argument tuples `pack_args` was given."""
    unpacked = []
    for present, packed in columns:
        values = unpack(packed)
        if present is not None:
            column: list[Any] = [None] * count
            for i, value in zip(present, values):
                column[i] = value
            values = column
        unpacked.append(values)
    return list(zip(*unpacked)) if unpacked else [()] * count


def unpack_results(packed: Any) -> list[Any]:
    """A share's results as the driver keeps them: arrays each their own (unpacked rows share one
    buffer, which one surviving child would keep alive whole)."""
    return [value.copy() if hasattr(value, "copy") and getattr(value, "base", None) is not None else value
            for value in unpack(packed)]


def run_share(helpers: tuple[Callable[..., Any], ...], key: int, helper: int, packed: tuple) -> tuple:
    """A worker's answer to its share: ("mapped", key, the results packed), or ("error", key, why),
    on which the driver runs the share itself (and raises the error there)."""
    try:
        return "mapped", key, pack([helpers[helper](*a) for a in unpack_args(*packed)])
    except Exception as error:  # noqa: BLE001 - said by the driver, which runs the share again
        return "error", key, one_line(error)
