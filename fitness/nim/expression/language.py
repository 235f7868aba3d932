"""The move-scoring language of the `expression` genome: primitives, parser, compiler.

An expression scores one candidate move from the position *after* it (and
the move itself). Two types: `V`, one integer per row (the rows after the
move, or a row-wise transform of them), and `S`, one integer. The root is an
`S`. Nothing here knows Nim theory: only plain arithmetic, bitwise and
comparison operations, row-wise maps and reductions.

Expressions are written as DEAP prints its trees, `f(a, b)`, so a genome is a
readable string that round-trips. `compile_expression` turns one into a
numpy function over all candidate moves of a batch at once; `interpret` is
the plain one-candidate reference the tests hold the compiler to. All
arithmetic is on 64-bit integers that wrap, identically in both.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

__all__ = [
    "Context",
    "Node",
    "PRIMITIVES",
    "TERMINALS",
    "UNBOUNDED_K",
    "compile_expression",
    "evaluate_node",
    "expand",
    "interpret",
    "parse",
    "to_string",
]

V, S = "V", "S"
UNBOUNDED_K = 1 << 20  # the terminal `k` without a bound: larger than any row, so `mod(x, k + 1)` is `x`


_MOD_TABLE = 1 << 12  # largest value reduced by table lookup (cheaper than dividing)


def _safe_mod(a, b):
    """x mod y as Python defines it, with x mod 0 = 0. Rows mod one positive constant, the
    usual case, is a table lookup: an integer division costs four times as much."""
    a, b = np.asarray(a), np.asarray(b)
    shape = np.broadcast_shapes(a.shape, b.shape)
    if a.size and b.size and a.min() >= 0:
        divisor, high = b.min(), a.max()
        if divisor > 0 and (high < divisor or (divisor == b.max() and high < _MOD_TABLE)):
            if high >= divisor:
                a = np.take(np.arange(high + 1, dtype=np.int64) % divisor, a)
            return np.broadcast_to(a, shape)
    with np.errstate(divide="ignore", invalid="ignore"):  # numpy's integer x mod 0 is 0, as we define it
        return np.mod(a, b)


def _bool(x):
    return np.asarray(x).astype(np.int64)


# name -> (argument types, result type, numpy function). Vectors are held row-major,
# (rows, m): a reduction over rows is then a loop over contiguous arrays.
PRIMITIVES: dict[str, tuple[tuple[str, ...], str, Callable]] = {
    "add": ((S, S), S, np.add),
    "sub": ((S, S), S, np.subtract),
    "mul": ((S, S), S, np.multiply),
    "mod": ((S, S), S, _safe_mod),
    "xor": ((S, S), S, np.bitwise_xor),
    "and_": ((S, S), S, np.bitwise_and),
    "or_": ((S, S), S, np.bitwise_or),
    "lt": ((S, S), S, lambda a, b: _bool(a < b)),
    "gt": ((S, S), S, lambda a, b: _bool(a > b)),
    "eq": ((S, S), S, lambda a, b: _bool(a == b)),
    "if_": ((S, S, S), S, lambda c, a, b: np.where(c != 0, a, b)),
    "vmod": ((V, S), V, lambda v, s: _safe_mod(v, s[None, :])),
    "vand": ((V, S), V, lambda v, s: np.bitwise_and(v, s[None, :])),
    "veq": ((V, S), V, lambda v, s: _bool(v == s[None, :])),
    "vgt": ((V, S), V, lambda v, s: _bool(v > s[None, :])),
    "xor_all": ((V,), S, lambda v: np.bitwise_xor.reduce(v, axis=0)),
    "sum_all": ((V,), S, lambda v: v.sum(axis=0)),
    "max_all": ((V,), S, lambda v: v.max(axis=0)),
    "count": ((V,), S, lambda v: np.count_nonzero(v, axis=0).astype(np.int64)),
    # let(V, S): S with `rows` standing for V (a binding, expanded before evaluation; see `expand`)
    "let": ((V, S), S, None),
}

# name -> type; integers are `S` constants too. Which of them a run's search may
# use is its primitive set (`languages.py`); every expression of any set parses here.
TERMINALS: dict[str, str] = {"rows": V, "take": S, "before": S, "n": S, "k": S, "k1": S}


@dataclass(frozen=True)
class Node:
    """A parsed expression: a primitive with children, a named terminal, or a constant.

    Hashed once (subexpression values are kept in dicts keyed by node)."""

    name: str
    children: tuple["Node", ...] = ()
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.name, self.children)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def type(self) -> str:
        if self.name in PRIMITIVES:
            return PRIMITIVES[self.name][1]
        return TERMINALS.get(self.name, S)

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)

    def height(self) -> int:
        return 1 + max((c.height() for c in self.children), default=0)


_TOKEN = re.compile(r"\s*(?:([A-Za-z_][A-Za-z_0-9]*)|(-?\d+)|(.))")


_INTEGER = re.compile(r"-?\d+")


def parse(text: str) -> Node:
    """The tree of an expression string, type-checked; ValueError naming what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"an expression is a non-empty string, got {text!r}")
    return _parse(text)


