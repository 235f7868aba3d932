"""Evaluators: same columns whatever the back end, chunking, cluster or crash; errors never hang."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evaluation import ERROR, EvaluationError, LocalEvaluator, evaluation_seeds, make_evaluator
from pipeline.evaluation.transport import opened, pack, sealed, unpack

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"problem": "setcover", "N": 100, "seed": 42}  # 427 lists, builds in ~0.05 s
BIG = {"problem": "setcover", "N": 1000, "seed": 42}  # 3,619 lists, ~0.1 ms per genome
SMALL_LISTS, BIG_LISTS = 427, 3619


def random_genomes(n: int, lists: int, density: float = 0.3, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.random(lists) < density for _ in range(n)]


def assert_same_columns(actual: dict, expected: dict) -> None:
    assert list(actual) == list(expected)
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=name)


@pytest.fixture(scope="module")
def small_batch() -> tuple[list, list[int], dict]:
    genomes = random_genomes(101, SMALL_LISTS)
    seeds = evaluation_seeds(7, 3, len(genomes))
    return genomes, seeds, LocalEvaluator(SMALL).evaluate(genomes, seeds).columns


@pytest.fixture(scope="module")
def big_task() -> LocalEvaluator:
    return LocalEvaluator(BIG)


def run_python(code: str, stdin: str = "", timeout: float = 150) -> dict:
    """Run `code` in a fresh interpreter, away from the source tree; it prints one JSON line."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=timeout, cwd="/", env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_seeds_are_deterministic_distinct_63_bit_and_per_individual():
    seeds = evaluation_seeds(1, 0, 1000)
    assert seeds == evaluation_seeds(1, 0, 1000)
    assert seeds[:10] == evaluation_seeds(1, 0, 10)  # individual i's seed ignores the population size
    assert seeds[0] == 3325833263181678374  # pinned: a change would break resumed and replayed runs
    everything = seeds + evaluation_seeds(1, 1, 1000) + evaluation_seeds(2, 0, 1000)
    assert len(set(everything)) == 3000
    assert all(isinstance(s, int) and 0 <= s < 2**63 for s in everything)


class _Tagged(np.ndarray):
    """A genome kind's own ndarray subclass."""


@pytest.mark.parametrize(
    "genomes",
    [
        [np.arange(37) % 3 == 0, np.ones(37, bool)],  # bitstrings: packed bits
        [np.eye(3, 4, k, dtype=bool) for k in range(3)],  # 2-D bool
        [np.full((2, 3), 0.25 * k) for k in range(4)],  # float tables: one stacked array
        [{"take": 1, "row": [1, 2]}, {"take": 3}],  # rule dicts: as they are
        [np.zeros(3), np.zeros(4)],  # ragged arrays: as they are
        [np.arange(6, dtype=np.int16).reshape(2, 3) * k for k in range(3)],  # other dtypes: their own
        [np.zeros(0, bool)] * 2,  # empty bitstrings
        [np.array([{"a": 1}, None], dtype=object)] * 2,  # objects: pickled, not their pointers
        [np.zeros(2, dtype=[("x", "i4"), ("y", "f8")])] * 2,  # records: with their field names
        [np.array(0.5), np.array(1.5)],  # 0-d arrays: not turned into scalars
        [np.arange(3.0).view(_Tagged)] * 2,  # an ndarray subclass keeps its class
        [np.arange(3, dtype=">f8")] * 2,  # big-endian keeps its byte order
        [np.zeros(3, np.int32), np.zeros(3, np.int64)],  # one length, two dtypes: each its own
        [np.ones(3, bool), np.ones(3, np.uint8)],
        [np.arange(3, dtype="<f8"), np.arange(3, dtype=">f8")],  # one native, one not
        [np.zeros((2, 3)), np.zeros((2, 4))],  # one length, other widths
        [],
    ],
)
@pytest.mark.parametrize("through_ray", [False, True])
def test_genomes_travel_to_actors_losslessly(genomes, through_ray, request):
    packed = pack(genomes)
    if through_ray:  # Ray's own encoding (msgpack, pickle for the rest) on the way
        ray = request.getfixturevalue("ray_session")
        packed = ray.get(ray.put(packed))
    received = unpack(packed)
    assert isinstance(received, list) and len(received) == len(genomes)
    for sent, got in zip(genomes, received):
        assert type(got) is type(sent)
        if isinstance(sent, np.ndarray):
            assert got.dtype == sent.dtype and got.shape == sent.shape
            assert got.flags.writeable or packed[0] == "list"  # stacked: rows of a buffer of their own
            assert got.tolist() == sent.tolist()
        else:
            assert got == sent


