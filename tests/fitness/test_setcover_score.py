"""score() against a pure-Python set oracle, on both back ends and any chunking."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fitness.setcover import Instance, score


def oracle(instance, genome):
    chosen = [instance.lists[j] for j in np.flatnonzero(genome)]
    covered = set().union(*map(set, chosen)) if chosen else set()
    return len(covered), sum(map(len, chosen))


@st.composite
def instance_and_population(draw):
    N = draw(st.integers(1, 150))  # past 64 and 128 to cross packed-word boundaries
    lists = draw(
        st.lists(st.lists(st.integers(0, N - 1), unique=True, max_size=min(N, 20)), min_size=1, max_size=12)
    )
    instance = Instance(N, lists)
    population = draw(hnp.arrays(bool, st.tuples(st.integers(0, 9), st.just(len(lists)))))
    return instance, population


@settings(max_examples=150, deadline=None)
@given(instance_and_population(), st.sampled_from([None, True, False]), st.integers(1, 4))
def test_matches_set_oracle(case, dense, chunk):
    instance, population = case
    scores = score(instance, population, chunk=chunk, dense=dense)
    expected = [oracle(instance, genome) for genome in population]
    assert scores.covered.tolist() == [c for c, _ in expected]
    assert scores.cost.tolist() == [c for _, c in expected]
    assert scores.feasible.tolist() == [c == instance.N for c, _ in expected]


def test_course_instance_both_back_ends_and_dispatch_agree():
    instance = Instance.from_problem(200, 42)
    rng = np.random.default_rng(1)
    population = rng.random((300, instance.n_lists)) < rng.choice([0.0, 0.003, 0.05, 0.5], size=(300, 1))
    sparse = score(instance, population, dense=False)
    dense = score(instance, population, dense=True)
    auto = score(instance, population, chunk=64)
    for a in (dense, auto):
        assert np.array_equal(a.covered, sparse.covered) and np.array_equal(a.cost, sparse.cost)
    for genome, covered, cost in zip(population[::37], sparse.covered[::37], sparse.cost[::37]):
        assert (covered, cost) == oracle(instance, genome)


@pytest.mark.parametrize(
    "population",
    [np.zeros((2, 5), dtype=bool), np.zeros((2, 4), dtype=np.int64), np.zeros(4, dtype=bool)],
)
def test_rejects_wrong_shape_or_dtype(population):
    with pytest.raises(ValueError, match="bool array"):
        score(Instance(3, [[0], [1], [2], [0, 1]]), population)