@lru_cache(maxsize=1 << 15)  # a population's genomes are parsed again and again (parents, copies)
def _parse(text: str) -> Node:
    tokens = [m.group(m.lastindex) for m in _TOKEN.finditer(text.strip()) if m.lastindex]
    position = 0

    def take(expected: str | None = None) -> str:
        nonlocal position
        if position >= len(tokens):
            raise ValueError(f"expression {text!r} ends too early")
        token = tokens[position]
        if expected is not None and token != expected:
            raise ValueError(f"expression {text!r}: expected {expected!r}, got {token!r}")
        position += 1
        return token

    def node() -> Node:
        token = take()
        if _INTEGER.fullmatch(token):
            return Node(str(int(token)))
        if token in TERMINALS:
            return Node(token)
        if token not in PRIMITIVES:
            raise ValueError(f"expression {text!r}: unknown name {token!r}; primitives: {', '.join(PRIMITIVES)}; "
                             f"terminals: {', '.join(TERMINALS)} and integers")
        wanted = PRIMITIVES[token][0]
        take("(")
        children = []
        for i, kind in enumerate(wanted):
            if i:
                take(",")
            child = node()
            if child.type != kind:
                raise ValueError(f"expression {text!r}: argument {i + 1} of {token} must be "
                                 f"{'a row vector' if kind == V else 'a number'}")
            children.append(child)
        take(")")
        return Node(token, tuple(children))

    root = node()
    if position != len(tokens):
        raise ValueError(f"expression {text!r}: unexpected {tokens[position]!r} after the end")
    if root.type != S:
        raise ValueError(f"expression {text!r} must give a number per move, not a row vector")
    return root


def to_string(node: Node) -> str:
    """DEAP's notation: `f(a, b)`."""
    if not node.children:
        return node.name
    return f"{node.name}({', '.join(to_string(c) for c in node.children)})"


@dataclass(frozen=True)
class Context:
    """The candidate moves being scored: rows after each move (m, rows) and the move.

    `distinct`, when given, holds the distinct rows-after of the candidates as a
    context of their own, and `inverse` maps each candidate to its row there: a
    subtree that reads only `rows` (no `take`, no `before`) is computed once per
    distinct position and spread to the candidates (many moves of a board lead
    to the same position). The values are the same, element by element."""

    rows: np.ndarray
    take: np.ndarray | None
    before: np.ndarray | None
    k: int  # the bound, or UNBOUNDED_K
    distinct: "Context | None" = None
    inverse: np.ndarray | None = None
    _values: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def terminal(self, name: str) -> np.ndarray:
        """A terminal's value per candidate (`rows` row-major, (rows, m)); built once per context."""
        if name in ("take", "before"):
            return getattr(self, name)
        if name not in self._values:
            if name == "rows":
                value = np.ascontiguousarray(np.asarray(self.rows, dtype=np.int64).T)
            else:
                number = {"n": self.rows.shape[1], "k": self.k, "k1": self.k + 1}.get(name)
                value = np.full(len(self.rows), int(name) if number is None else number, dtype=np.int64)
            value.flags.writeable = False
            self._values[name] = value
        return self._values[name]

    def with_distinct(self, most: float = 0.5) -> "Context":
        """This context with its distinct positions, if they are at most `most` of the candidates."""
        after = np.asarray(self.rows, dtype=np.int64)
        unique, inverse = unique_rows(after)
        if len(unique) > most * len(after):
            return self
        return replace(self, distinct=Context(unique, None, None, self.k), inverse=inverse)