def test_a_sealed_call_opens_to_what_was_sealed_and_what_pickle_refuses_goes_through_cloudpickle():
    """A chunk's call and reply as actors get them (`Batch.call`, `_TaskActor.evaluate`)."""
    genomes = [np.arange(6) % 2 == 0, np.arange(6) % 3 == 0]
    packed, seeds, task_spec = opened(sealed((pack(genomes), [7, 8], {"opponents": {"expert": 10}})))
    assert [g.tolist() for g in unpack(packed)] == [g.tolist() for g in genomes]
    assert (seeds, task_spec) == ([7, 8], {"opponents": {"expert": 10}})
    scale = 3
    learned = opened(sealed({"double": lambda x: scale * x}))  # a closure: not the C pickler's
    assert learned["double"](2) == 6


_GENOMES = st.sampled_from([
    lambda rng, n: [rng.random(13) < 0.5 for _ in range(n)],
    lambda rng, n: [rng.random((2, 3)) for _ in range(n)],
    lambda rng, n: [{"take": int(rng.integers(3))} for _ in range(n)],
    lambda rng, n: [rng.random(1 + i) for i in range(n)],  # shapes that differ
    lambda rng, n: [np.array(rng.random()) for _ in range(n)],  # 0-d arrays
    lambda rng, n: [rng.random(3).view(_Tagged) for _ in range(n)],  # a subclass
    lambda rng, n: [None] * n,
])
_COLUMN_VALUES = st.sampled_from([
    lambda rng, i: np.float64(rng.random()), lambda rng, i: np.int64(i), lambda rng, i: np.bool_(i % 2),
    lambda rng, i: np.float32(rng.random()), lambda rng, i: float(rng.random()), lambda rng, i: f"s{i}",
    lambda rng, i: rng.random(2), lambda rng, i: np.float64(i) if i % 2 else np.int64(i),  # arrays, mixed types
])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 6), genomes=_GENOMES, columns=st.lists(_COLUMN_VALUES, max_size=3),
       uneven=st.sampled_from(["no", "extra", "reordered"]), seed=st.integers(0, 2**32 - 1))
def test_members_travel_between_islands_and_driver_losslessly(n, genomes, columns, uneven, seed):
    from pipeline.evolution.packed_members import member_fields, pack_members, unpack_members
    from pipeline.evolution.members import Member

    rng = np.random.default_rng(seed)
    members = [Member(id=int(rng.integers(1 << 40)), born=i, genome=g, parents=[i, i + 1][: i % 3], origin=f"o{i}",
                      columns={f"c{k}": value(rng, i) for k, value in enumerate(columns)}, eval_seconds=rng.random(),
                      worker=f"actor-{i}", fitness=object(), selected=bool(i % 2), island=i % 4,
                      order=None if i % 2 else i) for i, g in enumerate(genomes(rng, n))]
    if uneven == "extra" and members:
        members[-1].columns["extra"] = 1.0
    elif uneven == "reordered" and members:
        members[-1].columns = dict(reversed(members[-1].columns.items()))
    received = unpack_members(pickle.loads(pickle.dumps(pack_members(members))))
    assert len(received) == len(members)
    for sent, got in zip(members, received):
        assert got.fitness is None  # rebuilt from the columns on arrival
        assert all(getattr(got, f) == getattr(sent, f) and type(getattr(got, f)) is type(getattr(sent, f))
                   for f in member_fields())
        assert {*member_fields(), "genome", "columns", "fitness"} == set(vars(sent))
        assert list(got.columns) == list(sent.columns)
        for name, value in sent.columns.items():
            assert type(got.columns[name]) is type(value) and np.array_equal(got.columns[name], value)
        assert type(got.genome) is type(sent.genome)
        if isinstance(sent.genome, np.ndarray):
            assert got.genome.dtype == sent.genome.dtype and got.genome.shape == sent.genome.shape
            assert np.array_equal(got.genome, sent.genome)
        else:
            assert got.genome == sent.genome
    genomes_back = [m.genome for m in received if isinstance(m.genome, np.ndarray)]
    assert all(g.base is None or g.base.size == g.size for g in genomes_back)  # no member keeps a shared buffer


