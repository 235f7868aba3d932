"""var_or's two draw orders: a batch of one child draws the same in both (so in-process
steady-state logs, bred a child at a time, are the same whichever it uses); `parents_first`
draws every origin, then every parent in one selection call, then each child's variation.
Children finished later (`finish_later`) are the children finished at once."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operators.kind import Finishing, GenomeKind
from operators.variation import Unfinished, finish_all, var_or


class _Counts:
    """A kind whose genomes are integers and whose operators draw from the generator."""

    repaired_origins = ("crossover",)

    def crossover(self, a: int, b: int, rng: np.random.Generator) -> int:
        return a + b + int(rng.integers(1000))

    def mutate(self, a: int, rng: np.random.Generator) -> int:
        return a + int(rng.integers(1000)) * 1000

    def copy(self, a: int) -> int:
        return a

    def repair(self, genome: int, rng: np.random.Generator) -> int:
        return genome + int(rng.integers(7)) * 10**7


def _tournament(n: int, calls: list[int]):
    def select(k: int, rng: np.random.Generator) -> np.ndarray:
        calls.append(k)
        entrants = rng.integers(n, size=k * 2).reshape(k, 2)
        return entrants.max(axis=1)
    return select


rates = st.tuples(st.floats(0, 1), st.floats(0, 1)).map(lambda r: (r[0], min(r[1], 1 - r[0])))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rates=rates, n=st.integers(1, 9), repair=st.booleans())
def test_a_batch_of_one_draws_the_same_in_both_orders(seed, rates, n, repair):
    genomes = list(range(100, 100 + n))
    made = []
    for parents_first in (False, True):
        rng = np.random.default_rng(seed)
        children = var_or(_Counts(), genomes, _tournament(n, []), 1, *rates, rng, repair=repair,
                          parents_first=parents_first)
        made.append(([(c.genome, c.parents, c.origin) for c in children], rng.random()))
    assert made[0] == made[1]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rates=rates, n=st.integers(1, 9), count=st.integers(1, 40))
def test_parents_first_draws_origins_then_all_parents_in_one_call(seed, rates, n, count):
    cxpb, mutpb = rates
    genomes = list(range(100, 100 + n))
    calls: list[int] = []
    children = var_or(_Counts(), genomes, _tournament(n, calls), count, cxpb, mutpb,
                      np.random.default_rng(seed), parents_first=True)
    oracle = np.random.default_rng(seed)
    origins = oracle.random(count)
    expected = ["crossover" if d < cxpb else "mutation" if d < cxpb + mutpb else "reproduction" for d in origins]
    assert [c.origin for c in children] == expected
    assert calls == [sum(2 if o == "crossover" else 1 for o in expected)]
    parents = _tournament(n, [])(calls[0], oracle).tolist()
    assert [p for c in children for p in c.parents] == parents
    kind = _Counts()  # then each child's variation and repair, in turn
    for c in children:
        parent_genomes = [genomes[p] for p in c.parents]
        genome = {"crossover": lambda: kind.crossover(*parent_genomes, oracle),
                  "mutation": lambda: kind.mutate(parent_genomes[0], oracle),
                  "reproduction": lambda: kind.copy(parent_genomes[0])}[c.origin]()
        if c.origin not in kind.repaired_origins:
            genome = kind.repair(genome, oracle)
        assert c.genome == genome


class _Finished(_Counts):
    """A kind whose mutants and crossover children are finished by a pure function (`Finishing`):
    its own `mutate` and `repair` finish at once, without a draw."""

    repaired_origins = ("mutation", "reproduction")

    def __init__(self) -> None:
        self.finishing = Finishing(super().mutate, self.finish)

    @staticmethod
    def finish(child: int, parent: int | None) -> int:
        return child * 3 + (0 if parent is None else parent % 5)

    def mutate(self, a: int, rng: np.random.Generator) -> int:
        return self.finish(super().mutate(a, rng), a)

    def repair(self, genome: int, rng: np.random.Generator) -> int:
        return self.finish(genome, None)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rates=rates, n=st.integers(1, 9), count=st.integers(1, 20))
def test_children_finished_later_are_the_children_finished_at_once(seed, rates, n, count):
    """Set cover's repair moves to the scorer (and the workers): the same draws, the same children."""
    genomes = list(range(100, 100 + n))
    made = []
    for later in (False, True):
        rng = np.random.default_rng(seed)
        children = var_or(_Finished(), genomes, _tournament(n, []), count, *rates, rng, finish_later=later)
        assert later or not any(isinstance(c.genome, Unfinished) for c in children)
        finished = finish_all([c.genome for c in children])
        made.append(([(g, c.parents, c.origin) for g, c in zip(finished, children)], rng.random()))
    assert made[0] == made[1]


def test_a_kind_with_finishing_repairs_its_mutants():
    with pytest.raises(ValueError, match="'mutation' must be among its repaired_origins"):
        GenomeKind("k", init=lambda n, rng: [], crossover=lambda a, b, rng: a, mutate=lambda a, rng: a,
                   to_record=lambda g: g, from_record=lambda r: r, finishing=Finishing(lambda a, rng: a, lambda c, p: c))
