"""Steady-state islands that run their own loop (`[islands] loop = "own"`): each island an
asynchronous population of its own, its arrivals numbered by the island plan, migrating island
to island at its epochs' ends; deterministic and exactly resumable in-process, on Ray each
island's loop in its runner."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.evolution.islands import Plan
from pipeline.spec import SpecError, parse_spec
from tests.golden.digest import run_digests
from tests.pipeline.test_islands import kill_island_one
from tests.pipeline.test_steady_islands import _spec as _driver_spec

ROOT = Path(__file__).resolve().parents[2]


def _spec(lag: int = 0, **settings) -> dict:
    spec = _driver_spec(**settings)
    spec["islands"].update(loop="own", lag=lag)
    return spec


def _check_log(run, spec: dict) -> None:
    """Each island's arrivals a generation, with the plan's ids in arrival order, born when they
    arrived, bred from their own island; migrants as the plan routes them."""
    frame = run.individuals()
    plan = Plan.of(parse_spec(spec))
    arrivals, migrants = frame[frame["origin"] != "migrant"], frame[frame["origin"] == "migrant"]
    assert frame["id"].is_unique and (arrivals["born"] == arrivals["generation"]).all()
    for (generation, island), rows in arrivals.groupby(["generation", "island"]):
        wanted = plan.size if generation == 0 else plan.offspring
        first = plan.next_id(generation) + island * wanted
        assert len(rows) == wanted and sorted(rows["id"]) == list(range(first, first + wanted))
        assert list(rows.sort_values("order")["id"]) == sorted(rows["id"])  # ids in arrival order
    island_of = frame.set_index("id")["island"]
    for child in arrivals.itertuples():
        assert all(island_of[p] == child.island for p in child.parents)  # islands evolve apart
    for generation in range(1, len(run.generations())):
        placed = migrants[migrants["generation"] == generation]
        assert len(placed) == (sum(plan.rooms(generation)) if plan.migrates_after(generation) else 0)
        for migrant in placed.itertuples():
            assert island_of[migrant.parents[0]] in plan.sources(generation, migrant.island)
    assert run.generations()["best_cost"].is_monotonic_decreasing


@pytest.mark.parametrize("lag", [0, 1], ids=["synchronous", "lagged"])
def test_in_process_they_are_deterministic_resume_exactly_and_log_what_happened(tmp_path, lag):
    spec = _spec(lag)
    whole = pipeline.run(spec, out=str(tmp_path / "whole"))
    assert run_digests(whole.path) == run_digests(pipeline.run(spec, out=str(tmp_path / "again")).path)
    _check_log(whole, spec)
    driver = pipeline.run(_driver_spec(), out=str(tmp_path / "driver"))  # another run: its own run id
    assert driver.meta["run_id"] != whole.meta["run_id"]
    for stop in (3, 4):  # mid-epoch, and right after the migration that follows generation 4
        cut = pipeline.run(spec, out=str(tmp_path / f"cut-{stop}"), on_generation=lambda row: row["generation"] == stop)
        pipeline.resume(cut.path)
        assert run_digests(cut.path) == run_digests(whole.path)


@settings(max_examples=10, deadline=None)
@given(count=st.integers(1, 4), interval=st.integers(1, 3), migrants=st.integers(0, 11),
       topology=st.sampled_from(["ring", "random", "full"]), lag=st.integers(0, 1))
def test_any_island_model_logs_what_happened(tmp_path_factory, count, interval, migrants, topology, lag):
    spec = _spec(lag, count=count, interval=interval, migrants=migrants, topology=topology, generations=5)
    _check_log(pipeline.run(spec, out=str(tmp_path_factory.mktemp("own") / "run")), spec)


@pytest.mark.timeout(300)
def test_a_sigkilled_run_resumes_to_the_uninterrupted_log(tmp_path):
    spec = _spec()
    whole = pipeline.run(spec, out=str(tmp_path / "whole"))
    out = tmp_path / "killed"
    code = (f"import os, signal, pipeline\npipeline.run({spec!r}, out={str(out)!r}, "
            "on_generation=lambda row: row['generation'] == 5 and os.kill(os.getpid(), signal.SIGKILL))")
    killed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=240)
    assert killed.returncode == -signal.SIGKILL
    pipeline.resume(out)
    assert run_digests(out) == run_digests(whole.path)


def test_on_ray_each_island_runs_on_its_runner_and_a_run_killed_in_process_goes_on_there(tmp_path, ray_session):
    spec = _spec(generations=10)
    run = pipeline.run(spec, out=str(tmp_path / "ray"), workers=3)
    _check_log(run, spec)
    arrivals = run.individuals(columns=["worker", "origin"])
    assert arrivals[arrivals["origin"] != "migrant"]["worker"].str.startswith("actor-").all()
    cpu = json.loads((run.path / "run.json").read_text())["cpu_per_evaluation"]
    assert len(cpu["islands"]) == 3 and cpu["evaluations"] == run.generations()["evaluations"].iloc[-1]
    stopped = pipeline.run(spec, out=str(tmp_path / "stopped"), generations=4, workers=0)
    resumed = pipeline.resume(stopped.path, generations=10, workers=3)
    _check_log(resumed, spec)
    columns = ["generation", "id", "cost"]
    first = resumed.individuals(columns=columns, generations=range(5))
    short = pipeline.run(spec, out=str(tmp_path / "short"), generations=4).individuals(columns=columns)
    assert first.to_dict("records") == short.to_dict("records")  # what was done in-process stays


@pytest.mark.parametrize("change, message", [
    ({"population": {"algorithm": "mu+lambda"}, "islands": {"loop": "driver"}},
     "islands.loop: 'driver' is for steady-state islands"),
    ({"islands": {"loop": "driver", "lag": 1}}, "islands.lag: steady-state islands in the driver's loop"),
    ({"islands": {"loop": "apart"}}, "islands.loop"),
])
def test_a_loop_they_cannot_run_is_refused_in_one_line(tmp_path, change, message):
    spec = _spec()
    for section, values in change.items():
        spec[section].update(values)
    with pytest.raises(SpecError, match=message) as raised:
        pipeline.run(spec, out=str(tmp_path / "never"))
    assert "\n" not in str(raised.value) and not (tmp_path / "never").exists()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("victim", ["runner", "actor"])
def test_a_runner_or_an_actor_killed_on_ray_loses_nothing_the_log_needs(tmp_path, ray_session, monkeypatch, victim):
    """A runner killed: the islands start again from the last recorded generation (its batches in
    flight are lost, as a steady-state run's are on resume). An actor killed: its island's other
    actors take its batches, the driver replaces it, no restart. Either way a whole log."""
    spec = _spec(generations=8, count=2)  # two actors an island on the session's 4 CPUs
    begun = kill_island_one(ray_session, monkeypatch, victim)
    run = pipeline.run(spec, out=str(tmp_path / "killed"), workers=4)
    assert len(begun) == (2 if victim == "runner" else 1)
    _check_log(run, spec)
    assert run.generations()["generation"].max() == 8


def test_a_generational_spec_naming_its_own_loop_keeps_its_run_id():
    spec = _driver_spec()
    spec["population"]["algorithm"] = "mu+lambda"
    named = {**spec, "islands": {**spec["islands"], "loop": "own"}}
    assert parse_spec(named).fingerprint() == parse_spec(spec).fingerprint()
    driver = {**_driver_spec(), "islands": {**_driver_spec()["islands"], "loop": "driver"}}
    assert parse_spec(driver).fingerprint() == parse_spec(_driver_spec()).fingerprint()
    assert parse_spec(_spec()).fingerprint() != parse_spec(_driver_spec()).fingerprint()
