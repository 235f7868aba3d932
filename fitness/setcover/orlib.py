"""OR-Library set-covering files (Beasley's format), read and written.

The format: ``m n`` (rows, columns), then the ``n`` column costs, then for
each row the number of columns covering it followed by those columns
(1-based).  Numbers are separated by any whitespace, so a file may wrap them
over lines at will.  In this package's terms a row is an element and a column
is a list: column ``j`` of the file is list ``j - 1`` and genome bit ``j - 1``.

Reading checks what the format promises and says, in one line, which line of
the file breaks it: wrong counts, a row nobody covers, a column index out of
range, a negative cost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .instance import Instance

__all__ = ["format_orlib", "read_orlib"]

_PER_LINE = 12  # numbers per line when writing, as OR-Library's own files wrap them


class _Numbers:
    """The file's whitespace-separated integers, read in order, each knowing its line."""

    def __init__(self, data: bytes) -> None:
        self.lines = data.splitlines()
        self.tokens: list[bytes] = []
        self.line_of: list[int] = []
        for number, line in enumerate(self.lines, start=1):
            words = line.split()
            self.tokens += words
            self.line_of += [number] * len(words)
        self.position = 0

    def line(self) -> int:
        """The line of the number read last (the file's last line once it has run out)."""
        if self.position == 0:
            return 1
        return self.line_of[min(self.position, len(self.tokens)) - 1]

    def last_line(self) -> int:
        return max(len(self.lines), 1)

    def left(self) -> int:
        return len(self.tokens) - self.position

    def take(self, ends: str) -> int:
        """The next integer; ``ends`` words what was being read if the file runs out."""
        if self.position == len(self.tokens):
            raise ValueError(f"line {self.last_line()}: the file ends {ends}")
        token = self.tokens[self.position]
        self.position += 1
        try:
            return int(token)
        except ValueError:
            shown = token.decode("utf-8", "replace")
            raise ValueError(f"line {self.line()}: {shown!r} is not an integer") from None


def read_orlib(data: bytes) -> tuple[int, list[list[int]], list[int]]:
    """``(rows, lists, costs)`` from the bytes of an OR-Library set-covering file.

    ``lists[j]`` holds the 0-based rows column ``j + 1`` covers, ascending;
    ``costs[j]`` is its cost.  Raises ``ValueError("line L: ...")`` on the
    first thing wrong.  A well-formed file is read with numpy in one pass; a
    file that fails any check is read again number by number, which finds the
    line to name.
    """
    try:
        numbers = np.array(data.split(), dtype=np.int64)
    except (ValueError, OverflowError):
        numbers = None
    parsed = None if numbers is None else _read_fast(numbers)
    return _read_slowly(data) if parsed is None else parsed


def _read_fast(numbers: np.ndarray) -> tuple[int, list[list[int]], list[int]] | None:
    """The file's numbers parsed, or None if anything is off (the slow reader then says what)."""
    if len(numbers) < 2 or numbers[0] < 1 or numbers[1] < 1 or len(numbers) < 2 + numbers[1]:
        return None
    m, n = int(numbers[0]), int(numbers[1])
    costs = numbers[2 : 2 + n]
    if (costs < 0).any():
        return None
    counts, columns, at = np.zeros(m, dtype=np.int64), [], 2 + n
    for row in range(m):
        if at >= len(numbers) or numbers[at] < 1 or at + 1 + numbers[at] > len(numbers):
            return None
        counts[row] = numbers[at]
        listed = numbers[at + 1 : at + 1 + counts[row]]
        if listed.min() < 1 or listed.max() > n or len(np.unique(listed)) != len(listed):
            return None
        columns.append(listed - 1)
        at += 1 + int(counts[row])
    if at != len(numbers):
        return None
    column_of = np.concatenate(columns)
    row_of = np.repeat(np.arange(m), counts)
    order = np.lexsort((row_of, column_of))
    bounds = np.cumsum(np.bincount(column_of, minlength=n))[:-1]
    return m, [rows.tolist() for rows in np.split(row_of[order], bounds)], costs.tolist()


def _read_slowly(data: bytes) -> tuple[int, list[list[int]], list[int]]:
    """The reader that walks number by number, knowing each one's line, to word the first fault."""
    numbers = _Numbers(data)
    if numbers.left() < 2:
        raise ValueError("line 1: the file must start with the number of rows and of columns (m n)")
    m, n = numbers.take("before m n"), numbers.take("before m n")
    if m < 1 or n < 1:
        raise ValueError(f"line {numbers.line()}: rows and columns must be >= 1, got m = {m}, n = {n}")
    costs = []
    for j in range(1, n + 1):
        cost = numbers.take(f"after {j - 1} of the {n} column costs")
        if cost < 0:
            raise ValueError(f"line {numbers.line()}: column {j} costs {cost}; costs must be >= 0")
        costs.append(cost)
    lists: list[list[int]] = [[] for _ in range(n)]
    for row in range(1, m + 1):
        count = numbers.take(f"after {row - 1} of the {m} rows")
        if count < 1:
            raise ValueError(f"line {numbers.line()}: row {row} is covered by {count} columns; "
                             "every row needs at least one")
        seen = set()
        for k in range(count):
            column = numbers.take(f"in row {row}, after {k} of the {count} columns it lists")
            if not 1 <= column <= n:
                raise ValueError(f"line {numbers.line()}: row {row}: column {column} is outside 1..{n}")
            if column in seen:
                raise ValueError(f"line {numbers.line()}: row {row} lists column {column} twice")
            seen.add(column)
            lists[column - 1].append(row - 1)
    if numbers.left():
        extra = numbers.left()
        numbers.position += 1
        raise ValueError(f"line {numbers.line()}: {extra} more number{'s' if extra > 1 else ''} after the "
                         f"last of the {m} rows (do m and the row counts match the file?)")
    return m, lists, costs


def format_orlib(instance: Instance) -> str:
    """The instance as an OR-Library set-covering file; ``read_orlib`` reads it back equal.

    Every element must be covered by some list: the format has no way to say
    that a row is covered by nothing.
    """
    if not instance.coverable.all():
        missing = int(next(e for e in range(instance.N) if not instance.coverable[e]))
        raise ValueError(f"element {missing} is in no list; an OR-Library file cannot hold it")
    out = [f" {instance.N} {instance.n_lists}"]
    out += _wrapped(instance.costs)
    for holders in instance.incidence_t:
        columns = (holders.nonzero()[0] + 1).tolist()
        out.append(f" {len(columns)}")
        out += _wrapped(columns)
    return "\n".join(out) + "\n"


def _wrapped(values) -> list[str]:
    values = list(values)
    return [" " + " ".join(map(str, values[i : i + _PER_LINE])) for i in range(0, len(values), _PER_LINE)]
