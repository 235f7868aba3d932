"""A genome kind's identities and log column: what dedup and resume rely on."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

from operators.kind import GenomeKind, array_key, bool_lists, same_record

bool_arrays = st.lists(st.booleans(), min_size=0, max_size=70).map(lambda bits: np.array(bits, dtype=bool))


@given(bool_arrays, bool_arrays)
def test_bool_genomes_share_a_key_exactly_when_they_are_equal(a, b):
    same = a.shape == b.shape and bool(np.array_equal(a, b))
    assert (array_key(a, None) == array_key(b, None)) == same
    assert array_key(a, None) == array_key(a.copy(), None)
    if a.size:
        assert array_key(a[::-1], None) == array_key(np.ascontiguousarray(a[::-1]), None)  # a view keys by value


def _kind(record_array) -> GenomeKind:
    return GenomeKind("bits", init=None, crossover=None, mutate=None, to_record=lambda g: g.tolist(),
                      from_record=np.asarray, record_type=pa.list_(pa.bool_()), record_array=record_array)


@settings(deadline=None)  # its first example pays pyarrow's first calls (1.7-2.4 s on a loaded machine)
@given(st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=1, max_size=6))
def test_a_record_array_that_agrees_with_to_record_is_the_column(rows):
    genomes = [np.array(row, dtype=bool) for row in rows]
    column = _kind(bool_lists).records(genomes)
    assert column.equals(_kind(None).records(genomes))


@pytest.mark.parametrize("wrong, said", [
    (lambda genomes: bool_lists(genomes[:-1]), "gave 1 values of list<item: bool> for 2 genomes"),
    (lambda genomes: bool_lists(genomes[::-1]), "gave 2 values of list<item: bool> for 2 genomes"),
    (lambda genomes: pa.array([[1, 0, 1], [0, 0, 0]]), "gave 2 values of list<item: int64> for 2 genomes"),
    (lambda genomes: [g.tolist() for g in genomes], "gave list for 2 genomes"),
])
def test_a_record_array_that_disagrees_with_to_record_is_refused_by_name(wrong, said):
    genomes = [np.array([True, False, True]), np.array([False, False, False])]
    with pytest.raises(ValueError, match="genome kind 'bits': record_array") as error:
        _kind(wrong).records(genomes)
    assert said in str(error.value)


@given(st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=2, max_size=2),
                min_size=1, max_size=5))
def test_a_record_array_of_real_genomes_with_nan_checks_against_itself(rows):
    genomes = [np.array(row) for row in rows]
    kind = GenomeKind("reals", init=None, crossover=None, mutate=None, to_record=lambda g: g.tolist(),
                      from_record=np.asarray, record_type=pa.list_(pa.float64()),
                      record_array=lambda gs: pa.array([g.tolist() for g in gs], type=pa.list_(pa.float64())))
    assert len(kind.records(genomes)) == len(genomes)  # accepted: a NaN in a record equals itself


@given(st.recursive(st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=3), st.booleans()),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                    max_leaves=10))
def test_same_record_is_equality_with_nan_equal_to_itself(record):
    assert same_record(record, record)
    as_tuples = (lambda r: tuple(r) if isinstance(r, list) else r)(record)
    assert same_record(record, as_tuples)
    assert not same_record(record, [record])
    assert not same_record([1.0, float("nan")], [1.0, 2.0]) and not same_record({"a": 1}, {"b": 1})


def test_same_record_walks_what_python_equality_cannot_tell():
    nan = float("nan")
    assert same_record([1.0, nan], [1.0, float("nan")]) and same_record({"a": [nan]}, {"a": [float("nan")]})
    assert same_record([np.array([1.0, 2.0])], [[1.0, 2.0]])  # an array inside: == is element-wise
    assert not same_record([np.array([1.0, 2.0])], [[1.0, 3.0]])
    assert same_record([True, False] * 2_000, np.array([True, False] * 2_000))
    assert not same_record([True, False] * 2_000, [True, False] * 1_999 + [True, True])
