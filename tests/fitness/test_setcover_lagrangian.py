"""The Lagrangian relaxation and the exact sub-cover search, against brute force on small instances."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.setcover import Instance, beasley_class
from fitness.setcover.lagrangian import relax
from fitness.setcover.subcover import cheapest_subcover
from tests.strategies import any_set_cover_instances


def is_cover(instance, mask):
    return bool((instance.incidence[mask].any(axis=0) | ~instance.coverable).all())


def cheapest(instance, lists):
    """Brute force: the least cost of a cover using only `lists` (None if they cover too little)."""
    best = None
    for r in range(len(lists) + 1):
        for subset in itertools.combinations(lists, r):
            mask = np.zeros(instance.n_lists, dtype=bool)
            mask[list(subset)] = True
            if is_cover(instance, mask):
                cost = int(instance.list_costs[mask].sum())
                best = cost if best is None else min(best, cost)
    return best


@settings(max_examples=60, deadline=None)
@given(any_set_cover_instances(max_n=9, max_lists=9))
def test_the_bound_never_exceeds_the_optimum_and_the_covers_are_covers(instance):
    relaxation = relax(instance)
    optimum = cheapest(instance, range(instance.n_lists))
    assert relaxation.bound <= optimum + 1e-6
    assert relaxation.upper >= optimum
    assert all(is_cover(instance, cover) for cover in relaxation.covers)
    costs = [int(instance.list_costs[cover].sum()) for cover in relaxation.covers]
    assert costs == sorted(costs) and costs[0] == relaxation.upper


@settings(max_examples=60, deadline=None)
@given(any_set_cover_instances(max_n=9, max_lists=9))
def test_the_useful_lists_hold_a_cover_as_cheap_as_any(instance):
    """Reduced-cost fixing loses nothing: an optimal cover can be made from the useful lists alone."""
    useful = relax(instance).useful()
    assert cheapest(instance, np.flatnonzero(useful).tolist()) == cheapest(instance, range(instance.n_lists))


def test_the_relaxation_is_tight_on_a_beasley_instance():
    instance = beasley_class("4", seed=11)  # optimum 429 (HiGHS)
    relaxation = relax(instance)
    assert 420 <= relaxation.bound <= 429 <= relaxation.upper <= 440
    assert relaxation.useful().sum() < instance.n_lists / 2  # most lists cannot be in a better cover


@settings(max_examples=80, deadline=None)
@given(any_set_cover_instances(max_n=9, max_lists=9), st.data())
def test_cheapest_subcover_matches_brute_force(instance, data):
    pool = np.array(data.draw(st.lists(st.booleans(), min_size=instance.n_lists, max_size=instance.n_lists)))
    found = cheapest_subcover(instance, pool)
    best = cheapest(instance, np.flatnonzero(pool).tolist())
    if best is None:
        assert found is None
    else:
        assert is_cover(instance, found) and not (found & ~pool).any()
        assert int(instance.list_costs[found].sum()) == best


def test_cheapest_subcover_keeps_the_incumbent_among_equals():
    instance = Instance(2, [[0], [1], [0, 1]], costs=[1, 1, 2])
    pool = np.ones(3, dtype=bool)
    both = np.array([False, False, True])
    assert cheapest_subcover(instance, pool, incumbent=both).tolist() == both.tolist()
    assert cheapest_subcover(instance, pool).tolist() == [True, True, False]  # the greedy's, found first


def test_an_incumbent_that_is_no_cover_is_ignored():
    instance = Instance(2, [[0], [1], [0, 1]], costs=[1, 1, 5])
    found = cheapest_subcover(instance, np.ones(3, dtype=bool), incumbent=np.array([True, False, False]))
    assert found.tolist() == [True, True, False]