def test_in_process_evaluator_never_imports_ray(small_batch):
    genomes, seeds, expected = small_batch
    code = (
        "import json, sys, numpy as np\n"
        "from pipeline.evaluation import make_evaluator\n"
        "genomes, seeds = json.loads(sys.stdin.read())\n"
        f"with make_evaluator({SMALL!r}) as ev:\n"
        "    scored = ev.evaluate([np.array(g, dtype=bool) for g in genomes], seeds)\n"
        "print(json.dumps({'cost': scored.columns['cost'].tolist(), 'worker': scored.worker[0],\n"
        "                  'ray': 'ray' in sys.modules}))\n"
    )
    out = run_python(code, json.dumps([[g.tolist() for g in genomes], seeds]))
    assert out == {"cost": expected["cost"].tolist(), "worker": "local", "ray": False}


def test_actors_give_the_in_process_columns_whatever_the_workers_and_chunks(ray_session, small_batch):
    genomes, seeds, expected = small_batch
    with make_evaluator(SMALL, workers=1) as one, make_evaluator(SMALL, workers=2) as two:
        two.wait_until_ready()  # work starts on the first ready actor; spread needs both
        for evaluator, chunk_sizes in [(one, [None, 7, 500]), (two, [None, 1, 13, 50, 100])]:
            for chunk_size in chunk_sizes:
                evaluator.chunk_size = chunk_size
                scored = evaluator.evaluate(genomes, seeds)
                assert_same_columns(scored.columns, expected)
                assert scored.failures == 0
                assert len(scored.worker) == len(scored.eval_seconds) == len(genomes)
                assert np.all(scored.eval_seconds >= 0)
                assert len(set(scored.worker)) == evaluator.workers
                assert all(w.startswith("actor-") and "@127.0.0.1/" in w for w in scored.worker)
        assert all(len(column) == 0 for column in two.evaluate([], []).columns.values())


@pytest.mark.parametrize("engine", ["processes", "ray"])
def test_the_driver_takes_what_the_workers_learned_playing_the_training_boards(engine, monkeypatch, request):
    """nim-gp compares children by their moves on the training boards (`distinct_by = "moves"`),
    in the driver: scored on workers, the boards' outcomes come back with the scores, so the
    driver plays no board again (it played every child on every board before)."""
    import operators.expression as expressions
    from fitness.nim.expression import parse
    from pipeline.evaluation.processes import ProcessEvaluator
    from pipeline.spec import load_spec

    task_spec = load_spec(ROOT / "runs" / "nim-gp.toml").task_spec()
    rng = np.random.default_rng(7)
    genomes = list(dict.fromkeys(expressions.random_expression(rng, language="v2") for _ in range(40)))
    seeds = list(range(len(genomes)))
    local = LocalEvaluator(task_spec)
    expected = [local.task.boards.signature(parse(g)) for g in genomes], local.evaluate(genomes, seeds)
    for board in local.task.boards.boards:
        board._seen.clear()  # (one per board and process, shared by every task: as a fresh driver's)
    if engine == "ray":
        request.getfixturevalue("ray_session")
        from pipeline.evaluation.ray_pool import RayEvaluator
        workers = RayEvaluator(task_spec, 2)
    else:
        workers = ProcessEvaluator(task_spec, 2)
    with workers:
        scored = workers.evaluate(genomes, seeds)  # the first batch: on the workers
    assert all(w.startswith(("process-", "actor-")) for w in scored.worker)
    assert_same_columns(scored.columns, expected[1].columns)
    for board in local.task.boards.boards:
        monkeypatch.setattr(board, "moves", None)  # any board played again here would fail
    assert [local.task.boards.signature(parse(g)) for g in genomes] == expected[0]


