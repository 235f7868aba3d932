"""Asynchronous steady-state: deterministic in-process, exact resume, and on Ray workers a log
that says exactly what happened (arrival order, every parent arrived before its child)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pipeline
from tests.golden.digest import run_digests

ROOT = Path(__file__).resolve().parents[2]

SPEC = {
    "problem": "setcover", "seed": 3, "generations": 12,
    "population": {"size": 20, "offspring": 30, "algorithm": "steady-state"},
    "genome": {"kind": "bitstring"}, "setcover": {"N": 100}, "objectives": {"mode": "lexicographic"},
    "execution": {"workers": 0},
}


def _run(tmp_path, name, **overrides):
    return pipeline.run(SPEC, out=str(tmp_path / name), **overrides)


def _check_log_is_what_happened(run) -> None:
    frame = run.individuals()
    sizes = frame.groupby("generation").size().tolist()
    assert sizes == [20] + [30] * (len(sizes) - 1)  # generation 0 is the first population
    assert sorted(frame["order"]) == list(range(len(frame)))  # every arrival once, in order
    assert frame.sort_values(["generation", "order"])["order"].is_monotonic_increasing
    order = dict(zip(frame["id"], frame["order"]))
    for child, parents in zip(frame["order"], frame["parents"]):
        assert all(order[p] < child for p in parents)  # bred from members that had arrived
    best = run.generations()["best_cost"]
    assert best.is_monotonic_decreasing  # replace-worst never loses the best


def test_in_process_steady_state_is_deterministic_and_logs_arrivals(tmp_path):
    first, second = _run(tmp_path, "a"), _run(tmp_path, "b")
    assert run_digests(first.path) == run_digests(second.path)
    _check_log_is_what_happened(first)


def test_steady_state_resumes_to_the_uninterrupted_log(tmp_path):
    whole = _run(tmp_path, "whole")
    cut = _run(tmp_path, "cut", on_generation=lambda row: row["generation"] == 5)
    assert cut.meta["stop_reason"] == "callback"
    pipeline.resume(cut.path)
    assert run_digests(cut.path) == run_digests(whole.path)


def _taking_turns(monkeypatch, waiting_for) -> set[int]:
    """The numbers of the actors that have scored so far; while `waiting_for(evaluator)` holds, the
    run's waits wait for every batch in flight, so that each actor gets its turn however fast the
    others are on a loaded machine (a run of quick genomes can end before a slow actor's first batch)."""
    from pipeline.evaluation.ray_pool import RayEvaluator

    real, scored = RayEvaluator.wait, set()

    def wait(self, tickets, every=False, timeout=None):
        done = real(self, tickets, every or waiting_for(self), timeout)
        for evaluated in done.values():
            scored.update(int(label.split("@")[0].removeprefix("actor-")) for label in evaluated.worker)
        return done

    monkeypatch.setattr(RayEvaluator, "wait", wait)
    return scored


def test_on_ray_workers_every_worker_scores_and_the_log_says_what_happened(tmp_path, ray_session, monkeypatch):
    scored = _taking_turns(monkeypatch, lambda evaluator: not {1, 2} <= scored)
    run = _run(tmp_path, "ray", workers=2, execution__wait_for_workers=True)
    _check_log_is_what_happened(run)
    workers = run.individuals(columns=["worker"])["worker"]
    assert workers.str.startswith("actor-").all() and workers.nunique() == 2


@pytest.mark.timeout(300)
def test_on_ray_an_actor_killed_mid_run_loses_nothing_and_the_log_says_what_happened(tmp_path, ray_session,
                                                                                      monkeypatch):
    from ray.exceptions import RayActorError

    from pipeline.evaluation.ray_pool import RayEvaluator

    real_submit, submitted, killed = RayEvaluator.submit, [], []

    def successor_up(self) -> bool:
        return bool(killed) and killed[0] not in self.actors

    def killing(self, *args, **kwargs):  # actor-1 dies with batches in flight, early in the run, after
        submitted.append(1)  # it has scored; once its successor is up, the run goes on
        if len(submitted) >= 8 and not killed and 1 in scored:
            killed.append(self.actors[0])
            ray_session.kill(killed[0])
            # until Ray says it is dead: else, on a loaded machine, the run could end on actor-2 alone
            # before actor-1's chunks fail and a successor is started. The kill goes through Ray's
            # control store while calls go to the actor directly, so a first call may still be answered.
            deadline = time.monotonic() + 120
            with pytest.raises(RayActorError):
                while time.monotonic() < deadline:
                    ray_session.get(killed[0].__ray_ready__.remote(), timeout=120)
                    time.sleep(0.05)
        if successor_up(self):
            self.wait_until_ready()
        return real_submit(self, *args, **kwargs)

    # until actor-1 has scored, and from the kill until its successor (actor-3, or a later number if
    # a start failed) has, the run's waits wait for every batch in flight: so the pool always meets
    # a chunk of the dead actor's (whichever result Ray hands back first) and replaces it in time
    scored = _taking_turns(monkeypatch, lambda evaluator: 1 not in scored or (bool(killed)
                                                                               and not scored - {1, 2}))
    monkeypatch.setattr(RayEvaluator, "submit", killing)
    run = _run(tmp_path, "ray", workers=2, execution__wait_for_workers=True)
    failures = int(run.generations()["worker_failures"].sum())  # what the pool met of the dead actor
    said = f"killed {len(killed)}, {len(submitted)} submissions, scored by {sorted(scored)}, {failures} failures"
    assert len(killed) == 1 and len(submitted) > 16, said
    _check_log_is_what_happened(run)
    assert run.generations()["generation"].tolist() == list(range(13)), said
    workers = run.individuals(columns=["worker"])["worker"]
    numbers = set(workers.str.extract(r"actor-(\d+)@")[0].astype(int))
    assert {1, 2} <= numbers and len(numbers - {1, 2}) == 1, said  # the first two, then one successor


@pytest.mark.timeout(300)
def test_a_driver_sigkilled_on_ray_resumes_on_ray_to_a_log_that_says_what_happened(tmp_path, ray_session):
    out = tmp_path / "killed"
    # killed at the first generation from 4 on whose log holds rows: a SIGKILL loses the rows the writer
    # had not written, and on a loaded machine generations 0-4 can all be made before it writes one
    code = (f"import os, signal, pipeline; out = {str(out)!r}\n"
            "def kill(row):\n"
            "    if row['generation'] >= 4 and not pipeline.open_run(out).individuals(columns=['id']).empty:\n"
            "        os.kill(os.getpid(), signal.SIGKILL)\n"
            f"pipeline.run({SPEC!r}, out=out, workers=2, execution__handover=False, execution__engine='ray', "
            "on_generation=kill)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=240,
                   env=dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0"))
    killed = pipeline.open_run(out).individuals()  # its last generations still in recent/
    assert 0 <= killed["generation"].max() <= 12  # the writer may be a few generations behind the kill
    assert pipeline.open_run(out).status != "finished"
    assert killed["worker"].str.startswith("actor-").all()  # the killed driver ran on Ray
    run = pipeline.resume(out, workers=2)
    _check_log_is_what_happened(run)
    assert run.generations()["generation"].tolist() == list(range(13))
    assert run.individuals(columns=["worker"])["worker"].str.startswith("actor-").all()


def test_sampled_fitness_that_rescores_survivors_is_refused_in_one_line(tmp_path):
    spec = {"problem": "nim", "nim": {"standard": 3, "opponents": {"random": 50}},
            "genome": {"kind": "table"}, "population": {"algorithm": "steady-state"}}
    with pytest.raises(ValueError, match="steady-state' scores each individual once: set sampling.reevaluate"):
        pipeline.run(spec, workers=0, generations=1, out=str(tmp_path / "never"))
    assert not (tmp_path / "never").exists()
    spec["sampling"] = {"reevaluate": False}
    run = pipeline.run(spec, workers=0, generations=2, out=str(tmp_path / "sampled"))
    assert len(run.generations()) == 3


def test_the_hand_over_expects_one_submission_per_genome_for_steady_state():
    from pipeline.runner import _expected_batches
    from pipeline.spec import parse_spec

    spec = parse_spec({**SPEC, "execution": {"workers": 2}})
    assert _expected_batches(spec, asynchronous=True, runners=False) == 20 + 12 * 30
    assert _expected_batches(spec, asynchronous=False, runners=False) == 13
    assert _expected_batches(spec, asynchronous=False, runners=True) is None  # islands need the actors at once
    no_handover = parse_spec({**SPEC, "execution": {"workers": 2, "handover": False}})
    assert _expected_batches(no_handover, asynchronous=False, runners=False) is None


def _naive_tell(population: list, scored: list, size: int, distinct: bool) -> list:
    """Replace-worst as written first: a pass over the population per arrival (the oracle)."""
    population = list(population)
    for m in scored:
        if len(population) < size:
            population.append(m)
        elif distinct and m.genome in {p.genome for p in population}:
            continue
        else:
            values = [p.fitness.wvalues for p in population]
            worst = min(range(len(population)), key=values.__getitem__)
            if m.fitness.wvalues > values[worst]:
                population[worst] = m
    return population


@settings(max_examples=200, deadline=None)
@given(arrivals=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 6)), max_size=60),
       size=st.integers(1, 6), distinct=st.booleans(), cuts=st.lists(st.integers(1, 5), max_size=30),
       resumes=st.sets(st.integers(0, 30)), objectives=st.sampled_from([1, 2]))
