"""Members travel packed between the driver and the island runners (`evolution/packed_members.py`,
`islands/travel.py`) and to the log's writer (the hall of fame's changes): they arrive as they
left, their DEAP fitness included (set from the travelled weighted values, not recomputed from
the columns)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from deap import base
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evolution.members import Member


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.tuples(st.floats(allow_nan=False), st.floats(allow_nan=False))),
                       max_size=8))
def test_members_arrive_with_the_fitness_they_were_sent_with(values):
    from deap import creator
    from pipeline.evolution.packed_members import pack_members, unpack_members

    if not hasattr(creator, "FitnessTravel"):
        creator.create("FitnessTravel", base.Fitness, weights=(1.0, -1.0))
    fitness = [creator.FitnessTravel(v) if v is not None else creator.FitnessTravel() for v in values]
    members = [Member(id=i, born=i // 2, genome=np.arange(3) % (i + 1) == 0, parents=[i, 7][:i % 3], origin="init",
                      columns={"a": 1.0 + i, "b": "x" * i}, eval_seconds=0.5 * i, worker=f"w{i}", fitness=f,
                      selected=i % 2 == 0, island=i % 3, order=None if i % 2 else i, error="e" if i == 3 else None)
               for i, f in enumerate(fitness)]
    got = unpack_members(pack_members(members), creator.FitnessTravel)
    assert [replace(m, genome=None, fitness=None) for m in got] == \
        [replace(m, genome=None, fitness=None) for m in members]  # every field as it was
    assert all(np.array_equal(a.genome, b.genome) for a, b in zip(got, members))
    assert [m.fitness.wvalues for m in got] == [f.wvalues for f in fitness]
    assert [m.fitness.valid for m in got] == [f.valid for f in fitness]
    assert all(a.fitness == b.fitness for a, b in zip(got, members) if a.fitness.valid)
    assert all(m.fitness is None for m in unpack_members(pack_members(members)))


def test_a_population_travels_as_its_changes_and_is_rebuilt_from_the_one_before():
    """Members kept from the population before go as ids and come back as the receiver's own
    objects; the others travel packed, in their places."""
    from pipeline.evolution.packed_members import pack_members, unpack_members
    from pipeline.islands.travel import Changes

    def member(i: int) -> Member:
        return Member(id=i, born=i, genome=np.full(4, i % 2 == 0), parents=[], origin="init", columns={"a": float(i)})

    before = [member(i) for i in range(5)]
    population = [before[3], member(7), before[0], member(8)]
    changes = Changes.of(population, before)
    assert changes.held == [3, None, 0, None] and len(unpack_members(changes.fresh)) == 2
    held = unpack_members(pack_members(before))  # the receiver's copies of the population before
    rebuilt = changes.against(held, None)
    assert [m.id for m in rebuilt] == [3, 7, 0, 8]
    assert rebuilt[0] is held[3] and rebuilt[2] is held[0]
    assert rebuilt[1].columns == {"a": 7.0} and np.array_equal(rebuilt[3].genome, population[3].genome)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(0, 6), kind=st.sampled_from(["ints", "floats", "strings", "meta"]))
def test_a_log_table_arrives_as_it_left(rows, kind):
    """A generation's log table travels as a compressed IPC stream (`records.ipc`): the same rows,
    types and metadata, an empty one included, and its row count readable without unpacking."""
    import pickle

    import pyarrow as pa

    from pipeline.records.ipc import pack_table, unpack_table

    column = {"ints": pa.array(range(rows), pa.int64()), "floats": pa.array([0.5 * i for i in range(rows)]),
              "strings": pa.array([f"w{i}" if i % 2 else None for i in range(rows)], pa.string()),
              "meta": pa.array(range(rows), pa.int64())}[kind]
    table = pa.table({"id": pa.array(range(rows), pa.int64()), "value": column})
    table = table.replace_schema_metadata({"k": "v"}) if kind == "meta" else table
    packed = pickle.loads(pickle.dumps(pack_table(table)))
    back = unpack_table(packed)
    assert packed.rows == rows and back.equals(table) and back.schema.metadata == table.schema.metadata


def test_the_hall_of_fame_travels_to_the_writer_as_its_changes():
    """Only members the writer does not hold as they are travel (new ones, and one re-scored with a
    new fitness), packed; the writer's hall after the change is the loop's, in its order."""
    import pickle

    from deap import creator
    from pipeline.records.log_files import HallChange, hall_key

    if not hasattr(creator, "FitnessHall"):
        creator.create("FitnessHall", base.Fitness, weights=(1.0,))

    def member(i: int, value: float, columns: dict | None = None) -> Member:
        return Member(id=i, born=i, genome=np.arange(4) * i, parents=[], origin="init",
                      columns=columns or {"a": value}, fitness=creator.FitnessHall((value,)))

    before = [member(i, 10.0 - i) for i in range(4)]
    hall = [member(7, 20.0), before[2], member(0, 9.5), before[1]]  # a new one, two kept, id 0 re-scored
    keys = list(map(hall_key, hall))
    change = HallChange.of(hall, keys, set(map(hall_key, before)))
    assert change.ids == [7, 2, 0, 1] and [m.id for m in change.new] == [7, 0]
    writer_before = pickle.loads(pickle.dumps(before))  # the writer's own copies
    got = pickle.loads(pickle.dumps(change)).applied(writer_before)
    assert list(map(hall_key, got)) == keys and got[1] is writer_before[2] and got[3] is writer_before[1]
    assert all(np.array_equal(a.genome, b.genome) and a.columns == b.columns for a, b in zip(got, hall))
    assert [m.fitness.values for m in got] == [m.fitness.values for m in hall]
    odd = HallChange.of([member(9, 1.0, {"b": 1.0}), member(8, 2.0)], [(9, (1.0,)), (8, (2.0,))], set())
    assert [m.fitness.values for m in pickle.loads(pickle.dumps(odd)).applied([])] == [(1.0,), (2.0,)]