def test_a_fresh_process_embeds_ray_on_loopback_then_joins_a_two_node_cluster_and_loses_a_node(small_batch):
    """One subprocess (Ray starts are slow): it has no Ray, and runs away from the source tree."""
    genomes, seeds, expected = small_batch
    code = (
        "import json, sys, numpy as np, ray\n"
        "from ray.cluster_utils import Cluster\n"
        "from pipeline.evaluation import make_evaluator\n"
        "genomes, seeds = json.loads(sys.stdin.read())\n"
        "genomes = [np.array(g, dtype=bool) for g in genomes]\n"
        f"with make_evaluator({SMALL!r}, workers=1) as ev:\n"
        "    embedded = ev.evaluate(genomes, seeds)\n"
        "    addresses = [node['NodeManagerAddress'] for node in ray.nodes()]\n"
        "embedded_up = ray.is_initialized()\n"
        "cluster = Cluster(initialize_head=True, head_node_args={'num_cpus': 1, 'include_dashboard': False})\n"
        "worker_node = cluster.add_node(num_cpus=1)\n"
        "cluster.wait_for_nodes()\n"
        "try:\n"
        f"    with make_evaluator({SMALL!r}, workers=2, address=cluster.address, chunk_size=10, wait_for_all=True) as ev:\n"
        "        clustered = ev.evaluate(genomes, seeds)\n"
        "        nodes = [node['NodeID'] for node in ray.nodes() if node['Alive']]\n"
        "        cluster.remove_node(worker_node)\n"
        "        survived = ev.evaluate(genomes, seeds)\n"
        "    connected = ray.is_initialized()\n"
        "finally:\n"
        "    cluster.shutdown()\n"
        "print(json.dumps({'embedded': embedded.columns['cost'].tolist(), 'addresses': addresses,\n"
        "                  'embedded_up': embedded_up, 'nodes': nodes, 'connected': connected,\n"
        "                  'columns': {k: v.tolist() for k, v in clustered.columns.items()},\n"
        "                  'worker': clustered.worker, 'failures': survived.failures,\n"
        "                  'survived': {k: v.tolist() for k, v in survived.columns.items()},\n"
        "                  'survivors': sorted(set(survived.worker))}))\n"
    )
    out = run_python(code, json.dumps([[g.tolist() for g in genomes], seeds]))
    assert out["embedded"] == expected["cost"].tolist()
    assert out["addresses"] == ["127.0.0.1"]
    assert out["embedded_up"] is True  # close() keeps the embedded Ray warm; joining the cluster stopped it
    assert_same_columns({k: np.array(v) for k, v in out["columns"].items()}, expected)
    assert len(out["nodes"]) == 2
    assert {w.rsplit("/", 1)[1] for w in out["worker"]} == {node[:8] for node in out["nodes"]}
    assert out["connected"] is False  # close() disconnects from a cluster it joined, leaving it up
    # A lost node loses no work: its chunks re-run on the head node's actor.
    assert out["failures"] >= 1
    assert_same_columns({k: np.array(v) for k, v in out["survived"].items()}, expected)
    assert len(out["survivors"]) == 1 and out["survivors"][0] in set(out["worker"])


@pytest.mark.timeout(120)
def test_an_actor_killed_mid_evaluation_loses_no_work(ray_session, big_task):
    genomes = random_genomes(8000, BIG_LISTS, density=0.5)  # ~1 s of compute in 32 chunks
    seeds = evaluation_seeds(11, 0, len(genomes))
    expected = big_task.evaluate(genomes, seeds).columns
    with make_evaluator(BIG, workers=2, chunk_size=250) as evaluator:
        victim = evaluator.actors[0]
        killer = threading.Timer(0.1, ray_session.kill, [victim])
        killer.start()
        scored = evaluator.evaluate(genomes, seeds)
        killer.join()
        assert scored.failures >= 1
        assert_same_columns(scored.columns, expected)
        assert len(evaluator.actors) == 2 and victim not in evaluator.actors
        ray_session.get([actor.__ray_ready__.remote() for actor in evaluator.actors], timeout=60)
        evaluator.chunk_size = 25
        again = evaluator.evaluate(genomes[:50], seeds[:50])
        assert again.failures == 0 and len(set(again.worker)) == 2
        assert_same_columns(again.columns, {k: v[:50] for k, v in expected.items()})