def test_replace_worst_with_a_heap_is_the_pass_over_the_population(arrivals, size, distinct, cuts, resumes,
                                                                    objectives):
    """Tell keeps its worst member in a heap (O(log n) an arrival); it must pick exactly the member
    a pass over the population picks (the earliest place among equal values), with one or two
    objectives, duplicate genomes, batches of any size, and a resume (new algorithm object) at any
    call. The tournament keys it keeps up to date are those of the population it returns."""
    from types import SimpleNamespace as NS

    import numpy as np

    from operators.selection import tournament_keys
    from pipeline.evolution.state import State
    from pipeline.evolution.steady_state import SteadyState

    def algorithm():
        spec = NS(population=NS(size=size, distinct=distinct), islands=None)
        return SteadyState(NS(spec=spec, kind=NS(identity=lambda genome: genome), reevaluate=False))

    members = [NS(id=i, genome=g, fitness=NS(wvalues=(float(a), -float(b))[:objectives]), island=0, error=None)
               for i, (a, b, g) in enumerate(arrivals)]
    steady, state, expected = algorithm(), State(), []
    for call, cut in enumerate(cuts + [len(members)]):
        batch, members = members[:cut], members[cut:]
        if call in resumes:
            steady, state = algorithm(), replace(state, populations=[list(state.populations[0])])
        state = steady.tell(state, batch)
        expected = _naive_tell(expected, batch, size, distinct)
        assert [m.id for m in state.populations[0]] == [m.id for m in expected]
        if expected:
            kept = steady._book_of(state.populations[0], 0).tournament_keys()
            np.testing.assert_array_equal(kept, tournament_keys(expected))


