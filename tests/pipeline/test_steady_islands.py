"""Steady-state islands: islands that evolve apart in the driver's asynchronous loop, each
arrival told to its own island, migrants copied along the topology every `interval`
generations; deterministic and exactly resumable in-process, a log that says what happened."""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parents[2]


def _spec(count: int = 3, interval: int = 2, migrants: int = 2, topology: str = "ring", generations: int = 8,
          size: int = 12, offspring: int = 10) -> dict:
    return {"problem": "setcover", "seed": 5, "generations": generations,
            "population": {"size": size, "offspring": offspring, "algorithm": "steady-state"},
            "genome": {"kind": "bitstring"}, "setcover": {"N": 60}, "objectives": {"mode": "lexicographic"},
            "islands": {"count": count, "interval": interval, "migrants": migrants, "topology": topology},
            "execution": {"workers": 0}}


def _check_islands_log(run, spec: dict, in_process: bool) -> None:
    """Arrivals in order, children bred within their own island from members that had arrived,
    and after every migration point exactly the copies the plan routes, from their sources,
    placed in the populations."""
    frame = run.individuals()
    islands, size, offspring = spec["islands"]["count"], spec["population"]["size"], spec["population"]["offspring"]
    arrivals, migrants = frame[frame["origin"] != "migrant"], frame[frame["origin"] == "migrant"]
    assert arrivals.groupby("generation").size().tolist() == [size * islands] + [offspring * islands] * (
        len(run.generations()) - 1)
    assert sorted(arrivals["order"].astype(int)) == list(range(len(arrivals)))
    assert migrants["order"].isna().all() and frame["id"].is_unique
    if in_process:  # one child at a time, from the island with the fewest births: every island its share
        per_island = arrivals.groupby(["generation", "island"]).size()
        assert set(per_island.loc[0]) == {size} and set(per_island.drop(index=0)) == {offspring}
    rows = frame.set_index("id")
    for child in arrivals.itertuples():
        assert all(rows.at[p, "island"] == child.island for p in child.parents)  # islands evolve apart
        assert all(rows.at[p, "order"] < child.order for p in child.parents if rows.at[p, "origin"] != "migrant")
    for migrant in migrants.itertuples():  # a copy of its emigrant, placed, not evaluated
        parent = rows.loc[migrant.parents[0]]
        assert list(migrant.genome) == list(parent["genome"]) and migrant.cost == parent["cost"]
        assert migrant.born == migrant.generation and migrant.eval_seconds == 0 and migrant.worker == ""
        assert parent["generation"] <= migrant.generation
    plan = Plan.of(parse_spec(spec))
    population = run.populations()
    for generation in range(1, len(run.generations())):
        placed = migrants[migrants["generation"] == generation]
        if not plan.migrates_after(generation):
            assert placed.empty
            continue
        assert len(placed) == sum(plan.rooms(generation))
        for island in range(islands):
            arrived = placed[placed["island"] == island]
            sources = plan.sources(generation, island)
            assert {rows.at[p[0], "island"] for p in arrived["parents"]} <= set(sources)
            assert set(arrived["id"]) <= set(population[(population["generation"] == generation)
                                                         & (population["island"] == island)]["id"])
    assert run.generations()["best_cost"].is_monotonic_decreasing  # replace-worst and migration keep the best


def test_in_process_islands_are_deterministic_resume_exactly_and_log_what_happened(tmp_path):
    spec = _spec()
    whole = pipeline.run(spec, out=str(tmp_path / "whole"))
    again = pipeline.run(spec, out=str(tmp_path / "again"))
    assert run_digests(whole.path) == run_digests(again.path)
    _check_islands_log(whole, spec, in_process=True)
    for stop in (3, 4):  # before the migration after generation 4, and right after it
        cut = pipeline.run(spec, out=str(tmp_path / f"cut-{stop}"),
                           on_generation=lambda row: row["generation"] == stop)
        assert cut.meta["stop_reason"] == "callback"
        pipeline.resume(cut.path)
        assert run_digests(cut.path) == run_digests(whole.path)


@settings(max_examples=12, deadline=None)
@given(count=st.integers(1, 4), interval=st.integers(1, 3), migrants=st.integers(0, 11),
       topology=st.sampled_from(["ring", "random", "full"]))
def test_any_island_model_logs_what_happened(tmp_path_factory, count, interval, migrants, topology):
    spec = _spec(count, interval, migrants, topology, generations=5)
    run = pipeline.run(spec, out=str(tmp_path_factory.mktemp("islands") / "run"))
    _check_islands_log(run, spec, in_process=True)


def test_on_ray_workers_the_islands_log_what_happened(tmp_path, ray_session):
    spec = _spec(generations=10)
    run = pipeline.run(spec, out=str(tmp_path / "ray"), workers=2, execution__handover=False)
    _check_islands_log(run, spec, in_process=False)
    arrivals = run.individuals(columns=["worker", "origin"])
    assert arrivals[arrivals["origin"] != "migrant"]["worker"].str.startswith("actor-").all()


