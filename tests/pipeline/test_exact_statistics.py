"""generations.parquet's statistics are exactly rounded: the same bits on any CPU, in any order."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from operators.kind import mean_pairwise_l1
from pipeline.evolution.members import sequential_sum
from pipeline.records.schema import exact_mean_std

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(st.lists(finite, min_size=1, max_size=200), st.randoms(use_true_random=False))
def test_mean_and_std_do_not_depend_on_the_order_of_the_values(values, random):
    shuffled = list(values)
    random.shuffle(shuffled)
    assert exact_mean_std(shuffled) == exact_mean_std(values)


@given(st.lists(finite, min_size=1, max_size=200))
def test_the_mean_is_the_exact_mean_correctly_rounded_and_the_std_agrees_with_numpy(values):
    mean, std = exact_mean_std(values)
    assert mean == float(Fraction(math.fsum(values)) / len(values))  # one rounding of the exact sum
    assert math.isclose(std, float(np.std(values)), rel_tol=1e-9, abs_tol=1e-9)


@given(st.lists(st.lists(finite, min_size=3, max_size=3), min_size=2, max_size=30), st.randoms(use_true_random=False))
def test_diversity_does_not_depend_on_the_order_of_the_genomes(rows, random):
    shuffled = list(rows)
    random.shuffle(shuffled)
    assert mean_pairwise_l1(np.asarray(shuffled)) == mean_pairwise_l1(np.asarray(rows))


@given(st.lists(finite, max_size=50))
def test_a_weighted_fitness_is_summed_left_to_right_on_every_python(values):
    """Python 3.12's `sum` of floats compensates; 3.11's did not. The fitness keeps 3.11's bits."""
    total = 0.0
    for value in values:
        total = float(np.float64(total) + np.float64(value))  # one IEEE rounding an addition
    assert sequential_sum(values) == total


@given(st.lists(st.lists(st.integers(0, 11), min_size=1, max_size=12), min_size=1, max_size=6))
def test_diversity_from_identities_kept_between_rows_is_the_kind_s_spread(populations):
    """`Schema` keeps each genome's identity from one generation's row to the next: each row's
    diversity is still `kind.spread` of that population (genomes kept, new ones, equal copies)."""
    from types import SimpleNamespace

    from operators.kind import GenomeKind
    from pipeline.records.schema import Schema

    pool = [np.array([bool(i & 1), bool(i & 2), bool(i & 4)]) for i in range(12)]  # 12 objects, 8 genomes
    kind = GenomeKind(name="bits", init=None, crossover=None, mutate=None, to_record=lambda g: g.tolist(),
                      from_record=np.array)
    schema = Schema("run-1", kind, SimpleNamespace(mode="weighted"))
    for population in populations:
        genomes = [pool[i] for i in population]
        assert schema._diversity(genomes) == kind.spread(genomes)
        assert len(schema._identities) == len({id(g) for g in genomes})  # the last row's, no more
