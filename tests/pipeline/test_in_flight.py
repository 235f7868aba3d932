"""`[execution] in_flight = "auto"` (the default): the children in flight an asynchronous run keeps,
chosen from the measured evaluation time and the workers; an integer keeps its old meaning."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evolution.async_loop import AUTO_MOST_IN_FLIGHT, CALL_SECONDS_PER_WORKER, AsyncLoop, auto_in_flight
from pipeline.reporting.summary import _workers
from pipeline.reporting.workers import WorkerUse
from pipeline.spec import SpecError, parse_spec
from pipeline.spec_execution import FIXED_IN_FLIGHT
from pipeline.spec_notes import unused_in_flight_note

SPEC = {
    "problem": "setcover", "seed": 3, "generations": 12,
    "population": {"size": 20, "offspring": 30, "algorithm": "steady-state"},
    "genome": {"kind": "bitstring"}, "setcover": {"N": 100}, "objectives": {"mode": "lexicographic"},
    "execution": {"workers": 0},
}

seconds = st.floats(1e-5, 10.0)
workers = st.integers(1, 1024)
offspring = st.integers(1, 8192)


@pytest.mark.parametrize("per_member, workers_, offspring_, chosen", [
    (0.002, 64, 1024, 8),  # the 16-core measure: 0.98 of the ceiling with 8, 0.49 with 2
    (0.002, 128, 2048, 16),
    (0.002, 32, 1024, 2),  # 2-core measure: 4 gained nothing here
    (0.020, 64, 1024, 2),  # long enough: parents as fresh as before
    (None, 64, 1024, FIXED_IN_FLIGHT),  # nothing measured yet
])
def test_auto_in_flight_at_the_measured_points(per_member, workers_, offspring_, chosen):
    assert auto_in_flight(per_member, workers_, offspring_) == chosen


@settings(max_examples=300, deadline=None)
@given(per_member=seconds, workers_=workers, offspring_=offspring)
def test_auto_in_flight_is_the_fewest_generations_whose_batches_amortise_the_calls(per_member, workers_, offspring_):
    """Between 2 and the cap; below the cap a worker's share holds a batch of CALL_SECONDS_PER_WORKER
    x W s of evaluation, and one generation fewer would not (unless at 2)."""
    chosen = auto_in_flight(per_member, workers_, offspring_)
    assert FIXED_IN_FLIGHT <= chosen <= AUTO_MOST_IN_FLIGHT
    wanted = CALL_SECONDS_PER_WORKER * workers_ / per_member  # members a batch should hold
    if chosen < AUTO_MOST_IN_FLIGHT:
        assert chosen * offspring_ / workers_ >= wanted * (1 - 1e-6)
    if chosen > FIXED_IN_FLIGHT:
        assert (chosen - 1) * offspring_ / workers_ < wanted * (1 + 1e-6)


@settings(max_examples=300, deadline=None)
@given(per_member=seconds, slower=st.floats(1.0, 100.0), workers_=workers, more=st.integers(0, 64),
       offspring_=offspring)
def test_auto_in_flight_grows_with_workers_and_shrinks_with_evaluation_time(per_member, slower, workers_, more,
                                                                            offspring_):
    chosen = auto_in_flight(per_member, workers_, offspring_)
    assert auto_in_flight(per_member * slower, workers_, offspring_) <= chosen
    assert auto_in_flight(per_member, workers_ + more, offspring_) >= chosen
    assert auto_in_flight(per_member, workers_, offspring_ + more) <= chosen


def _loop(workers_: int, offspring_: int, in_flight) -> AsyncLoop:
    algorithm = SimpleNamespace(settings=SimpleNamespace(size=offspring_, offspring=offspring_))
    scorer = SimpleNamespace(evaluator=SimpleNamespace(workers=workers_))
    loop = AsyncLoop(algorithm, scorer, tracker=None, recorder=None, seed=1, in_flight=in_flight)
    for worker in range(workers_ + 1):  # each worker's warm-up, then one that sets the estimate
        loop._per_member.learn([0.002], f"w{worker % max(workers_, 1)}")
    return loop


def test_auto_lets_the_batches_grow_where_an_integer_keeps_its_bound():
    """W = 64, t = 2 ms, lambda = 1,024: auto gives batches of 128 (as in_flight = 8), 2 of 32."""
    assert _loop(64, 1024, "auto").max_batch == _loop(64, 1024, 8).max_batch == 128
    assert _loop(64, 1024, 2).max_batch == 32
    assert _loop(64, 1024, "auto")._batch_size() == 128
    assert _loop(0, 1024, "auto").max_batch == 1  # in-process: one child at a time, as before


def _execution(in_flight) -> dict:
    return {**SPEC, "execution": {"workers": 0, "in_flight": in_flight}}


def test_the_spec_key_takes_auto_or_an_integer_and_defaults_to_auto():
    assert parse_spec(SPEC).execution.in_flight == "auto"
    assert parse_spec(_execution(8)).execution.in_flight == 8
    assert parse_spec(_execution("8")).execution.in_flight == 8  # --set execution.in_flight=8


@pytest.mark.parametrize("value", [0, 1001, "many", True, 2.5])
def test_a_bad_in_flight_is_refused_in_one_line(value):
    with pytest.raises(SpecError) as error:
        parse_spec(_execution(value))
    message = str(error.value)
    assert "\n" not in message.strip()
    assert 'execution.in_flight: must be "auto" or an integer from 1 to 1000' in message


def test_a_run_json_of_before_the_key_resumes_with_the_bound_it_ran_with():
    """run.json spells out the resolved spec: a run made before `in_flight` existed ran with 2."""
    recorded = {**SPEC, "execution": {"workers": 4}}
    assert parse_spec(recorded, resolved=True, recorded=True).execution.in_flight == FIXED_IN_FLIGHT
    assert parse_spec(_execution("auto"), resolved=True, recorded=True).execution.in_flight == "auto"
    assert parse_spec(recorded).execution.in_flight == "auto"  # a new spec: today's default


@pytest.mark.parametrize("in_flight", ["auto", FIXED_IN_FLIGHT])
def test_the_default_and_the_recorded_old_default_ask_for_nothing(in_flight):
    assert unused_in_flight_note({"in_flight": in_flight, "workers": 4}, "mu+lambda") is None


def test_the_workers_section_says_what_auto_chose():
    """64 actors at 2 ms, 1,024 evaluations a generation: auto chose 8, so 20 generations are too short."""
    use = WorkerUse(workers=64, nodes=1, generations=20, evaluations=20 * 1024, busy=0.9,
                    seconds_per_evaluation=0.002)
    text = _workers(use, {"in_flight": "auto"}, "steady-state")[1][1]
    assert "up to 8 generations' children" in text and "after about 80 generations" in text
    assert math.isclose(use.seconds_per_evaluation, 0.002)
