"""Rule genomes: every operator keeps parameters in bounds and on grid; records are exact."""

import json

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent
from operators import rules as ops

AGENTS = ["rule-expert", "rule-dict"]


@st.composite
def setups(draw):
    board = draw(st.lists(st.integers(0, 12), min_size=1, max_size=7).filter(lambda r: sum(r) > 0))
    rules = Rules(tuple(board), k=draw(st.one_of(st.none(), st.integers(1, 5))))
    config = {"agent": draw(st.sampled_from(AGENTS))}
    return rules, config, draw(st.integers(0, 2**32 - 1))


def _frozen(genome):
    return json.dumps(genome, sort_keys=True)


@settings(max_examples=60, deadline=None)
@given(setup=setups(), steps=st.lists(
    st.sampled_from(["step", "resample-rule", "random-cut", "uniform", "repair"]), min_size=1, max_size=40))
def test_parameters_stay_in_bounds_and_on_grid_under_any_operator_sequence(setup, steps):
    rules, config, seed = setup
    rng = np.random.default_rng(seed)
    spec = ops.spec_for(rules, config)
    population = [ops.random_genome(spec, rng) for _ in range(4)]
    for name in steps:
        i, j = rng.integers(len(population), size=2)
        a, b = population[i], population[j]
        before = (_frozen(a), _frozen(b))
        if name in ops.MUTATIONS:
            children = [ops.MUTATIONS[name](a, spec, rng)]
        elif name in ops.CROSSOVERS:
            children = list(ops.CROSSOVERS[name](a, b, spec, rng))
        else:
            children = [ops.repair(a, spec)]
        assert (_frozen(a), _frozen(b)) == before  # parents untouched
        for child in children:
            assert spec.validate(child) == child
            assert list(child) == list(spec.names)
            assert ops.from_record(json.loads(json.dumps(ops.to_record(child)))) == child
        population[i] = children[0]


def test_step_mutation_moves_one_parameter_by_one_step():
    rules = Rules.standard(5)
    spec = ops.spec_for(rules, {"agent": "rule-expert"})
    rng = np.random.default_rng(0)
    moved = set()
    for _ in range(300):
        parent = ops.random_genome(spec, rng)
        child = ops.mut_step(parent, spec, rng)
        changed = [n for n in spec.names if child[n] != parent[n]]
        assert len(changed) <= 1
        for name in changed:
            unit = 0.1 if name.startswith("ITEM") else 1
            assert abs(abs(child[name] - parent[name]) - unit) < 1e-9
            moved.add(name)
    assert moved == set(spec.names)
    top = dict(agent("rule-expert", rules).params, ITEM_CHOICE1=1.0)
    assert all(ops.mut_step(top, spec, rng)["ITEM_CHOICE1"] in (0.9, 1.0) for _ in range(50))


def test_resample_rule_mutation_redraws_one_rule_only():
    rules = Rules.standard(5)
    spec = ops.spec_for(rules, {"agent": "rule-dict"})
    rng = np.random.default_rng(1)
    touched = set()
    for _ in range(300):
        parent = ops.random_genome(spec, rng)
        child = ops.mut_resample_rule(parent, spec, rng)
        groups = {spec[n].group for n in spec.names if child[n] != parent[n]}
        assert len(groups) <= 1
        touched |= groups
    assert touched == {"rule_1", "rule_2a", "rule_2b", "rule_3", "rule_4"}


def test_crossovers_split_the_parents_between_complementary_children():
    rules = Rules.standard(5)
    spec = ops.spec_for(rules, {"agent": "rule-expert"})
    rng = np.random.default_rng(2)
    a = {n: spec[n].snap(-100) for n in spec.names}  # every parameter at its low end
    b = {n: spec[n].snap(100) for n in spec.names}  # and at its high end
    cuts = set()
    for _ in range(200):
        one, two = ops.cx_random_cut(a, b, spec, rng)
        pattern = [one[n] == a[n] for n in spec.names]
        cut = pattern.index(False)
        assert pattern == [True] * cut + [False] * (len(pattern) - cut)
        assert all((one[n], two[n]) in ((a[n], b[n]), (b[n], a[n])) and one[n] != two[n] for n in spec.names)
        cuts.add(cut)
    assert cuts == set(range(1, len(spec)))
    assert ops.cx_uniform(a, b, spec, rng, p=0.0) == (a, b)
    assert ops.cx_uniform(a, b, spec, rng, p=1.0) == (b, a)
    with pytest.raises(ValueError, match="p"):
        ops.cx_uniform(a, b, spec, rng, p=1.5)


def test_uniform_crossover_keeps_each_rule_whole():
    spec = ops.spec_for(Rules.standard(5), {"agent": "rule-dict"})
    rng = np.random.default_rng(3)
    a = {n: spec[n].snap(0) for n in spec.names}
    b = {n: spec[n].snap(1) for n in spec.names}
    for _ in range(100):
        child, _ = ops.cx_uniform(a, b, spec, rng)
        for names in spec.groups.values():
            assert len({child[n] == a[n] for n in names}) == 1


def test_repair_snaps_values_into_the_spec():
    spec = ops.spec_for(Rules.standard(5), {"agent": "rule-expert"})
    wild = {n: 100 for n in spec.names}
    wild["ITEM_CHOICE2"] = 0.1 + 0.2
    fixed = ops.repair(wild, spec)
    assert fixed["ROW_CHOICE1"] == 5 and fixed["ROW_LEN_TH"] == 9
    assert fixed["ITEM_CHOICE1"] == 1.0 and fixed["ITEM_CHOICE2"] == 0.3


def test_records_round_trip_exactly_through_parquet_types():
    rng = np.random.default_rng(4)
    for name in AGENTS:
        spec = ops.spec_for(Rules.standard(6), {"agent": name})
        genomes = [ops.random_genome(spec, rng) for _ in range(5)]
        table = pa.table({"genome": [ops.to_record(g) for g in genomes]})
        back = [ops.from_record(r) for r in table.column("genome").to_pylist()]
        assert back == genomes
        assert [type(v) for v in back[0].values()] == [type(v) for v in genomes[0].values()]
    assert ops.from_record([("a", np.int64(3)), ("b", np.float64(0.5))]) == {"a": 3, "b": 0.5}


def test_from_record_refuses_what_is_not_a_parameter_dict():
    with pytest.raises(ValueError, match="rules record"):
        ops.from_record({"a": [1, 2]})
    with pytest.raises(ValueError, match="rules record"):
        ops.from_record({1: 2})