def test_steady_state_islands_refuse_lag_in_one_line(tmp_path):
    spec = _spec()
    spec["islands"]["lag"] = 1
    with pytest.raises(SpecError, match="islands.lag: steady-state islands in the driver's loop never wait") as raised:
        pipeline.run(spec, out=str(tmp_path / "never"))
    assert "\n" not in str(raised.value) and not (tmp_path / "never").exists()


@pytest.mark.timeout(300)
def test_a_sigkilled_run_resumes_to_the_uninterrupted_log(tmp_path):
    """SIGKILL after the migration that follows generation 4 (in-process: deterministic), then resume.
    The writer commits each generation as it comes (`LINGER_SECONDS = 0`: no batching of fast
    generations) and the loop waits for it before the next (`QUEUE_GENERATIONS = 1`: on a loaded
    machine the writer fell 3 generations behind), so the resume starts right after that migration."""
    spec = _spec()
    whole = pipeline.run(spec, out=str(tmp_path / "whole"))
    out = tmp_path / "killed"
    code = (f"import os, signal, pipeline, pipeline.records.recorder; pipeline.records.recorder.LINGER_SECONDS = 0; "
            "pipeline.records.recorder.QUEUE_GENERATIONS = 1; "
            f"pipeline.run({spec!r}, out={str(out)!r}, "
            "on_generation=lambda row: row['generation'] == 5 and os.kill(os.getpid(), signal.SIGKILL))")
    killed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=240)
    assert killed.returncode == -signal.SIGKILL
    assert pipeline.open_run(out).individuals()["generation"].max() in (4, 5)  # 5 may not be on disk yet
    pipeline.resume(out)
    assert run_digests(out) == run_digests(whole.path)


def test_after_a_resume_the_batches_lost_in_flight_do_not_count_against_their_island():
    """A batch is bred from the island with the fewest members arrived or in flight. Batches in
    flight when a driver died never arrive: a resumed driver (a new algorithm object) must not
    count them, or that island would stay behind the others for the rest of the run."""
    import numpy as np

    from pipeline.evolution.parts import build_parts
    from pipeline.evolution.state import State

    spec = parse_spec(_spec())
    algorithm, state, rng = build_parts(spec).algorithm, State(), np.random.default_rng(0)
    for _ in range(4):  # none told yet: islands 0, 1, 2, then 0 again
        batch = algorithm.ask(state, rng, 4)
        state = algorithm.bred(state, batch)
    assert algorithm.births(state) == [8, 4, 4]
    assert algorithm.ask(state, rng, 4)[0].island == 1  # this driver still awaits island 0's two batches
    resumed = build_parts(spec).algorithm  # they were lost with the driver that bred them
    assert resumed.ask(state, rng, 4)[0].island == 0


@settings(max_examples=60, deadline=None)
@given(size=st.integers(2, 6), migrants=st.integers(1, 5), topology=st.sampled_from(["ring", "full"]),
       fills=st.lists(st.integers(1, 6), min_size=2, max_size=4))
def test_a_migration_fills_an_island_not_yet_full_before_replacing_any_member(size, migrants, topology, fills):
    """On workers an island can still be short of `size` members at a migration (its first
    arrivals late): the migrants take its empty places first, and replace members only beyond
    them; each island ends with at most `size`, keeps its best, and the ids run on unbroken."""
    from deap import base, creator

    from pipeline.evolution.islands import migrate_all
    from pipeline.evolution.members import Member

    if not hasattr(creator, "FitnessMigrationTest"):
        creator.create("FitnessMigrationTest", base.Fitness, weights=(1.0,))
    migrants = min(migrants, size - 1)
    plan = Plan(len(fills), 1, migrants, topology, size, 1, 0)
    populations, next_id = [], 0
    for island, fill in enumerate(fills):
        members = [Member(next_id + k, 0, [k], [], "random", {}, fitness=creator.FitnessMigrationTest((float(k),)),
                          island=island) for k in range(min(fill, size))]
        populations.append(members)
        next_id += len(members)
    after, placed = migrate_all(plan, 1, populations, next_id)
    assert [m.id for m in placed] == list(range(next_id, next_id + len(placed)))
    for island, (home, now) in enumerate(zip(populations, after)):
        offered = sum(min(migrants, len(populations[source])) for source in plan.sources(1, island))
        arrived = [m for m in placed if m.island == island]
        free = size - len(home)
        assert len(arrived) == min(offered, free + len(home) - 1, size - 1)
        assert len(now) == min(len(home) + len(arrived), size) <= size
        assert {m.id for m in arrived} <= {m.id for m in now}
        kept = {m.id for m in home} & {m.id for m in now}
        assert len(kept) == len(home) - max(len(arrived) - free, 0)  # replaced only beyond the empty places
        assert max(home, key=lambda m: m.fitness.wvalues).id in kept
