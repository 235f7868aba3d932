"""The `expression` genome kind: DEAP GP trees that score Nim moves (genetic programming).

A genome is the expression as a string in DEAP's notation (`eq(xor_all(rows), 0)`),
plain data that crosses to Ray workers and round-trips through Parquet; the
operators turn it into a `deap.gp.PrimitiveTree` over a strongly typed
primitive set (row vectors and numbers, see `fitness.nim.expression`), vary
it and print it back.

Operators, grouped by role, all drawing from an explicit
`numpy.random.Generator` (DEAP's GP operators use Python's global `random`;
each call runs under a state seeded from `rng` and restored afterwards, so
runs replay exactly):

* init: `random_expression` (ramped half-and-half, heights `init_min`..`init_max`);
* crossover: `cx_one_point` (swap two subtrees of the same type);
* mutation: `mut_uniform` (a subtree replaced by a new one), `mut_node_replacement`
  (one node replaced by another of the same signature), `mut_shrink` (a subtree
  replaced by one of its arguments), `mut_mixed` (one of the three, uniformly);
* bloat control: a child taller than `max_height` or larger than `max_size`
  nodes is replaced by its parent (DEAP's static limit); parsimony pressure
  comes from the `size` objective (see `runs/nim-gp.toml`).
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from functools import lru_cache
from typing import Callable, Iterator

import numpy as np
from deap import gp

from fitness.nim.expression import PRIMITIVES, TERMINALS, Node, parse, to_string
from fitness.nim.expression.languages import DEFAULT_LANGUAGE, LANGUAGES

__all__ = [
    "CROSSOVERS",
    "MUTATIONS",
    "cx_one_point",
    "from_record",
    "mut_mixed",
    "mut_node_replacement",
    "mut_shrink",
    "mut_uniform",
    "primitive_set",
    "random_expression",
    "to_record",
]


class _Tag(type):
    """Type tags with fixed hashes: DEAP's `cxOnePoint` picks a type from a *set* of
    them, whose order would otherwise follow memory addresses and differ between
    processes, breaking replay."""

    def __hash__(cls) -> int:
        return cls.order


class Rows(metaclass=_Tag):
    """DEAP type tag: one integer per row."""

    order = 1


class Number(metaclass=_Tag):
    """DEAP type tag: one integer."""

    order = 2


_TYPES = {"V": Rows, "S": Number}


@lru_cache(maxsize=None)
def primitive_set(language: str = DEFAULT_LANGUAGE) -> gp.PrimitiveSetTyped:
    """The typed DEAP primitive set of a named set of `fitness.nim.expression.languages`
    (built once per process; the order things are added in fixes the random draws)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown primitive set {language!r}; valid: {', '.join(LANGUAGES)}")
    spec = LANGUAGES[language]
    pset = gp.PrimitiveSetTyped("nim_move", [], Number)
    for name in spec.primitives:
        args, result, _ = PRIMITIVES[name]
        pset.addPrimitive(_placeholder, [_TYPES[a] for a in args], _TYPES[result], name=name)
    for name in spec.terminals:
        pset.addTerminal(name, _TYPES[TERMINALS[name]], name=name)
    for value in spec.constants:
        pset.addTerminal(value, Number)
    return pset


def _placeholder(*args):  # trees are compiled by fitness.nim.expression, never by DEAP
    raise NotImplementedError


@contextmanager
def _python_random(rng: np.random.Generator) -> Iterator[None]:
    """Python's global `random`, seeded from `rng` for one DEAP call, then restored."""
    saved = random.getstate()
    random.seed(int(rng.integers(2**63)))
    try:
        yield
    finally:
        random.setstate(saved)


def _tree(expression: str, language: str) -> gp.PrimitiveTree:
    """A fresh DEAP tree of an expression (DEAP's operators change trees in place)."""
    return gp.PrimitiveTree(list(_nodes(expression, language)))


@lru_cache(maxsize=1 << 14)
def _nodes(expression: str, language: str) -> tuple:
    """An expression's DEAP nodes in prefix order: names from the set, any other integer a constant."""
    mapping = primitive_set(language).mapping
    nodes: list = []

    def walk(node: Node) -> None:
        if node.name in mapping:
            nodes.append(mapping[node.name])
        elif node.name.lstrip("-").isdigit():
            nodes.append(gp.Terminal(int(node.name), False, Number))
        else:
            raise ValueError(f"expression {expression!r}: {node.name!r} is not in the primitive set {language!r}")
        for child in node.children:
            walk(child)

    walk(parse(expression))
    return tuple(nodes)


def _within(tree: gp.PrimitiveTree, max_height: int, max_size: int) -> bool:
    return tree.height + 1 <= max_height and len(tree) <= max_size


# --- record ----------------------------------------------------------------

def to_record(expression: str) -> str:
    """The expression string itself (already plain and lossless)."""
    return str(expression)


def from_record(record: object) -> str:
    """A logged expression, checked to parse under the primitive set."""
    if not isinstance(record, str):
        raise ValueError(f"an expression record is a string, got {record!r}")
    return to_string(parse(record))  # the language's own parser: one-line errors naming the fault


# --- init ------------------------------------------------------------------

def random_expression(rng: np.random.Generator, init_min: int = 1, init_max: int = 4, *,
                      language: str = DEFAULT_LANGUAGE) -> str:
    """Ramped half-and-half: full or grown trees of heights `init_min`..`init_max` (edges)."""
    if not 0 <= init_min <= init_max:
        raise ValueError(f"need 0 <= init_min <= init_max, got {init_min}, {init_max}")
    with _python_random(rng):
        return str(gp.PrimitiveTree(gp.genHalfAndHalf(primitive_set(language), init_min, init_max)))


