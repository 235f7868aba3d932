"""Tournaments by precomputed ranks pick exactly what a max over DEAP fitnesses picks."""

import numpy as np
from deap import base
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evolution import Evolution
from pipeline.members import Member


class _TwoObjectives(base.Fitness):
    weights = (1.0, -1.0)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=30),
       seed=st.integers(0, 2**32 - 1), size=st.integers(1, 5))
def test_rank_tournaments_equal_max_over_fitness_first_among_equals(values, seed, size):
    population = [Member(i, 0, None, [], "init", {}, fitness=_TwoObjectives(v)) for i, v in enumerate(values)]
    ranks = Evolution._tournament_ranks(population)
    entrants = np.random.default_rng(seed).integers(len(population), size=(20, size))
    by_rank = entrants[np.arange(20), ranks[entrants].argmin(axis=1)]
    by_max = [max((population[i] for i in row), key=lambda m: m.fitness).id for row in entrants]
    assert list(by_rank) == by_max