def _sizing_loop(workers: int, offspring: int, in_flight: int = 2):
    """An AsyncLoop with only what its batch sizing reads."""
    from types import SimpleNamespace

    from pipeline.evolution.async_loop import AsyncLoop

    algorithm = SimpleNamespace(settings=SimpleNamespace(size=offspring, offspring=offspring))
    scorer = SimpleNamespace(evaluator=SimpleNamespace(workers=workers))
    return AsyncLoop(algorithm, scorer, tracker=None, recorder=None, seed=1, in_flight=in_flight)


def _learn(loop, members) -> None:
    """What the loop does with a batch back, as `run` does it."""
    loop._per_member.learn([m.eval_seconds for m in members], members[0].worker)


def _batch(worker: str, seconds: list[float]):
    from types import SimpleNamespace

    return [SimpleNamespace(worker=worker, eval_seconds=s) for s in seconds]


@settings(max_examples=100, deadline=None)
@given(workers=st.integers(1, 64), per_member=st.floats(0.001, 0.5), warm_up=st.floats(0.0, 5.0),
       outlier=st.floats(1.0, 30.0), batches=st.integers(60, 120))
@example(workers=1, per_member=0.0010000000000000002, warm_up=0.0, outlier=1.0, batches=90)  # found in CI
def test_batch_size_follows_the_evaluation_time_not_warm_up_or_one_outlier(workers, per_member, warm_up, outlier,
                                                                             batches):
    """Each worker's first batch (its warm-up) is left out, and one genome 30 times slower than
    the mean (lognormal sigma = 1 reaches that in 10^4 draws) shrinks the next batch by < 40%."""
    import math

    loop = _sizing_loop(workers, offspring=1024)
    ideal = loop.batch_seconds / per_member
    for w in range(workers):
        _learn(loop, _batch(f"w{w}", [per_member + warm_up]))
        assert loop._batch_size() == 1
    for b in range(batches):
        _learn(loop, _batch(f"w{b % workers}", [per_member] * loop._batch_size()))
    steady = loop._batch_size()
    # ceil of seconds / an estimate equal to per_member up to rounding: within 1 of ideal, plus
    # the rounding (0.2 / 0.001 is 199.99999999999997 and its estimate's ceil may be 201)
    assert steady == loop.max_batch or abs(steady - ideal) <= 1 + 1e-9 * ideal
    _learn(loop, _batch("w0", [outlier * per_member]))
    assert loop._batch_size() >= min(steady, math.ceil(0.6 * ideal))


