"""Bitstring genome kind: operator invariants (hypothesis), record round trip, controllers, toolbox."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fitness.setcover import score
from operators.bitstring import (
    CROSSOVERS,
    cx_one_point,
    cx_two_point,
    cx_uniform,
    from_record,
    init_greedy,
    init_sparse,
    mut_asymmetric,
    mut_flip,
    repair,
    to_record,
)
from tests.strategies import set_cover_instances


def instances(max_n=15, max_lists=12):
    return set_cover_instances(max_n=max_n, max_lists=max_lists)


def redundant_lists(instance, genome):
    chosen = np.flatnonzero(genome)
    rows = instance.incidence[chosen]
    counts = rows.sum(axis=0)
    return [int(j) for j, row in zip(chosen, rows) if (counts[row] >= 2).all()]


OPERATIONS = ["one_point", "two_point", "uniform", "flip", "asymmetric", "greedy", "repair"]


@settings(max_examples=120, deadline=None)
@given(instances(), st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=25), st.integers(0, 2**32 - 1))
def test_operator_invariants_over_random_sequences(instance, operations, seed):
    rng = np.random.default_rng(seed)
    L = instance.n_lists
    population = [init_sparse(L, rng, 0.3) for _ in range(4)]
    for operation in operations:
        i, j = rng.integers(len(population), size=2)
        a, b = population[i], population[j]
        before = (a.copy(), b.copy())
        if operation in CROSSOVERS:
            children = list(CROSSOVERS[operation](a, b, rng))
            for child, parent_a, parent_b in ((children[0], a, b), (children[1], b, a)):
                # every position comes from one parent; the pair together keeps both parents' bits
                assert ((child == parent_a) | (child == parent_b)).all()
            assert np.array_equal(children[0] ^ children[1], a ^ b)
        elif operation == "flip":
            children = [mut_flip(a, rng, float(rng.random()) * 0.5)]
            assert (children[0] != a).any()
        elif operation == "asymmetric":
            children = [mut_asymmetric(a, rng, float(rng.uniform(0.5, 4)))]
            assert (children[0] != a).any()
        elif operation == "greedy":
            children = [init_greedy(a, rng, 1.0)]
        else:
            children = [repair(instance, a, avoid=b if rng.random() < 0.5 else None)]
            covered = instance.incidence[children[0]].any(axis=0)
            assert np.array_equal(covered, instance.coverable)
            assert redundant_lists(instance, children[0]) == []
            if instance.coverable.all():
                assert score(instance, children[0][None, :]).feasible[0]
        assert np.array_equal(a, before[0]) and np.array_equal(b, before[1]), "parents must not change"
        for child in children:
            assert child.dtype == np.bool_ and child.shape == (L,)
            assert np.array_equal(from_record(to_record(child)), child)
        population.extend(children)


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(bool, st.integers(1, 400)))
def test_record_round_trip_is_exact_through_parquet(tmp_path_factory, genome):
    record = to_record(genome)
    assert isinstance(record, list) and all(type(bit) is bool for bit in record)
    path = tmp_path_factory.mktemp("rec") / "g.parquet"
    pq.write_table(pa.table({"genome": [record]}), path)
    back = pq.read_table(path).column("genome").to_pylist()[0]
    restored = from_record(back)
    assert restored.dtype == np.bool_ and np.array_equal(restored, genome)


@pytest.mark.parametrize("record", [[], [0, 1], [[True]], ["x"], [1.0]])
def test_from_record_rejects_what_is_not_a_bitstring(record):
    with pytest.raises(ValueError, match="bitstring record"):
        from_record(record)


def test_crossover_shapes():
    rng = np.random.default_rng(3)
    a, b = np.zeros(50, dtype=bool), np.ones(50, dtype=bool)
    for _ in range(50):
        first, _ = cx_one_point(a, b, rng)
        cut = int(np.argmax(first))
        assert 1 <= cut <= 49 and first[cut:].all() and not first[:cut].any()
        first, _ = cx_two_point(a, b, rng)
        ones = np.flatnonzero(first)
        assert ones.size == 0 or np.array_equal(ones, np.arange(ones[0], ones[-1] + 1))
    swapped = [cx_uniform(a, b, rng, p=0.2)[0].mean() for _ in range(200)]
    assert 0.17 < np.mean(swapped) < 0.23


def test_flip_rate_and_at_least_one_flip():
    rng = np.random.default_rng(0)
    genome = np.zeros(2000, dtype=bool)
    flips = [np.count_nonzero(mut_flip(genome, rng, 0.01)) for _ in range(300)]
    assert 18 < np.mean(flips) < 22
    assert all(np.count_nonzero(mut_flip(genome, rng, 0.0)) == 1 for _ in range(20))


def test_asymmetric_mutation_removes_as_often_as_it_adds_on_sparse_genomes():
    rng = np.random.default_rng(1)
    genome = np.zeros(1000, dtype=bool)
    genome[:10] = True
    mutants = [mut_asymmetric(genome, rng, 2.0) for _ in range(2000)]
    removed = np.mean([np.count_nonzero(genome & ~m) for m in mutants])
    added = np.mean([np.count_nonzero(m & ~genome) for m in mutants])
    assert 1.8 < removed < 2.2 and 1.8 < added < 2.2
    # plain flips at the same expected total barely ever remove a chosen list
    plain = [mut_flip(genome, rng, 4 / 1000) for _ in range(2000)]
    assert np.mean([np.count_nonzero(genome & ~m) for m in plain]) < 0.1


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(1, 300), p=st.floats(0.0, 1.0))
def test_uniform_child_is_cx_uniform_first_child_from_the_same_draws(seed, length, p):
    from operators.bitstring import uniform_child

    source = np.random.default_rng(seed)
    a, b = source.random(length) < 0.5, source.random(length) < 0.3
    first, _ = cx_uniform(a, b, np.random.default_rng(seed), p=p)
    assert np.array_equal(uniform_child(a, b, np.random.default_rng(seed), p=p), first)
