"""Weighted instances: OR-Library files read exactly, malformed ones refused in one line; costs in JSON;
Beasley's recipe keeps its promises."""

import json

import numpy as np
import pytest
from hypothesis import given, settings

from fitness.setcover import BEASLEY_CLASSES, Instance, beasley, beasley_class, format_orlib, read_orlib, score
from fitness.setcover.orlib import _read_slowly
from tests.strategies import set_cover_instances

# 3 rows, 4 columns; numbers wrapped over lines at will, as OR-Library's files do.
SMALL = """ 3 4
 2 3 4
 5
 2
 1 2
 3 2 3
 4
 1 4
"""


def test_an_orlib_file_reads_rows_as_elements_and_columns_as_lists(tmp_path):
    path = tmp_path / "small.txt"
    path.write_text(SMALL)
    instance = Instance.load(path)
    assert instance.N == 3
    # column j (1-based in the file) is list j - 1; rows become elements 0..2
    assert instance.lists == ((0,), (0, 1), (1,), (1, 2))
    assert instance.costs == (2, 3, 4, 5)
    assert instance.list_costs.tolist() == [2, 3, 4, 5] and instance.sizes.tolist() == [1, 2, 1, 2]
    assert not instance.size_costs


@settings(max_examples=60, deadline=None)
@given(set_cover_instances(max_n=15, max_lists=12, weighted=True, coverable=True))
def test_orlib_round_trip(tmp_path_factory, instance):
    path = tmp_path_factory.mktemp("orlib") / "i.txt"
    path.write_text(format_orlib(instance))
    # the format lists each row's columns, so a list comes back with its elements in ascending order
    assert Instance.load(path) == Instance(instance.N, [sorted(lst) for lst in instance.lists], instance.costs)


@settings(max_examples=60, deadline=None)
@given(set_cover_instances(max_n=15, max_lists=12, weighted=True, coverable=True))
def test_the_fast_reader_agrees_with_the_number_by_number_one(instance):
    data = format_orlib(instance).encode()
    assert read_orlib(data) == _read_slowly(data)


def test_format_refuses_an_element_no_list_holds():
    with pytest.raises(ValueError, match="element 1 is in no list"):
        format_orlib(Instance(2, [[0]]))


@pytest.mark.parametrize(("content", "words"), [
    ("", "line 1: the file must start with the number of rows and of columns"),
    ("3\n", "line 1: the file must start with the number of rows and of columns"),
    ("0 4\n1 1 1 1\n", "line 1: rows and columns must be >= 1, got m = 0, n = 4"),
    ("3 4\n2 3 4\n", "line 2: the file ends after 3 of the 4 column costs"),
    ("3 4\n2 -3 4 5\n1 1\n1 1\n1 1\n", "line 2: column 2 costs -3; costs must be >= 0"),
    ("3 4\n2 3 4 5\n1 1\n0\n1 1\n", "line 4: row 2 is covered by 0 columns; every row needs at least one"),
    ("3 4\n2 3 4 5\n1 1\n2 1\n5\n1 1\n", "line 5: row 2: column 5 is outside 1..4"),
    ("3 4\n2 3 4 5\n1 0\n1 1\n1 1\n", "line 3: row 1: column 0 is outside 1..4"),
    ("3 4\n2 3 4 5\n2 1 1\n1 1\n1 1\n", "line 3: row 1 lists column 1 twice"),
    ("3 4\n2 3 4 5\n1 1\n3 1 2\n", "line 4: the file ends in row 2, after 2 of the 3 columns it lists"),
    ("3 4\n2 3 4 5\n1 1\n1 2\n", "line 4: the file ends after 2 of the 3 rows"),
    ("2 4\n2 3 4 5\n1 1\n1 2\n1 3\n", "line 5: 2 more numbers after the last of the 2 rows"),
    ("3 4\n2 3.5 4 5\n", "line 2: '3.5' is not an integer"),
    ("3 4\n2 3 4 5\n1 x\n", "line 3: 'x' is not an integer"),
])
def test_a_malformed_orlib_file_is_one_line_naming_file_line_and_fault(tmp_path, content, words):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(ValueError) as caught:
        Instance.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and words in message, message
    assert "\n" not in message


def test_json_may_carry_costs_and_save_keeps_them(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"costs": [4, 1, 1], "lists": [[0, 1], [0], [1]]}))
    instance = Instance.load(path)
    assert instance.N == 2 and instance.costs == (4, 1, 1)
    instance.save(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["costs"] == [4, 1, 1]
    assert Instance.load(tmp_path / "again.json") == instance


def test_a_json_file_is_read_as_json_whatever_its_name(tmp_path):
    path = tmp_path / "lists.txt"
    path.write_text('{"lists": [[0], [1]], "costs": [1, 1]}')
    assert Instance.load(path).costs == (1, 1)


@pytest.mark.parametrize(("costs", "words"), [
    ([1], "costs has 1 entries for 2 lists"),
    ([1, -2], "cost 1: -2 is not a non-negative integer"),
    ([1, 2.5], "cost 1: 2.5 is not a non-negative integer"),
    ([True, 1], "cost 0: True is not a non-negative integer"),
    ("12", "costs must be a sequence"),
])
def test_bad_json_costs_are_one_line(tmp_path, costs, words):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"lists": [[0], [1]], "costs": costs}))
    with pytest.raises(ValueError) as caught:
        Instance.load(path)
    assert str(caught.value).startswith(f"{path}: ") and words in str(caught.value)


def test_without_costs_a_list_costs_its_size():
    instance = Instance(3, [[0, 1], [2]])
    assert instance == Instance(3, [[0, 1], [2]], costs=[2, 1]) != Instance(3, [[0, 1], [2]], costs=[1, 1])
    assert instance.size_costs and instance.costs == (2, 1)


@settings(max_examples=60, deadline=None)
@given(set_cover_instances(max_n=12, max_lists=10, weighted=True))
def test_score_charges_each_chosen_list_its_cost(instance):
    rng = np.random.default_rng(instance.n_lists)
    population = rng.random((20, instance.n_lists)) < 0.4
    scores = score(instance, population)
    for genome, cost in zip(population, scores.cost):
        assert cost == sum(instance.costs[j] for j in np.flatnonzero(genome))


@pytest.mark.parametrize("name", sorted(BEASLEY_CLASSES))
def test_beasley_recipe_keeps_its_promises(name):
    rows, columns, density, unicost = BEASLEY_CLASSES[name]
    instance = beasley_class(name, seed=3)
    assert (instance.N, instance.n_lists) == (rows, columns)
    assert (instance.sizes >= 1).all()  # every column covers a row
    assert (instance.incidence.sum(axis=0) >= 2).all()  # every row has two columns
    assert instance.incidence.mean() == pytest.approx(density, rel=0.1)
    costs = instance.list_costs
    assert (costs == 1).all() if unicost else (costs.min() >= 1 and costs.max() <= 100 and len(set(costs)) > 50)
    assert beasley_class(name, seed=3) == instance != beasley_class(name, seed=4)


def test_beasley_refuses_impossible_shapes():
    with pytest.raises(ValueError, match="density"):
        beasley(10, 20, 0.0, seed=1)
    with pytest.raises(ValueError, match="unknown class 'Z'"):
        beasley_class("Z", seed=1)
