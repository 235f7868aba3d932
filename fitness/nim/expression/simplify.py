"""Shorter equivalent expressions, for reports: constants folded, identities removed.

Every rewrite keeps the score of every move unchanged (the tests check the
simplified form against the original on whole boards), so a reader sees the
rule an evolved expression plays, not its bloat. A term that is one number on
every position (`xor_all(vmod(rows, 1))`, `gt(0, count(rows))`) is that
number: the ranges of `bounds.py` find it.
"""

from __future__ import annotations

from .bounds import TERMINAL_RANGES, Interval, at_most, below, interval
from .language import TERMINALS, Node, interpret

__all__ = ["simplify"]


def _constant(node: Node) -> bool:
    return not node.children and node.name not in TERMINALS


def _uses_terminals(node: Node) -> bool:
    return (not node.children and node.name in TERMINALS) or any(_uses_terminals(c) for c in node.children)


def _reads_rows(node: Node) -> bool:
    """Whether `rows` in this subtree are the rows bound around it (not those of an inner let)."""
    if node.name == "rows":
        return True
    if node.name == "let":
        return _reads_rows(node.children[0])
    return any(_reads_rows(c) for c in node.children)


def _number(node: Node) -> int | None:
    return int(node.name) if _constant(node) else None


def simplify(node: Node) -> Node:
    """Bottom-up rewriting to a fixed point."""
    while True:
        simpler = _rewrite(node)
        if simpler == node:
            return node
        node = simpler


def _rewrite(node: Node, rows: Interval = TERMINAL_RANGES["rows"]) -> Node:
    """One bottom-up pass; `rows`: the values the `rows` in scope can hold (a let's body sees its binding's)."""
    if not node.children:
        return node
    if node.name == "let":
        bound = _rewrite(node.children[0], rows)
        node = Node("let", (bound, _rewrite(node.children[1], interval(bound, rows))))
    else:
        node = Node(node.name, tuple(_rewrite(c, rows) for c in node.children))
    if node.type == "S" and not _uses_terminals(node):  # constant folding
        return Node(str(interpret(node, [], 0, 0, 0)))
    low, high = interval(node, rows)
    if node.type == "S" and low is not None and low == high:  # one value on every position
        return Node(str(low))
    name, kids = node.name, node.children
    if name == "let" and (kids[0].name == "rows" or not _reads_rows(kids[1])):
        return kids[1]  # binding rows to themselves, or for a body that never reads them
    a = kids[0]
    b = kids[1] if len(kids) > 1 else None
    na, nb = _number(a), (_number(b) if b is not None else None)
    if name == "if_":
        condition = interval(a, rows)
        if condition == (0, 0):
            return kids[2]
        if (condition[0] is not None and condition[0] > 0) or (condition[1] is not None and condition[1] < 0):
            return kids[1]  # never 0
        if kids[1] == kids[2]:
            return kids[1]
    if name in ("add", "or_", "xor") and nb == 0:
        return a
    if name in ("add", "or_", "xor") and na == 0:
        return b
    if name == "sub" and nb == 0:
        return a
    if name == "mul" and (na == 1 or nb == 1):
        return b if na == 1 else a
    if name in ("mul", "and_") and (na == 0 or nb == 0):
        return Node("0")
    if name in ("sub", "xor", "mod") and a == b:  # x mod x is 0, and so is x mod 0
        return Node("0")
    if name == "eq" and a == b:
        return Node("1")
    if name in ("lt", "gt"):
        low, high = (a, b) if name == "lt" else (b, a)  # is low < high?
        if at_most(high, low, rows):
            return Node("0")
        if below(low, high, rows):
            return Node("1")
    if name == "eq" and (below(a, b, rows) or below(b, a, rows)):
        return Node("0")
    if name in ("and_", "or_") and a == b:
        return a
    if name == "mod" and interval(a, rows)[0] is not None and interval(a, rows)[0] >= 0 and below(a, b, rows):
        return a  # 0 <= a < b
    if name == "mod" and (na == 0 or nb in (0, 1)):  # mod(0, x) = mod(x, 1) = mod(x, 0) = 0
        return Node("0")
    return node

