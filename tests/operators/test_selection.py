"""Selection by role: rank tournaments pick what a max over DEAP fitnesses picks, ties to the
first drawn; survivors are the fittest, ties kept in the given order, distinct when asked."""

import numpy as np
from deap import base
from hypothesis import given, settings
from hypothesis import strategies as st

from operators import migration, selection, survival


class _TwoObjectives(base.Fitness):
    weights = (1.0, -1.0)


class _Ind:
    def __init__(self, id: int, values: tuple, genome: int = 0, fitness: type = _TwoObjectives) -> None:
        self.id, self.fitness, self.genome = id, fitness(values), genome


values_lists = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=30)


class _Maximise(base.Fitness):
    weights = (1.0,)


class _Minimise(base.Fitness):
    weights = (-1.0,)


one_objective = st.floats(allow_nan=False, width=32) | st.sampled_from([0.0, -0.0, 1.5, float("inf"), -float("inf")])
FITNESSES = {_TwoObjectives: st.tuples(st.integers(0, 3), st.integers(0, 3)),
             _Maximise: st.tuples(one_objective), _Minimise: st.tuples(one_objective)}


@settings(max_examples=150, deadline=None)
@given(data=st.data(), fitness=st.sampled_from(sorted(FITNESSES, key=lambda c: c.__name__)),
       seed=st.integers(0, 2**32 - 1), size=st.integers(1, 5), k=st.integers(1, 20))
def test_tournaments_equal_max_over_fitness_first_among_equals(data, fitness, seed, size, k):
    """On tournament keys and on dense ranks alike (one objective: the values, no sort)."""
    values = data.draw(st.lists(FITNESSES[fitness], min_size=1, max_size=30))
    population = [_Ind(i, v, fitness=fitness) for i, v in enumerate(values)]
    entrants = np.random.default_rng(seed).integers(len(population), size=(k, size))  # every logged run's draws
    by_max = [max((population[i] for i in row), key=lambda m: m.fitness).id for row in entrants]
    for keys in (selection.tournament_keys(population), selection.dense_ranks(population)):
        rng, reference = np.random.default_rng(seed), np.random.default_rng(seed)
        reference.integers(len(population), size=(k, size))
        assert list(selection.tournament(keys, k, size, rng)) == by_max
        assert rng.random() == reference.random()  # and the generator left where those draws left it


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bounds=st.lists(st.integers(1, 2**32) | st.integers(1, 70), min_size=1,
                                                       max_size=20), doubles=st.lists(st.booleans(), max_size=20))
def test_bounded_draws_are_numpys_own(seed, bounds, doubles):
    """The same integers as `rng.integers`, scalar or array, and the generator left in the same
    place, with doubles drawn between them (a breeder's order)."""
    ours, numpy = np.random.default_rng(seed), np.random.default_rng(seed)
    draw = selection.bounded_draws(ours)
    for n, double in zip(bounds, doubles + [False] * len(bounds)):
        assert [draw(n), draw(n)] == numpy.integers(n, size=2).tolist()
        if double:
            assert ours.random() == numpy.random()
    assert ours.integers(2**40) == numpy.integers(2**40)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 4), k=st.integers(1, 4),
       keys=st.lists(st.sampled_from([0.0, 1.0, -1.0, float("nan")]), min_size=1, max_size=8))
def test_tournament_winners_are_argmins_nan_included(seed, size, k, keys):
    """Entrant by entrant or as one array, the winner is `argmin`'s: the first lowest, or the first NaN."""
    keys = np.array(keys)
    entrants = np.random.default_rng(seed).integers(len(keys), size=(k, size))
    expected = [int(row[keys[row].argmin()]) for row in entrants]
    assert selection.tournament(keys, k, size, np.random.default_rng(seed)) == expected


def test_an_empty_population_has_no_keys_and_no_ranks():
    assert len(selection.tournament_keys([])) == 0 and len(selection.dense_ranks([])) == 0


@settings(max_examples=100, deadline=None)
@given(parents=values_lists, offspring=values_lists, mu=st.integers(1, 10), genomes=st.integers(1, 4))
def test_plus_survivors_are_the_fittest_distinct_first_ties_in_pool_order(parents, offspring, mu, genomes):
    pool = [_Ind(i, v, i % genomes) for i, v in enumerate(parents + offspring)]
    chosen = survival.plus(pool[: len(parents)], pool[len(parents):], mu, key=lambda m: m.genome)
    assert len(chosen) == min(mu, len(pool))
    distinct = len({m.genome for m in pool})
    head = chosen[: min(mu, distinct)]
    assert len({m.genome for m in head}) == len(head)  # distinct genomes while there are enough
    best_of_each = {}
    for m in sorted(pool, key=lambda m: m.fitness, reverse=True):
        best_of_each.setdefault(m.genome, m)
    # the distinct head is the best representative of each genome, fittest first, stable among equals
    expected = sorted(best_of_each.values(), key=lambda m: m.fitness, reverse=True)[: len(head)]
    assert [m.fitness.values for m in head] == [m.fitness.values for m in expected]
    for a, b in zip(chosen, chosen[1:]):
        if a.fitness == b.fitness and (a in head) == (b in head):
            assert pool.index(a) < pool.index(b)


@settings(max_examples=60, deadline=None)
@given(parents=values_lists, offspring=values_lists, mu=st.integers(1, 10))
def test_comma_survivors_come_from_the_offspring_only(parents, offspring, mu):
    pool = [_Ind(i, v) for i, v in enumerate(parents + offspring)]
    chosen = survival.comma(pool[: len(parents)], pool[len(parents):], mu)
    assert all(m.id >= len(parents) for m in chosen)
    assert [m.fitness.values for m in chosen] == sorted((m.fitness.values for m in chosen),
                                                        key=lambda v: _TwoObjectives(v), reverse=True)


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(2, 8), min_size=1, max_size=6), count=st.integers(1, 3),
       topology=st.sampled_from(migration.TOPOLOGIES), seed=st.integers(0, 2**32 - 1))
def test_migration_keeps_island_sizes_and_each_islands_best(sizes, count, topology, seed):
    islands, next_id = [], 0
    rng = np.random.default_rng(seed)
    for size in sizes:
        islands.append([_Ind(next_id + i, (int(rng.integers(10)), 0)) for i in range(size)])
        next_id += size
    after = migration.migrate(islands, count, topology, np.random.default_rng(seed))
    assert [len(p) for p in after] == sizes
    for before, now in zip(islands, after):
        best = max(before, key=lambda m: m.fitness)
        assert max(now, key=lambda m: m.fitness).fitness >= best.fitness  # nobody loses its best
    if len(sizes) > 1:
        routes = migration.destinations(topology, len(sizes), np.random.default_rng(seed))
        assert all(i not in targets and targets for i, targets in enumerate(routes))