def unique_rows(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D integer table and, per row, its index among them. Small
    non-negative values are packed into one integer per row first: sorting those is ten
    times quicker than numpy's row-wise unique."""
    if not table.size:
        return table[:0], np.zeros(len(table), dtype=np.intp)
    low, radix = int(table.min()), [int(v) + 1 for v in table.max(axis=0)]
    if low < 0 or float(np.prod(radix, dtype=np.float64)) >= 2.0 ** 62:
        unique, inverse = np.unique(table, axis=0, return_inverse=True)
        return unique, inverse.reshape(-1)
    strides = np.cumprod([1] + radix[:0:-1], dtype=np.int64)[::-1]
    _, first, inverse = np.unique(table @ strides, return_index=True, return_inverse=True)
    return table[first], inverse.reshape(-1)


@lru_cache(maxsize=1 << 16)
def reads_rows_only(node: Node) -> bool:
    """Whether the subtree's value depends on the position after the move alone."""
    return node.name not in ("take", "before") and all(reads_rows_only(c) for c in node.children)


def compile_expression(node: Node) -> Callable[[Context], np.ndarray]:
    """A function scoring every candidate of a context at once (one numpy op per node)."""
    return lambda ctx: evaluate_node(node, ctx)


def evaluate_node(node: Node, ctx: Context, recall: Callable[[Node], np.ndarray | None] | None = None,
                  remember: Callable[[Node, np.ndarray], None] | None = None) -> np.ndarray:
    """The value of `node` over every candidate of `ctx`; `recall`/`remember` let a caller
    keep subexpression values across expressions scored on the same context."""
    if not node.children:
        return ctx.terminal(node.name)
    if ctx.distinct is not None and reads_rows_only(node):  # kept per distinct position, spread here
        return np.take(evaluate_node(node, ctx.distinct, recall, remember), ctx.inverse, axis=-1)
    if recall is not None:
        known = recall(node)
        if known is not None:
            return known
    if node.name == "let":
        return evaluate_node(expand(node), ctx, recall, remember)
    args = [evaluate_node(c, ctx, recall, remember) for c in node.children]
    value = np.asarray(PRIMITIVES[node.name][2](*args), dtype=np.int64)
    if remember is not None:
        remember(node, value)
    return value


@lru_cache(maxsize=1 << 14)
def expand(node: Node) -> Node:
    """The expression without `let`: `let(V, S)` is S with every `rows` replaced by V.

    Innermost bindings first, so in `let(A, let(B, S))` the `rows` of S mean B
    and the `rows` of B mean A. Equal subtrees stay shared objects, so values
    kept per subtree are computed once however often a binding is used."""
    if not node.children:
        return node
    children = tuple(expand(c) for c in node.children)
    if node.name == "let":
        return _substitute(children[1], children[0], {})
    return node if children == node.children else Node(node.name, children)


def _substitute(node: Node, rows: Node, done: dict) -> Node:
    key = id(node)
    if key not in done:
        if node.name == "rows":
            done[key] = rows
        elif not node.children:
            done[key] = node
        else:
            done[key] = Node(node.name, tuple(_substitute(c, rows, done) for c in node.children))
    return done[key]


# --- the plain reference: one candidate, Python integers wrapped to 64 bits ---

def _wrap(x: int) -> int:
    return (x + (1 << 63)) % (1 << 64) - (1 << 63)


_SCALAR = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "mod": lambda a, b: 0 if b == 0 else a % b,
    "xor": lambda a, b: a ^ b,
    "and_": lambda a, b: a & b,
    "or_": lambda a, b: a | b,
    "lt": lambda a, b: int(a < b),
    "gt": lambda a, b: int(a > b),
    "eq": lambda a, b: int(a == b),
}


def interpret(node: Node, rows: list[int], take: int, before: int, k: int):
    """The score of one candidate move (or a row list for vector nodes), by plain recursion."""
    name = node.name
    if not node.children:
        values = {"rows": list(rows), "take": take, "before": before, "n": len(rows), "k": k, "k1": k + 1}
        return values[name] if name in values else int(name)
    if name == "let":  # the body sees the bound rows
        return interpret(node.children[1], interpret(node.children[0], rows, take, before, k), take, before, k)
    args = [interpret(c, rows, take, before, k) for c in node.children]
    if name in _SCALAR:
        return _wrap(_SCALAR[name](*args))
    if name == "if_":
        return args[1] if args[0] != 0 else args[2]
    v = args[0]
    if name in ("vmod", "vand", "veq", "vgt"):
        s = args[1]
        op = {"vmod": lambda x: 0 if s == 0 else x % s, "vand": lambda x: x & s,
              "veq": lambda x: int(x == s), "vgt": lambda x: int(x > s)}[name]
        return [_wrap(op(x)) for x in v]
    if name == "xor_all":
        out = 0
        for x in v:
            out ^= x
        return out
    if name == "sum_all":
        return _wrap(sum(v))
    if name == "max_all":
        return max(v)
    if name == "count":
        return sum(1 for x in v if x != 0)
    raise ValueError(f"unknown primitive {name!r}")
