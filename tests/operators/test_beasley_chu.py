"""Weighted-cover operators: fusion, adaptive mutation and element-by-element repair keep their promises."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.setcover import Instance, beasley_class
from operators.beasley_chu import WeightedCoverOperators, adaptive_flips, flip_among, fuse, repair_rows
from tests.strategies import any_set_cover_instances


def masks(length):
    return st.lists(st.booleans(), min_size=length, max_size=length).map(np.array)


def covers_all(instance, genome):
    return bool((instance.incidence[genome].any(axis=0) | ~instance.coverable).all())


def redundant(instance, genome):
    chosen = np.flatnonzero(genome)
    counts = instance.incidence[chosen].sum(axis=0)
    return [int(j) for j in chosen if (counts[instance.incidence[j]] >= 2).all()]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(masks(n), masks(n))), st.integers(0, 100),
       st.integers(0, 100), st.integers(0, 2**32 - 1))
def test_fusion_keeps_common_bits_and_takes_the_rest_from_a_parent(parents, cost_a, cost_b, seed):
    a, b = parents
    child = fuse(a, b, cost_a, cost_b, np.random.default_rng(seed))
    assert np.array_equal(child[a == b], a[a == b])
    assert child.dtype == np.bool_ and child.shape == a.shape


def test_fusion_favours_the_cheaper_parent_in_proportion():
    a, b = np.zeros(20_000, dtype=bool), np.ones(20_000, dtype=bool)
    child = fuse(a, b, 10, 30, np.random.default_rng(1))  # a is cheaper: each bit from a with p = 30/40
    assert np.mean(~child) == pytest.approx(0.75, abs=0.02)
    assert fuse(a, b, 0, 0, np.random.default_rng(1)).mean() == pytest.approx(0.5, abs=0.02)


def test_adaptive_flips_grow_as_the_parents_agree():
    counts = [adaptive_flips(d) for d in range(0, 60)]
    assert counts == sorted(counts, reverse=True)  # never more flips for more different parents
    assert counts[0] == 10 and counts[10] == 5 and counts[-1] == 1
    assert adaptive_flips(0, most=3.5) == 4 and adaptive_flips(10**9) == 1


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(masks(n), masks(n))), st.integers(0, 50),
       st.integers(0, 2**32 - 1))
def test_flip_among_flips_that_many_distinct_allowed_bits(pair, flips, seed):
    genome, allowed = pair
    child = flip_among(genome, allowed, flips, np.random.default_rng(seed))
    changed = child != genome
    assert not (changed & ~allowed).any()
    assert changed.sum() == min(flips, allowed.sum())


@settings(max_examples=120, deadline=None)
@given(any_set_cover_instances(max_n=15, max_lists=12), st.data())
def test_repair_rows_covers_without_redundancy_and_respects_allowed_and_avoid(instance, data):
    L = instance.n_lists
    genome, allowed, avoid = (data.draw(masks(L)) for _ in range(3))
    repaired = repair_rows(instance, genome, allowed, avoid)
    assert covers_all(instance, repaired) and redundant(instance, repaired) == []
    added = repaired & ~genome
    # outside the allowed lists (or among the avoided ones) only for an element none of the others holds
    held_by_allowed = instance.incidence[allowed].any(axis=0)
    for j in np.flatnonzero(added & ~allowed):
        assert (instance.incidence[j] & ~held_by_allowed).any()
    usable = allowed & ~avoid
    held_by_usable = instance.incidence[usable].any(axis=0)
    for j in np.flatnonzero(added & avoid & allowed):
        assert (instance.incidence[j] & ~held_by_usable).any()


def test_repair_rows_takes_the_cheapest_cost_per_newly_covered_element():
    # element 0 first: list 2 costs 3 for elements {0, 1, 2} (1 each) against list 0's 2 for {0} alone
    instance = Instance(4, [[0], [1, 2], [0, 1, 2], [3], [2, 3]], costs=[2, 1, 3, 1, 5])
    repaired = repair_rows(instance, np.zeros(5, dtype=bool))
    assert np.flatnonzero(repaired).tolist() == [2, 3]
    # then the dearest redundant list goes first: with everything chosen, 4 (5) and 2 (3) go
    assert np.flatnonzero(repair_rows(instance, np.ones(5, dtype=bool))).tolist() == [0, 1, 3]


def test_repair_rows_reaches_the_optimum_of_a_tiny_weighted_instance_from_any_start():
    instance = Instance(3, [[0, 1, 2], [0], [1], [2]], costs=[5, 1, 1, 1])
    for bits in itertools.product([False, True], repeat=4):
        repaired = repair_rows(instance, np.array(bits))
        assert covers_all(instance, repaired) and redundant(instance, repaired) == []
    assert np.flatnonzero(repair_rows(instance, np.zeros(4, dtype=bool))).tolist() == [1, 2, 3]


def test_the_operators_bound_to_an_instance_make_covers_from_useful_lists():
    instance = beasley_class("4", seed=11)
    ops = WeightedCoverOperators(instance)
    rng = np.random.default_rng(5)
    population = ops.init(30, rng)
    assert len(population) == 30 and len({p.tobytes() for p in population}) == 30
    children = [ops.crossover(population[i], population[i + 1], rng) for i in range(10)]
    mutants = [(population[i], ops.mutate(population[i], rng)) for i in range(10)]
    assert all(np.count_nonzero(parent != mutant) == 10 for parent, mutant in mutants)  # flips = 10 by default
    children += [ops.repair(mutant, avoid=parent & ~mutant) for parent, mutant in mutants]
    for genome in population + children:
        assert covers_all(instance, genome) and redundant(instance, genome) == []
        assert not (genome & ~ops.allowed).any()
    with pytest.raises(ValueError, match="flips >= 1"):
        WeightedCoverOperators(instance, flips=0)


def test_init_fills_the_population_even_where_few_covers_exist():
    instance = Instance(2, [[0], [1]], costs=[1, 1])
    population = WeightedCoverOperators(instance).init(5, np.random.default_rng(0))
    assert len(population) == 5 and all(p.tolist() == [True, True] for p in population)


def test_optimal_recombination_is_never_dearer_than_the_cheaper_parent():
    instance = beasley_class("4", seed=12)
    ops = WeightedCoverOperators(instance)
    rng = np.random.default_rng(2)
    population = ops.init(20, rng)
    for i in range(0, 20, 2):
        a, b = population[i], population[i + 1]
        child = ops.recombine(a, b, rng)
        assert covers_all(instance, child) and not (child & ~(a | b | ops.allowed)).any()
        assert ops.cost(child) <= min(ops.cost(a), ops.cost(b))


def test_optimal_recombination_of_parents_that_cover_too_little_falls_back_to_repair():
    instance = Instance(3, [[0], [1], [2], [0, 1, 2]], costs=[1, 1, 1, 5])
    ops = WeightedCoverOperators(instance)
    nothing = np.zeros(4, dtype=bool)
    child = ops.recombine(nothing, nothing, np.random.default_rng(0))
    assert covers_all(instance, child)
