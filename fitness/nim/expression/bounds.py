"""The range of values a subexpression can take, so the simplifier folds what is always one number.

An evolved expression often holds a term that is 0 on every position without
being `x - x` or `x * 0` in so many words: `xor_all(vmod(rows, 1))`,
`count(veq(vmod(rows, 2), 5))`, `gt(0, count(rows))`. Intervals of the values
each node can take, from what the terminals can be in any Nim position (rows
and `n` never negative, a move takes at least 1, `k` at least 1), find them.

The intervals are exact integer arithmetic, so they hold for the 64-bit
wrapping evaluation too: sums and products are bounded only from finite
operands, and a bound past 2^62 is dropped (unknown), so no value an interval
bounds has wrapped. That needs finite terminals: a row holds fewer objects
than the language's `UNBOUNDED_K` (2^20, "larger than any row") and a board
has fewer than 2^20 rows (no board near either limit can be played). For a
row vector the interval bounds every element.

Besides ranges, a few orders hold between terminals on every move: a move
takes at most the row it takes from and at most k, and k1 is k + 1.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Optional

from .language import TERMINALS, UNBOUNDED_K, Node

__all__ = ["ANY", "Interval", "MAX_ROW", "MAX_ROWS", "TERMINAL_RANGES", "at_most", "below", "interval"]

Bound = Optional[int]  # None: unbounded on that side
Interval = tuple[Bound, Bound]
ANY: Interval = (None, None)
_LIMIT = 1 << 62  # bounds this large are dropped: a value past 64 bits wraps

MAX_ROW = UNBOUNDED_K - 1  # objects in one row, at most (see above)
MAX_ROWS = (1 << 20) - 1  # rows on a board, at most

# What each terminal can be in any position: rows after a move are never negative, a move
# takes at least 1 from a row of at least that many, a board has a row, a bound k is >= 1.
TERMINAL_RANGES: dict[str, Interval] = {
    "rows": (0, MAX_ROW), "take": (1, MAX_ROW), "before": (1, MAX_ROW), "n": (1, MAX_ROWS),
    "k": (1, None), "k1": (2, None),
}
assert set(TERMINAL_RANGES) == set(TERMINALS)

_AT_MOST = {("take", "before"), ("take", "k"), ("take", "k1"), ("k", "k1")}  # (a, b): a <= b on every move
_BELOW = {("take", "k1"), ("k", "k1")}  # a < b on every move


def _clip(low: Bound, high: Bound) -> Interval:
    return (low if low is not None and abs(low) < _LIMIT else None,
            high if high is not None and abs(high) < _LIMIT else None)


def _add(a: Interval, b: Interval) -> Interval:
    """Finite operands only: a one-sided bound does not survive a sum that may wrap."""
    if None in a or None in b:
        return ANY
    return _clip(a[0] + b[0], a[1] + b[1])


def _negate(a: Interval) -> Interval:
    return (None if a[1] is None else -a[1], None if a[0] is None else -a[0])


def _mul(a: Interval, b: Interval) -> Interval:
    if None in a or None in b:
        return ANY
    products = [x * y for x in a for y in b]
    return _clip(min(products), max(products))


def _non_negative(a: Interval) -> bool:
    return a[0] is not None and a[0] >= 0


def _mod(a: Interval, b: Interval) -> Interval:
    """x mod y as Python has it, 0 for y = 0: within [0, y - 1] for y > 0, and within [0, x] for x >= 0."""
    if not _non_negative(b):
        return ANY if b[0] is None or b[1] is None else (min(b[0] + 1, 0), max(b[1] - 1, 0))
    highs = [h for h in (None if b[1] is None else max(b[1] - 1, 0), a[1] if _non_negative(a) else None)
             if h is not None]
    return (0, min(highs) if highs else None)


def _bits(a: Interval, b: Interval, name: str) -> Interval:
    """and, or, xor of non-negative numbers stay below the next power of two of the larger."""
    if not (_non_negative(a) and _non_negative(b)):
        if name == "and_" and (_non_negative(a) or _non_negative(b)):  # and with a non-negative number
            return (0, (a if _non_negative(a) else b)[1])
        return ANY
    if name == "and_":  # at most either, and only the bits of a constant that the other can hold
        highs = [h for h in (a[1], b[1]) if h is not None]
        highs += [c[0] & ((1 << x[1].bit_length()) - 1)
                  for c, x in ((a, b), (b, a)) if c[0] == c[1] and x[1] is not None]
        return (0, min(highs) if highs else None)
    high = None if None in (a[1], b[1]) else (1 << max(a[1], b[1]).bit_length()) - 1
    return (max(a[0], b[0]) if name == "or_" else 0, high)


def _compare(a: Interval, b: Interval) -> Interval:
    """a < b: 1 where every a is below every b, 0 where none is."""
    if a[1] is not None and b[0] is not None and a[1] < b[0]:
        return (1, 1)
    if a[0] is not None and b[1] is not None and a[0] >= b[1]:
        return (0, 0)
    return (0, 1)


def _equal(a: Interval, b: Interval) -> Interval:
    apart = (a[1] is not None and b[0] is not None and a[1] < b[0]) or \
            (b[1] is not None and a[0] is not None and b[1] < a[0])
    return (0, 0) if apart else (0, 1)


def _union(a: Interval, b: Interval) -> Interval:
    return (None if None in (a[0], b[0]) else min(a[0], b[0]), None if None in (a[1], b[1]) else max(a[1], b[1]))


def _reduce(name: str, v: Interval) -> Interval:
    """A reduction over the rows (at least one) of a vector whose elements lie in `v`."""
    if v == (0, 0):
        return (0, 0)
    if name == "max_all":
        return v
    if name == "count":
        zero_free = (v[0] is not None and v[0] > 0) or (v[1] is not None and v[1] < 0)
        return (1 if zero_free else 0, MAX_ROWS)
    if name == "xor_all":
        return _bits(v, v, "xor") if _non_negative(v) else ANY
    return _mul(v, TERMINAL_RANGES["n"])  # sum_all: between one row's worth and all rows' worth


_BINARY: dict[str, Callable[[Interval, Interval], Interval]] = {
    "add": _add, "sub": lambda a, b: _add(a, _negate(b)), "mul": _mul, "mod": _mod,
    "xor": lambda a, b: _bits(a, b, "xor"), "and_": lambda a, b: _bits(a, b, "and_"),
    "or_": lambda a, b: _bits(a, b, "or_"), "lt": _compare, "gt": lambda a, b: _compare(b, a), "eq": _equal,
    "vmod": _mod, "vand": lambda a, b: _bits(a, b, "and_"), "veq": _equal, "vgt": lambda a, b: _compare(b, a),
}


@lru_cache(maxsize=1 << 14)
def interval(node: Node, rows: Interval = TERMINAL_RANGES["rows"]) -> Interval:
    """The values `node` can take (each element's, for a row vector), with `rows` in `rows`."""
    name, kids = node.name, node.children
    if not kids:
        if name == "rows":
            return rows
        return TERMINAL_RANGES[name] if name in TERMINAL_RANGES else (int(name), int(name))
    if name == "let":
        return interval(kids[1], interval(kids[0], rows))
    if name == "if_":
        condition = interval(kids[0], rows)
        if condition == (0, 0):
            return interval(kids[2], rows)
        if _compare((0, 0), condition) == (1, 1) or _compare(condition, (0, 0)) == (1, 1):  # never 0
            return interval(kids[1], rows)
        return _union(interval(kids[1], rows), interval(kids[2], rows))
    if len(kids) == 1:
        return _reduce(name, interval(kids[0], rows))
    return _BINARY[name](interval(kids[0], rows), interval(kids[1], rows))


def at_most(a: Node, b: Node, rows: Interval = TERMINAL_RANGES["rows"]) -> bool:
    """Whether a <= b on every move (S nodes)."""
    if a == b or (a.name, b.name) in _AT_MOST:
        return True
    high, low = interval(a, rows)[1], interval(b, rows)[0]
    return high is not None and low is not None and high <= low


def below(a: Node, b: Node, rows: Interval = TERMINAL_RANGES["rows"]) -> bool:
    """Whether a < b on every move (S nodes)."""
    if (a.name, b.name) in _BELOW:
        return True
    high, low = interval(a, rows)[1], interval(b, rows)[0]
    return high is not None and low is not None and high < low