# --- crossover -------------------------------------------------------------

def cx_one_point(a: str, b: str, rng: np.random.Generator, max_height: int = 12,
                 max_size: int = 80, *, language: str = DEFAULT_LANGUAGE) -> tuple[str, str]:
    """Swap a random subtree of `a` with one of the same type in `b`."""
    first, second = _tree(a, language), _tree(b, language)
    with _python_random(rng):
        first, second = gp.cxOnePoint(first, second)
    return (str(first) if _within(first, max_height, max_size) else a,
            str(second) if _within(second, max_height, max_size) else b)


# --- mutation --------------------------------------------------------------

def mut_uniform(expression: str, rng: np.random.Generator, max_height: int = 12, max_size: int = 80, *,
                language: str = DEFAULT_LANGUAGE) -> str:
    """A random subtree replaced by a new tree of height 0..2."""
    pset = primitive_set(language)
    with _python_random(rng):
        (tree,) = gp.mutUniform(_tree(expression, language), lambda pset, type_: gp.genGrow(pset, 0, 2, type_),
                                pset)
    return str(tree) if _within(tree, max_height, max_size) else expression


def mut_node_replacement(expression: str, rng: np.random.Generator, max_height: int = 12,
                         max_size: int = 80, *, language: str = DEFAULT_LANGUAGE) -> str:
    """One node replaced by another primitive or terminal of the same signature."""
    with _python_random(rng):
        (tree,) = gp.mutNodeReplacement(_tree(expression, language), primitive_set(language))
    return str(tree)


def mut_shrink(expression: str, rng: np.random.Generator, max_height: int = 12, max_size: int = 80, *,
               language: str = DEFAULT_LANGUAGE) -> str:
    """A random primitive replaced by one of its arguments of the same type (never grows)."""
    with _python_random(rng):
        (tree,) = gp.mutShrink(_tree(expression, language))
    return str(tree)


def mut_insert(expression: str, rng: np.random.Generator, max_height: int = 12, max_size: int = 80, *,
               language: str = DEFAULT_LANGUAGE) -> str:
    """A new primitive inserted above a random node, which becomes one of its arguments
    (`rows` -> `vmod(rows, k)`): a step the other mutations only make by luck."""
    with _python_random(rng):
        (tree,) = gp.mutInsert(_tree(expression, language), primitive_set(language))
    return str(tree) if _within(tree, max_height, max_size) else expression


def mut_bind(expression: str, rng: np.random.Generator, max_height: int = 12, max_size: int = 80, *,
             language: str = DEFAULT_LANGUAGE) -> str:
    """A random number-valued subtree S wrapped as `let(V, S)`, V a new row-vector tree of
    height 1..2: the same reasoning applied to transformed rows, in one step
    (needs a primitive set with `let`)."""
    pset = primitive_set(language)
    if "let" not in pset.mapping:
        raise ValueError(f"mutation bind needs a primitive set with let; {language!r} has none")
    tree = _tree(expression, language)
    with _python_random(rng):
        index = random.choice([i for i, node in enumerate(tree) if node.ret is Number])
        binding = gp.genGrow(pset, 1, 2, Rows)
    where = tree.searchSubtree(index)
    tree[where] = [pset.mapping["let"], *binding, *tree[where]]
    return str(tree) if _within(tree, max_height, max_size) else expression


def mut_mixed(expression: str, rng: np.random.Generator, max_height: int = 12, max_size: int = 80, *,
              language: str = DEFAULT_LANGUAGE) -> str:
    """One of uniform, node-replacement or shrink mutation, chosen uniformly."""
    pick = (mut_uniform, mut_node_replacement, mut_shrink)[int(rng.integers(3))]
    return pick(expression, rng, max_height=max_height, max_size=max_size, language=language)


def mut_mixed_insert(expression: str, rng: np.random.Generator, max_height: int = 12, max_size: int = 80, *,
                     language: str = DEFAULT_LANGUAGE) -> str:
    """One of uniform, node-replacement, shrink or insert mutation, chosen uniformly."""
    pick = (mut_uniform, mut_node_replacement, mut_shrink, mut_insert)[int(rng.integers(4))]
    return pick(expression, rng, max_height=max_height, max_size=max_size, language=language)


def mut_mixed_bind(expression: str, rng: np.random.Generator, max_height: int = 12, max_size: int = 80, *,
                   language: str = DEFAULT_LANGUAGE) -> str:
    """One of uniform, node-replacement, shrink, insert or bind mutation, chosen uniformly."""
    pick = (mut_uniform, mut_node_replacement, mut_shrink, mut_insert, mut_bind)[int(rng.integers(5))]
    return pick(expression, rng, max_height=max_height, max_size=max_size, language=language)


MUTATIONS: dict[str, Callable[..., str]] = {
    "mixed": mut_mixed,
    "uniform": mut_uniform,
    "node-replacement": mut_node_replacement,
    "shrink": mut_shrink,
    "insert": mut_insert,
    "mixed-insert": mut_mixed_insert,
    "bind": mut_bind,
    "mixed-bind": mut_mixed_bind,
}
BINDING_MUTATIONS = (mut_bind, mut_mixed_bind)  # they need `let` in the primitive set
CROSSOVERS: dict[str, Callable[..., tuple[str, str]]] = {"one-point": cx_one_point}
DEFAULT_MUTATION = "mixed"
DEFAULT_CROSSOVER = "one-point"
