"""GP operators: every child is a valid, size-limited expression; runs replay exactly;
Python's global random is left as it was."""

import json
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim.expression import parse
from operators import expression as ops


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       steps=st.lists(st.sampled_from(["one-point", *ops.MUTATIONS]), min_size=1, max_size=40),
       limits=st.sampled_from([(6, 20), (10, 60), (12, 80)]), language=st.sampled_from(["v1", "v2"]))
def test_children_are_valid_expressions_within_the_limits(seed, steps, limits, language):
    max_height, max_size = limits
    rng = np.random.default_rng(seed)
    population = [ops.random_expression(rng, 1, 3, language=language) for _ in range(4)]
    for name in steps:
        if ops.MUTATIONS.get(name) in ops.BINDING_MUTATIONS and language == "v1":
            continue  # v1 has no let
        i, j = rng.integers(len(population), size=2)
        limit = {"max_height": max_height, "max_size": max_size, "language": language}
        if name == "one-point":
            children = ops.cx_one_point(population[i], population[j], rng, **limit)
        else:
            children = [ops.MUTATIONS[name](population[i], rng, **limit)]
        for child in children:
            tree = parse(child)  # the fitness layer reads what the operators write
            parents = (population[i], population[j])
            within = tree.height() - 1 <= max_height and tree.size() <= max_size
            # A first population may exceed the limits; no operator grows a tree past them
            # (node replacement and shrink never grow at all).
            parent = parse(population[i])
            no_bigger = name != "one-point" and tree.size() <= parent.size() and tree.height() <= parent.height()
            assert child in parents or within or no_bigger
            assert ops.from_record(json.loads(json.dumps(ops.to_record(child)))) == child
        population[i] = children[0]


def test_operators_replay_from_the_rng_and_leave_python_random_alone():
    random.seed(123)
    before = random.getstate()
    runs = []
    for _ in range(2):
        rng = np.random.default_rng(9)
        trail = [ops.random_expression(rng) for _ in range(5)]
        trail += [ops.mut_mixed(e, rng) for e in trail] + list(ops.cx_one_point(trail[0], trail[1], rng))
        runs.append(trail)
    assert runs[0] == runs[1]
    assert random.getstate() == before


def test_records_survive_parquet_and_bad_ones_are_refused(tmp_path):
    rng = np.random.default_rng(1)
    expressions = [ops.random_expression(rng) for _ in range(10)]
    pq.write_table(pa.table({"genome": pa.array([ops.to_record(e) for e in expressions], pa.string())}),
                   tmp_path / "g.parquet")
    back = pq.read_table(tmp_path / "g.parquet").column("genome").to_pylist()
    assert [ops.from_record(r) for r in back] == expressions
    for bad in ("wizard(rows)", 3, "add(1,"):
        with pytest.raises(ValueError, match="expression"):
            ops.from_record(bad)


def test_crossover_replays_in_a_fresh_process():
    """Type choices must not follow memory addresses (they differ per process)."""
    import subprocess
    import sys

    code = ("import numpy as np; from operators import expression as ops; rng = np.random.default_rng(5); "
            "pop = [ops.random_expression(rng, 2, 5) for _ in range(40)]; "
            "print([ops.cx_one_point(pop[i], pop[-1 - i], rng) for i in range(40)])")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": str(seed)}).stdout for seed in (1, 2, 3)}
    assert len(outputs) == 1


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), language=st.sampled_from(["v1", "v2"]),
       steps=st.lists(st.sampled_from(["one-point", *ops.MUTATIONS]), min_size=1, max_size=30))
def test_each_primitive_set_builds_only_from_its_own_names(seed, language, steps):
    from fitness.nim.expression.languages import LANGUAGES

    allowed = set(LANGUAGES[language].primitives) | set(LANGUAGES[language].terminals)
    rng = np.random.default_rng(seed)
    population = [ops.random_expression(rng, 1, 4, language=language) for _ in range(4)]
    for name in steps:
        if name in ("bind", "mixed-bind") and "let" not in allowed:
            continue
        i, j = rng.integers(len(population), size=2)
        if name == "one-point":
            child = ops.cx_one_point(population[i], population[j], rng, language=language)[0]
        else:
            child = ops.MUTATIONS[name](population[i], rng, language=language)
        names = {node.name for node in _nodes(parse(child))}
        assert {n for n in names if not n.lstrip("-").isdigit()} <= allowed
        assert {int(n) for n in names if n.lstrip("-").isdigit()} <= set(LANGUAGES[language].constants)
        population[i] = child


def _nodes(node):
    yield node
    for child in node.children:
        yield from _nodes(child)


def test_insert_and_bind_wrap_what_was_there():
    rng = np.random.default_rng(3)
    for _ in range(20):
        inserted = parse(ops.mut_insert("sub(0, xor_all(rows))", rng, language="v2"))
        assert inserted.size() >= 4 and "xor_all" in ops.to_record(ops.mut_insert("xor_all(rows)", rng))
        bound = parse(ops.mut_bind("sub(0, xor_all(rows))", rng, language="v2"))
        assert bound.size() > 4 and any(n.name == "let" for n in _nodes(bound))
    with pytest.raises(ValueError, match="needs a primitive set with let"):
        ops.mut_bind("xor_all(rows)", rng)  # v1 has no let