@settings(max_examples=300, deadline=None)
@given(workers=st.integers(1, 64), offspring=st.integers(1, 4096), per_member=st.floats(0.0001, 0.5),
       in_flight=st.integers(1, 16))
def test_in_flight_keeps_every_worker_busy_within_in_flight_generations_of_children(workers, offspring,
                                                                                   per_member, in_flight):
    """At most two batches a worker, and at least one plus a batch ahead for every eight
    workers; at most `in_flight` generations' children in flight (or one each when that is
    fewer children than there are workers) besides the batches ahead; and where the batches
    fit a generation's share, two a worker as before (fewer, larger ones only where the
    evaluation is short enough to ask for more). A larger `in_flight` never makes batches smaller."""
    loops = [_sizing_loop(workers, offspring, in_flight=n) for n in (in_flight, in_flight + 1)]
    for loop in loops:
        for w in range(workers):  # the warm-up batches, then one that sets the estimate
            _learn(loop, _batch(f"w{w}", [per_member]))
        _learn(loop, _batch("w0", [per_member]))
    loop = loops[0]
    batch, batches = loop._batch_size(), loop._in_flight()
    ahead = math.ceil(workers / 8)
    assert min(workers + ahead, 2 * workers) <= batches <= 2 * workers
    assert batch * batches <= max(in_flight * offspring, workers) + ahead * batch
    assert batch <= max(1, in_flight * offspring // workers)
    if batch <= offspring // workers * in_flight // 2:
        assert batches == 2 * workers
    assert loops[1]._batch_size() >= batch


@settings(max_examples=100, deadline=None)
@given(batches=st.lists(st.tuples(st.sampled_from(["a", "b", None]),
                                  st.lists(st.floats(0.0, 10.0), min_size=1, max_size=20)), max_size=30))
def test_seconds_per_member_is_the_decaying_ratio_of_sums_without_each_workers_first_batch(batches):
    from pipeline.evaluation.timing import MEMORY, SecondsPerMember

    estimate, seen, seconds, members = SecondsPerMember(), set(), 0.0, 0.0
    for worker, times in batches:
        estimate.learn(times, worker)
        if worker in seen:
            seconds, members = MEMORY * seconds + sum(times), MEMORY * members + len(times)
        seen.add(worker)
        if seconds > 0:
            assert estimate.value == pytest.approx(seconds / members)
        else:
            assert estimate.value is None


def test_on_workers_a_freed_worker_gets_its_next_batch_before_the_arrivals_are_told(tmp_path, monkeypatch):
    """After each wait the loop tops up what is in flight before it inserts and logs what came
    back, so no worker waits for the driver's insertions; with workers = 0 a child is told before
    the next is bred (the deterministic order every in-process log was made in)."""
    import pipeline.runner as runner
    from pipeline.evaluation.local import LocalEvaluator
    from pipeline.evolution.steady_state import SteadyState

    events: list[str] = []

    class Logged(LocalEvaluator):
        def wait(self, tickets, every=False, timeout=None):
            events.append("wait")
            return super().wait(sorted(tickets)[:1], every, timeout)  # the oldest only

    class OnTwoWorkers(Logged):
        workers = 2  # batches in flight as on two workers

    ask, tell = SteadyState.ask, SteadyState.tell
    monkeypatch.setattr(SteadyState, "ask", lambda self, *a, **k: events.append("ask") or ask(self, *a, **k))
    monkeypatch.setattr(SteadyState, "tell", lambda self, *a, **k: events.append("tell") or tell(self, *a, **k))
    for evaluator, first in ((OnTwoWorkers, "ask"), (Logged, "tell")):
        monkeypatch.setattr(runner, "make_evaluator", lambda task_spec, **kwargs: evaluator(task_spec))
        events.clear()
        pipeline.run(SPEC, out=str(tmp_path / evaluator.__name__), generations=2,
                     execution__in_flight=2)  # a fixed bound: "auto" sizes it from measured times
        after_waits = [segment.split() for segment in " ".join(events).split("wait")[1:]]
        both = [segment for segment in after_waits if {"ask", "tell"} <= set(segment)]
        assert len(both) >= 5
        assert all(sorted(segment, key=lambda e: e != first) == segment for segment in both), both


def _claiming_workers():
    """An in-process evaluator claiming 8 workers, noting each batch's size and the most
    children in flight: what `[execution] in_flight` bounds."""
    from pipeline.evaluation.local import LocalEvaluator

    class ClaimingWorkers(LocalEvaluator):
        workers = 8

        def __init__(self, task_spec: dict) -> None:
            super().__init__(task_spec)
            self.pending: dict[int, int] = {}
            self.batches: list[int] = []
            self.most = 0

        def submit(self, genomes, seeds, task_spec=None, chunk_size=None) -> int:
            ticket = super().submit(genomes, seeds, task_spec, chunk_size)
            self.pending[ticket] = len(genomes)
            self.batches.append(len(genomes))
            self.most = max(self.most, sum(self.pending.values()))
            return ticket

        def wait(self, tickets, every=False, timeout=None):
            done = super().wait(sorted(tickets)[:1], every, timeout)  # the oldest only
            for ticket in done:
                self.pending.pop(ticket)
            return done

    return ClaimingWorkers


@pytest.mark.parametrize("in_flight", [1, 2, 8])
def test_execution_in_flight_bounds_the_children_in_flight_and_lets_batches_grow(tmp_path, monkeypatch, in_flight):
    """30 children a generation on 8 workers: batches of at most in_flight x 30 / 8 (the default
    2 gives 7), and no more than in_flight x 30 children in flight besides one batch ahead."""
    import pipeline.runner as runner

    claiming, made = _claiming_workers(), []
    monkeypatch.setattr(runner, "make_evaluator", lambda task_spec, **kwargs: made.append(
        claiming(task_spec)) or made[-1])
    execution = {**SPEC["execution"], "in_flight": in_flight, "workers": 8}
    pipeline.run({**SPEC, "execution": execution}, out=str(tmp_path / "run"), generations=20)
    largest = max(1, in_flight * 30 // 8)
    assert max(made[0].batches) == min(largest, 30)  # set cover is fast: batches reach the cap
    assert made[0].most <= in_flight * 30 + largest
