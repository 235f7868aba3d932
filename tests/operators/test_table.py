"""Table genomes: rows stay probability vectors under any operators; records are exact."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operators import table as ops

SIGMAS = st.one_of(st.floats(0, 10), st.sampled_from([0.0, 1e-300, 1e3, 1e300, 1.7e308]))


def _assert_valid(t, shape):
    assert t.shape == shape and t.dtype == np.float64
    assert np.isfinite(t).all() and (t >= 0).all()
    assert np.abs(t.sum(axis=1) - 1).max() <= 1e-9


@settings(max_examples=60, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 16), st.integers(1, 5)),
    seed=st.integers(0, 2**32 - 1),
    alpha=st.sampled_from([1e-3, 0.1, 1.0, 50.0]),
    sigma=SIGMAS,
    steps=st.lists(st.sampled_from(["gaussian", "zero-to-best", "transfer", "one-hot", "fusion", "row-uniform",
                                    "repair"]),
                   min_size=1, max_size=60),
)
def test_rows_stay_probabilities_under_any_operator_sequence(shape, seed, alpha, sigma, steps):
    rng = np.random.default_rng(seed)
    population = [ops.random_table(shape, rng, alpha=alpha) for _ in range(4)]
    for t in population:
        _assert_valid(t, shape)
    for name in steps:
        i, j = rng.integers(len(population), size=2)
        a, b = population[i], population[j]
        before = (a.copy(), b.copy())
        if name == "gaussian":
            children = [ops.mut_gaussian(a, rng, sigma=sigma)]
        elif name in ("zero-to-best", "transfer", "one-hot"):
            children = [ops.MUTATIONS[name](a, rng)]
        elif name in ops.CROSSOVERS:
            children = list(ops.CROSSOVERS[name](a, b, rng))
        else:
            children = [ops.repair(a)]
        np.testing.assert_array_equal(a, before[0])  # parents untouched
        np.testing.assert_array_equal(b, before[1])
        for child in children:
            _assert_valid(child, shape)
            again = ops.from_record(json.loads(json.dumps(ops.to_record(child))))
            assert again.tobytes() == child.tobytes()
        population[i] = children[0]


@settings(max_examples=40, deadline=None)
@given(shape=st.tuples(st.integers(1, 16), st.integers(2, 5)), seed=st.integers(0, 2**32 - 1),
       alpha=st.sampled_from([0.1, 1.0, 50.0]))
def test_repeated_transfers_reach_a_pure_row_and_bring_back_a_dead_column(shape, seed, alpha):
    rng = np.random.default_rng(seed)
    table = ops.random_table(shape, rng, alpha=alpha)
    pure = revived = False
    for _ in range(5_000):
        child = ops.mut_transfer(table, rng)
        assert np.count_nonzero((child != table).any(axis=1)) <= 1  # one row at a time
        revived |= bool(((table == 0) & (child > 0)).any())
        table = child
        pure |= bool((table.max(axis=1) == 1.0).any())
        if pure and revived:
            break
    assert pure and revived


def test_one_hot_mutation_makes_one_row_pure_and_leaves_the_others():
    rng = np.random.default_rng(3)
    table = ops.random_table((8, 4), rng)
    child = ops.mut_one_hot(table, rng)
    changed = np.flatnonzero((child != table).any(axis=1))
    assert len(changed) <= 1
    assert (child.max(axis=1) == 1.0).sum() >= 1 and set(np.unique(child[changed])) <= {0.0, 1.0}


def test_gaussian_mutation_adds_mass_then_renormalises():
    rng = np.random.default_rng(0)
    one_hot = np.zeros((16, 3))
    one_hot[:, 1] = 1.0
    np.testing.assert_allclose(ops.mut_gaussian(one_hot, rng, sigma=0.0), one_hot)
    small = ops.mut_gaussian(one_hot, rng, sigma=0.01)
    assert (small[:, 1] > 0.95).all() and (small[:, 1] < 1).all()
    huge = ops.mut_gaussian(one_hot, rng, sigma=1e300)  # the one-hot is swamped: noise only
    assert (huge[:, 1] < 1 - 1e-9).any() and (huge > 0).all()
    with pytest.raises(ValueError, match="sigma"):
        ops.mut_gaussian(one_hot, rng, sigma=float("inf"))


def test_zero_to_best_moves_one_entrys_mass_to_its_rows_best():
    rng = np.random.default_rng(1)
    parent = ops.random_table((16, 4), rng)
    for _ in range(50):
        child = ops.mut_zero_to_best(parent, rng)
        changed = np.flatnonzero(np.abs(child - parent).max(axis=1) > 0)
        assert len(changed) == 1
        r = changed[0]
        best = parent[r].argmax()
        zeroed = np.flatnonzero((child[r] == 0) & (parent[r] > 0))
        assert len(zeroed) == 1 and zeroed[0] != best
        assert child[r, best] == pytest.approx(parent[r, best] + parent[r, zeroed[0]])
    single = np.ones((3, 1))
    np.testing.assert_array_equal(ops.mut_zero_to_best(single, rng), single)


def test_fusion_averages_and_row_uniform_swaps_whole_rows():
    rng = np.random.default_rng(2)
    a, b = ops.random_table((16, 3), rng), ops.random_table((16, 3), rng)
    child, twin = ops.cx_fusion(a, b, rng)
    np.testing.assert_allclose(child, (a + b) / 2, atol=1e-15)
    np.testing.assert_array_equal(child, twin)
    one, two = ops.cx_row_uniform(a, b, rng)
    from_a = (one == a).all(axis=1)
    assert ((one == b).all(axis=1) == ~from_a).all() and 0 < from_a.sum() < 16
    np.testing.assert_array_equal(np.where(from_a[:, None], b, a), two)
    same = ops.cx_row_uniform(a, b, rng, p=0.0)
    np.testing.assert_array_equal(same[0], a)
    np.testing.assert_array_equal(same[1], b)


def test_repair_cleans_nans_negatives_and_dead_rows():
    bad = np.array([[np.nan, 1.0, 1.0], [-1.0, 0.0, 0.0], [np.inf, 2.0, 2.0], [1e308, 1e308, 0.0]])
    fixed = ops.repair(bad)
    _assert_valid(fixed, (4, 3))
    np.testing.assert_allclose(fixed, [[0, 0.5, 0.5], [1 / 3] * 3, [0, 0.5, 0.5], [0.5, 0.5, 0]])


def test_records_round_trip_exactly_through_parquet_and_pandas(tmp_path):
    rng = np.random.default_rng(3)
    tables = [ops.mut_gaussian(ops.random_table((16, 3), rng), rng, sigma=0.3) for _ in range(4)]
    frame = pa.table({"genome": [ops.to_record(t) for t in tables]})
    path = tmp_path / "g.parquet"
    pq.write_table(frame, path)
    for record, t in zip(pd.read_parquet(path)["genome"], tables):
        assert ops.from_record(record).tobytes() == t.tobytes()


@pytest.mark.parametrize("record", [[], [[0.5, 0.5], [1.0]], [0.5, 0.5], "table"])
def test_from_record_refuses_what_is_not_a_table(record):
    with pytest.raises(ValueError, match="table record"):
        ops.from_record(record)
