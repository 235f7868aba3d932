"""A generation's individuals table, built column by column in bulk (`Schema.individuals`),
holds what a row-by-row build of the same members holds: the same columns, types and values."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
from deap import base, creator
from hypothesis import given, settings
from hypothesis import strategies as st

from operators.selection import oldest_first_ranking
from pipeline.evolution.members import Member
from pipeline.records.schema import Schema

if not hasattr(creator, "Fitness_p1"):
    creator.create("Fitness_p1", base.Fitness, weights=(1.0,))
KIND = SimpleNamespace(records=lambda genomes: pa.array(genomes, pa.list_(pa.bool_())))


def _reference(schema: Schema, generation: int, members: list[Member], islands: bool) -> pa.Table:
    """The row-by-row build the bulk one replaced: one Python list per column."""
    n = len(members)
    columns = {"run_id": pa.array([schema.run_id] * n, pa.string()),
               "generation": pa.array([generation] * n, pa.int64()),
               "id": pa.array([m.id for m in members], pa.int64()),
               "born": pa.array([m.born for m in members], pa.int64()),
               "parents": pa.array([m.parents for m in members], pa.list_(pa.int64())),
               "origin": pa.array([m.origin for m in members], pa.string()),
               "genome": KIND.records([m.genome for m in members]),
               "selected": pa.array([m.selected for m in members], pa.bool_())}
    if islands:
        columns["island"] = pa.array([m.island for m in members], pa.int64())
    if any(m.order is not None for m in members):
        columns["order"] = pa.array([m.order for m in members], pa.int64())
    if schema.objectives.mode == "weighted":
        columns["fitness"] = pa.array([m.fitness.values[0] if m.fitness.valid else None for m in members], pa.float64())
    failed = any(m.error is not None for m in members)
    names = dict.fromkeys(k for m in members for k in m.columns) if failed else members[0].columns
    for name in names:
        columns[name] = pa.array([m.columns.get(name) for m in members])
    if schema.viability or failed:
        columns["viable"] = pa.array([m.error is None for m in members], pa.bool_())
        columns["error"] = pa.array([m.error for m in members], pa.string())
    columns["eval_seconds"] = pa.array([m.eval_seconds for m in members], pa.float64())
    columns["worker"] = pa.array([m.worker for m in members], pa.string())
    return pa.table(columns)


@st.composite
def _members(draw: st.DrawFn, plain: bool = False) -> list[Member]:
    """Members of one generation; `plain`: none failed, no arrival order (most generations)."""
    n = draw(st.integers(1, 12))
    failing = draw(st.sets(st.integers(0, n - 1))) if not plain and draw(st.booleans()) else set()
    ordered = not plain and draw(st.booleans())
    workers = draw(st.lists(st.sampled_from(["local", "w1", "w2"]), min_size=n, max_size=n))
    members = []
    for i in range(n):
        error = "ones is NaN" if i in failing else None
        columns = ({"ones": None, "cost": None} if error
                   else {"ones": draw(st.integers(0, 64)), "cost": draw(st.floats(0, 9))})
        fitness = creator.Fitness_p1()
        if error is None:
            fitness.values = (float(columns["ones"]),)
        members.append(Member(id=draw(st.integers(0, 10**9)), born=draw(st.integers(0, 50)),
                              genome=draw(st.lists(st.booleans(), min_size=3, max_size=3)),
                              parents=draw(st.lists(st.integers(0, 10**6), max_size=3)),
                              origin=draw(st.sampled_from(["crossover", "mutation", "migrant"])), columns=columns,
                              eval_seconds=draw(st.floats(0, 1)), worker=workers[i], fitness=fitness,
                              selected=draw(st.booleans()), island=draw(st.integers(0, 3)),
                              order=(i if draw(st.booleans()) else None) if ordered else None, error=error))
    return members


@settings(max_examples=60, deadline=None)
@given(members=_members(), mode=st.sampled_from(["weighted", "pareto"]), islands=st.booleans(),
       viability=st.booleans())
def test_the_bulk_table_is_the_row_by_row_table(members, mode, islands, viability):
    schema = Schema("run-1", KIND, SimpleNamespace(mode=mode, fitness_class=creator.Fitness_p1), viability)
    for _ in range(2):  # the second time through its cached constant columns
        table = schema.individuals(7, members, islands=islands)
        assert table.equals(_reference(schema, 7, members, islands)), table.schema


BATCH_KIND = SimpleNamespace(records=KIND.records, record_type=pa.list_(pa.bool_()))


@settings(max_examples=60, deadline=None)
@given(generations=st.lists(st.one_of(_members(plain=True), _members()), min_size=1, max_size=5), mode=st.sampled_from(["weighted", "pareto"]),
       islands=st.booleans(), viability=st.booleans())
def test_the_writer_s_tables_of_many_generations_are_each_generation_s_own(generations, mode, islands, viability):
    """`Schema.tables` builds many generations as one table where it can: each slice has the
    columns, types and values that generation's own table has, whatever failed or arrived, from
    the fields as the writer process receives them (pickled: `Fields.__reduce__`)."""
    schema = Schema("run-1", BATCH_KIND, SimpleNamespace(mode=mode, fitness_class=creator.Fitness_p1), viability)
    sent = [(g, pickle.loads(pickle.dumps(schema.fields(members)))) for g, members in enumerate(generations)]
    tables = schema.tables(sent, islands=islands)
    for g, (table, members) in enumerate(zip(tables, generations)):
        own = schema.individuals(g, members, islands=islands)
        assert table.schema.equals(own.schema) and table.equals(own), (g, table.schema, own.schema)


def test_taking_a_generation_s_fields_keeps_its_rows_when_its_members_change_later():
    """The writer builds a generation's table after the loop has gone on: what a later
    generation does to a survivor (re-scored, selected or not) is not in the earlier rows."""
    schema = Schema("run-1", BATCH_KIND, SimpleNamespace(mode="weighted", fitness_class=creator.Fitness_p1))
    fitness = creator.Fitness_p1()
    fitness.values = (3.0,)
    member = Member(id=1, born=0, genome=[True], parents=[], origin="random", columns={"ones": 3},
                    worker="w1", fitness=fitness, selected=True)
    taken = schema.fields([member])
    before = schema.table(0, taken)
    member.columns["ones"] = 5  # a plug-in editing the mapping in place
    member.selected, member.worker = False, "w2"
    member.fitness = creator.Fitness_p1()
    assert schema.table(0, taken).equals(before)
    assert before.column("ones").to_pylist() == [3] and before.column("selected").to_pylist() == [True]


def test_array_genomes_travel_to_the_writer_process_equal():
    schema = Schema("run-1", BATCH_KIND, SimpleNamespace(mode="weighted", fitness_class=creator.Fitness_p1))
    rng = np.random.default_rng(1)
    members = [Member(id=i, born=0, genome=rng.random(9) < 0.5, parents=[], origin="random", columns={"ones": i},
                      worker="w1", fitness=creator.Fitness_p1((float(i),))) for i in range(5)]
    taken = schema.fields(members)
    assert taken.__reduce__()[1][1][0] == "bits"  # the genomes packed
    assert schema.table(0, pickle.loads(pickle.dumps(taken))).equals(schema.table(0, taken))


@settings(max_examples=100, deadline=None)
@given(members=_members(), mode=st.sampled_from(["weighted", "lexicographic"]))
def test_the_checkpoint_s_ranks_are_the_oldest_first_ranking(members, mode):
    """`Schema.ranks` (two index sorts) ranks as `oldest_first_ranking` of the members does:
    fittest first, ties to the first born, failed evaluations last; and so do the ranks the log's
    writer process computes from what the loop sends it (`PendingRanks`)."""
    schema = Schema("run-1", KIND, SimpleNamespace(mode=mode, fitness_class=creator.Fitness_p1))
    expected = {id(m): rank for rank, m in enumerate(oldest_first_ranking(members))}
    assert schema.ranks(members) == [expected[id(m)] for m in members]
    pending = pickle.loads(pickle.dumps(schema.pending_ranks(members)))
    assert pending.ranks([m.id for m in members]) == schema.ranks(members)


def test_an_island_generation_travels_to_the_writer_process_with_its_rows_equal():
    """Island rows go down the writer's pipe packed, as the islands made them: the same rows,
    `selected` from the ids alive after the migration, the migrants' rows after the islands',
    metadata kept."""
    from pipeline.records.ipc import pack_table, unpack_table
    from pipeline.records.island_rows import IslandRows
    from pipeline.records.log_files import Commit

    schema = Schema("run-1", BATCH_KIND, SimpleNamespace(mode="weighted", fitness_class=creator.Fitness_p1))
    members = [Member(id=i, born=0, genome=[True, False], parents=[], origin="random", columns={"ones": i},
                      worker="w1", fitness=creator.Fitness_p1((float(i),))) for i in range(6)]
    tables = [schema.individuals(3, members[:2], islands=True).replace_schema_metadata({"k": "v"}),
              schema.individuals(3, members[2:4], islands=True), schema.individuals(3, [], islands=True)]
    rows = IslandRows(list(map(pack_table, tables)), np.array([1, 2, 5], dtype=np.int64), Schema.fields(members[4:]))
    commit = Commit(3, None, rows, True, None, {"generation": 3}, {"generation": 3}, None, False)
    back = pickle.loads(pickle.dumps(commit))
    assert back.built.rows == rows.rows == 6
    assert all(unpack_table(a).equals(b) and unpack_table(a).schema.metadata == b.schema.metadata
               for a, b in zip(back.built.tables, tables))
    table = back.built.table(schema, 3)
    assert table.equals(rows.table(schema, 3))
    assert table["id"].to_pylist() == list(range(6)) and table["selected"].to_pylist()[:4] == [False, True, True, False]
    assert {k: v for k, v in back.__dict__.items() if k != "built"} == \
        {k: v for k, v in commit.__dict__.items() if k != "built"}