@pytest.mark.timeout(120)
def test_an_actor_the_cluster_refuses_to_register_is_a_failed_start_said_in_one_line(ray_session, monkeypatch):
    """Ray may refuse an actor's registration at once (RaySystemError "Actor creation cancelled",
    seen when the cluster rejects the driver): a failed start like any other, retried, then one line.
    `ray.kill` of such an actor raises that error too: the actor is gone, and the pool goes on."""
    from ray.exceptions import RaySystemError

    class Refusing:  # the actor class as the pool calls it: refuses `times` registrations, then the real one
        def __init__(self, real, times: int) -> None:
            self.real, self.times = real, times

        def remote(self):
            if self.times:
                self.times -= 1
                raise RaySystemError("Actor creation cancelled.")
            return self.real.remote()

    with make_evaluator(SMALL, workers=1, wait_for_all=True) as evaluator:
        first = evaluator.actors[0]
        evaluator._remote = Refusing(evaluator._remote, 1)  # the successor's first registration is refused
        evaluator.replace(1, "killed by the test")
        assert first not in evaluator.actors and len(evaluator.actors) == 1
        genomes = random_genomes(10, SMALL_LISTS)
        assert len(evaluator.evaluate(genomes, evaluation_seeds(1, 0, 10)).worker) == 10  # the successor scores
        real_kill = ray_session.kill

        def refused_kill(handle, **options):  # as Ray's kill of an actor whose registration was refused
            real_kill(handle, **options)
            raise RaySystemError("Actor creation cancelled.")

        monkeypatch.setattr(ray_session, "kill", refused_kill)
        evaluator.replace(evaluator.slots()[0][1], "killed by the test")
        assert len(evaluator.evaluate(genomes, evaluation_seeds(1, 0, 10)).worker) == 10
        evaluator._remote = Refusing(evaluator._remote.real, 3)
        with pytest.raises(EvaluationError, match=r"^actor-\d+ could not start \(3 attempts\): "
                                                  r"RaySystemError: System error: Actor creation cancelled\.$"):
            evaluator.replace(evaluator.slots()[0][1], "killed by the test")


@pytest.mark.timeout(120)
def test_exhausted_retries_raise_one_clear_line_without_hanging(ray_session):
    genomes = random_genomes(3000, BIG_LISTS, density=0.5)  # ~0.3 s: always beyond the timeout
    seeds = evaluation_seeds(5, 0, len(genomes))
    with make_evaluator(BIG, workers=1, chunk_size=3000, max_retries=2, chunk_timeout=0.05) as evaluator:
        start = time.monotonic()
        with pytest.raises(EvaluationError) as raised:
            evaluator.evaluate(genomes, seeds)
        assert time.monotonic() - start < 60
        message = str(raised.value)
        assert "\n" not in message
        assert message.startswith("chunk 1 of 1 (genomes 0-2999) failed 2 attempts; last cause: ")
        assert "chunk timeout of 0.05 s" in message
        assert len(evaluator.actors) == 1  # the pool stays full for the next call


def test_a_task_error_fails_each_genome_with_its_message_on_both_back_ends(ray_session, small_batch):
    genomes, seeds, expected = small_batch
    bad = random_genomes(6, 10)  # 10 bits, but the instance has 427 lists
    with LocalEvaluator(SMALL) as local, make_evaluator(SMALL, workers=2, chunk_size=1) as pooled:
        for evaluator in (local, pooled):
            errors = evaluator.evaluate(bad, seeds[:6]).columns[ERROR]  # narrowed down to each genome
            assert len(errors) == 6 and all(e.startswith("ValueError: population must be a bool array") for e in errors)
        pooled.chunk_size = None
        pooled.wait_until_ready()
        scored = pooled.evaluate(genomes, seeds)  # the actors survived, busy with nothing stale
        assert scored.failures == 0 and len(set(scored.worker)) == 2
        assert_same_columns(scored.columns, expected)


def test_a_broken_task_spec_fails_the_pool_start_with_its_message(ray_session):
    with pytest.raises(EvaluationError, match=r"building the task on actor-\d+: PluginError: problem 'nope': not a built-in problem"):
        make_evaluator({"problem": "nope"}, workers=1)


@settings(max_examples=100, deadline=None)
@given(actors=st.lists(st.tuples(st.booleans(), st.integers(0, 2), st.floats(0.0, 100.0)), max_size=12),
       depth=st.integers(0, 1))
def test_a_chunk_queued_behind_another_goes_to_the_actor_whose_chunk_started_first(ray_session, actors, depth):
    """Idle actors take chunks in the pool's order; behind a running chunk, the actor busy the
    longest (the next to finish) first; actors not ready, or full at this depth, take none."""
    from collections import deque

    from pipeline.evaluation.ray_pool import _Actor, _placement

    pool = [_Actor(handle=None, number=n, created=0.0, label="ready" if ready else "", running=deque(range(running)),
                   busy_since=since) for n, (ready, running, since) in enumerate(actors)]
    placed = _placement(pool, depth)
    eligible = [actor for actor in pool if actor.label and len(actor.running) <= depth]
    assert sorted(a.number for a in placed) == [a.number for a in eligible]
    if depth == 0:
        assert placed == eligible
    else:
        assert [a.busy_since for a in placed] == sorted(a.busy_since for a in eligible)
