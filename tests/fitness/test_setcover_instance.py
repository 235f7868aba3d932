"""Instance: derived arrays agree with the lists; files round-trip; malformed files fail in one line."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from fitness.setcover import Instance, problem
from tests.strategies import set_cover_instances


def instances(max_n=12, max_lists=10):
    return set_cover_instances(max_n=max_n, max_lists=max_lists)


@settings(max_examples=60, deadline=None)
@given(instances())
def test_arrays_agree_with_lists(instance):
    assert instance.incidence.shape == (instance.n_lists, instance.N)
    for j, elements in enumerate(instance.lists):
        assert set(np.flatnonzero(instance.incidence[j])) == set(elements)
        assert instance.sizes[j] == len(elements)
        assert set(instance.members[j]) == set(elements)
        unpacked = np.unpackbits(instance.packed[j].view(np.uint8), bitorder="little")[: instance.N]
        assert np.array_equal(unpacked.astype(bool), instance.incidence[j])
    assert np.array_equal(instance.incidence_t, instance.incidence.T)
    assert set(np.flatnonzero(instance.coverable)) == {e for lst in instance.lists for e in lst}


@settings(max_examples=40, deadline=None)
@given(instances())
def test_save_load_and_npy_round_trip(tmp_path_factory, instance):
    folder = tmp_path_factory.mktemp("inst")
    instance.save(folder / "i.json")
    assert Instance.load(folder / "i.json") == instance
    np.save(folder / "i.npy", instance.incidence)
    from_npy = Instance.load(folder / "i.npy")
    assert from_npy.N == instance.N
    assert [set(a) for a in from_npy.lists] == [set(b) for b in instance.lists]


def test_from_problem_matches_problem_and_is_read_only():
    instance = Instance.from_problem(100, 42)
    assert [list(lst) for lst in instance.lists] == problem(100, 42)
    assert instance.n_lists == 427 and instance.coverable.all()
    with pytest.raises(ValueError):
        instance.incidence[0, 0] = not instance.incidence[0, 0]


def test_plain_json_array_infers_N_from_largest_element(tmp_path):
    path = tmp_path / "lists.json"
    path.write_text("[[0, 3], [], [1]]")
    instance = Instance.load(path)
    assert instance.N == 4
    assert instance.lists == ((0, 3), (), (1,))
    assert not instance.coverable[2]


@pytest.mark.parametrize(
    ("name", "content", "problem_words"),
    [
        ("a.json", "not json", "not valid JSON"),
        ("b.json", "", "not valid JSON"),
        ("c.json", "[1, 2]", "list 0 is not an array of integers"),
        ("d.json", "[[[1]]]", "list 0, position 0: [1] is not an integer"),
        ("e.json", "[[0, 1.5]]", "position 1: 1.5 is not an integer"),
        ("f.json", "[[0, true]]", "position 1: True is not an integer"),
        ("g.json", "[[2, -1]]", "element -1 is outside"),
        ("h.json", '{"N": 3, "lists": [[0, 3]]}', "element 3 is outside 0..2"),
        ("i.json", "[]", "non-empty JSON array"),
        ("j.json", "[[]]", "N cannot be inferred"),
        ("k.json", '{"lists": [[0]], "n": 1}', 'keys "lists"'),
        ("l.json", '{"N": "3", "lists": [[0]]}', "N must be an integer"),
        ("m.json", "[[1, 1]]", "list 0 repeats an element"),
        ("n.npy", b"garbage", "not a .npy file"),
        ("o.npy", b"", "not a .npy file"),
    ],
)
def test_malformed_files_raise_one_clear_line(tmp_path, name, content, problem_words):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ValueError) as caught:
        Instance.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and problem_words in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("array", "problem_words"),
    [
        (np.ones((2, 3), dtype=np.int64), "dtype bool"),
        (np.ones(3, dtype=bool), "2-D"),
        (np.ones((0, 3), dtype=bool), "empty"),
        (np.ones((2, 0), dtype=bool), "empty"),
        (np.array([{"a": 1}], dtype=object), "not a plain .npy array"),
    ],
)
def test_malformed_npy_raise_one_clear_line(tmp_path, array, problem_words):
    path = tmp_path / "m.npy"
    np.save(path, array, allow_pickle=True)
    with pytest.raises(ValueError, match=problem_words) as caught:
        Instance.load(path)
    assert str(caught.value).startswith(f"{path}: ") and "\n" not in str(caught.value)


def test_missing_file_is_a_value_error_naming_it(tmp_path):
    with pytest.raises(ValueError, match="nope.json"):
        Instance.load(tmp_path / "nope.json")


def test_equal_instances_hash_equal_and_save_is_json(tmp_path):
    a, b = Instance(3, [[0, 1], [2]]), Instance(3, ((0, 1), (2,)))
    assert a == b and hash(a) == hash(b)
    a.save(tmp_path / "a.json")
    assert json.loads((tmp_path / "a.json").read_text()) == {"N": 3, "lists": [[0, 1], [2]]}


@settings(max_examples=40, deadline=None)
@given(instances())
def test_repr_is_a_short_summary_never_the_lists(instance):
    text = repr(instance)
    assert len(text) < 200 and "\n" not in text
    assert text.startswith(f"Instance(N={instance.N}, lists={instance.n_lists}, density=")
    assert ("costs='sizes'" in text) == instance.size_costs
    assert "source=None" in text  # built from lists in code: no file, no generator


def test_repr_of_the_shipped_instances_names_their_source_in_one_short_line(tmp_path):
    """Issue 44: repr dumped 23-101 KB (every list), in tracebacks, debuggers and notebooks."""
    course = Instance.from_problem(1000, 42)
    assert repr(course) == "Instance(N=1000, lists=3619, density=0.293, costs='sizes', source='problem(1000, seed=42)')"
    scp = Instance.load(Path(__file__).parents[2] / "runs" / "setcover-scp.txt")
    assert repr(scp).startswith("Instance(N=200, lists=1000, density=0.0196, costs='1..100', source='/")
    assert repr(scp).endswith("runs/setcover-scp.txt')")
    deep = tmp_path.joinpath(*["a-long-folder-name"] * 12)
    deep.mkdir(parents=True)
    scp.save(deep / "copy.json")
    copy = Instance.load(deep / "copy.json")
    assert copy == scp and len(repr(copy)) < 200 and repr(copy).endswith("a-long-folder-name/copy.json')")
    assert Instance(course.N, course.lists) == course  # the source is no part of equality
