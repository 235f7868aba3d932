"""A genome kind's identities and log column: what dedup and resume rely on."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, strategies as st

from operators.kind import GenomeKind, array_key, bool_lists

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
