"""The island model: a log that says which island did what, migrants that really move, the same
log on 0, 1 and 2 workers, stops and SIGKILLs mid-epoch that leave exactly what a shorter
uninterrupted run leaves, and ids and migrations that match the operators they are built on."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from deap import base
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.records import RunDir
from operators import migration
from pipeline.commands.run_lines import done_line
from pipeline.evolution.islands import Plan, immigrants, migration_rng, settle
from pipeline.evolution.members import Member
from pipeline.spec import SpecError, load_spec
from tests.golden.digest import run_digests
from tests.pipeline.test_runs import NIM_SPEC, SETCOVER_SPEC

ISLANDS = "\n[islands]\ncount = 3\ninterval = 2\nmigrants = 2\n"
SAMPLED = NIM_SPEC.format(generations=7, kind="table", games=30) + ISLANDS  # survivors re-scored
SETCOVER = SETCOVER_SPEC.replace("generations = 4", "generations = 7") + ISLANDS + 'topology = "random"\n'
LAG = "lag = 1\n"  # appended to the [islands] section above
ROOT = Path(__file__).resolve().parents[2]


def _spec(tmp_path: Path, text: str, name: str = "spec") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def _plain(value):
    """A logged genome as nested Python lists (comparable with ==)."""
    return [_plain(v) for v in value] if isinstance(value, (list, np.ndarray)) else value


def _run(tmp_path: Path, text: str, out: str, **overrides) -> pipeline.Run:
    return pipeline.run(_spec(tmp_path, text), out=str(tmp_path / out), **overrides)


@pytest.mark.parametrize("text", [SAMPLED, SETCOVER], ids=["nim-sampled-ring", "setcover-random"])
def test_the_log_says_which_island_did_what_and_migrants_move(tmp_path, text):
    run = _run(tmp_path, text, "run")
    spec = run.spec
    size, offspring = spec.population.size, spec.population.offspring
    plan = Plan.of(spec)
    rows = run.individuals()
    placing = (rows.origin == "migrant") & (rows.born == rows.generation)  # a placement, not an evaluation
    scored, migrants = rows[~placing], rows[placing]
    assert (migrants.eval_seconds == 0).all() and (migrants.worker == "").all()
    first = scored[scored.generation == 0]
    assert (first["id"] // size == first["island"]).all()  # island i's first members: ids i*size ...
    per_island = scored.groupby(["generation", "island"]).size().unstack()
    rescored = size if run.spec.sampling.reevaluate and text is SAMPLED else 0
    assert (per_island.loc[0] == size).all() and (per_island.loc[1:] == offspring + rescored).all().all()
    assert list(run.generations()["evaluations"]) == list(scored.groupby("generation").size().cumsum())
    evaluations = int(run.generations()["evaluations"].iloc[-1])  # the CLI's last line: placements not counted
    assert f"  ·  {evaluations:,} evaluations" in done_line(tmp_path / "run", 0)
    assert not rows.duplicated(["generation", "id"]).any()
    # Migrants: copies of the best of their source island, placed after generations 2, 4, 6.
    assert set(migrants.generation) == {2, 4, 6} and migrants.selected.all()
    latest = rows.sort_values("generation", kind="stable")  # an emigrant may be an earlier migrant
    for _, m in migrants.iterrows():
        parent = latest[(latest.id == m.parents[0]) & (latest.generation <= m.generation)].iloc[-1]
        assert parent.island in plan.sources(m.generation, m.island) and parent.island != m.island
        assert _plain(parent.genome) == _plain(m.genome) and m.born == m.generation
    # ... who then live (and, under sampled fitness, are scored again) in their destination.
    members = run.populations()
    assert (members.groupby(["generation", "island"]).size() == size).all()
    placed = members[members.origin == "migrant"]
    assert set(placed.id) == set(migrants.id)
    assert (placed.merge(migrants, on="id").pipe(lambda f: f.island_x == f.island_y)).all()
    if rescored:  # a migrant alive in the next generation is scored again there, in its new island
        again = scored[scored.id.isin(migrants.id)].merge(migrants, on="id")
        assert len(again) and (again.island_x == again.island_y).all()
    population_files = pd.read_parquet(run.path / "population")
    assert (population_files.groupby(["generation", "island"]).size() == size).all()
    for name in [c[len("best_"):] for c in run.generations() if c.startswith("best_")]:
        if name in members:  # generations.parquet: over all islands
            best = members.groupby("generation")[name].agg("max" if name != "cost" else "min")
            np.testing.assert_allclose(best, run.generations()[f"best_{name}"])
    run.report()
    assert "islands: 3 of" in (run.path / "report" / "summary.md").read_text()


@pytest.mark.parametrize("lag", ["", LAG], ids=["synchronous", "lagged"])
def test_same_log_on_0_1_and_2_workers_and_a_stop_on_ray_discards_the_epoch_in_flight(tmp_path, ray_session, lag):
    text = SAMPLED.replace("generations = 7", "generations = 5") + lag
    local = _run(tmp_path, text, "local", workers=0)
    expected = run_digests(local.path)
    assert run_digests(_run(tmp_path, text, "one", workers=1).path) == expected
    two = _run(tmp_path, text, "two", workers=2, chunk_size=3, execution__wait_for_workers=True)
    assert run_digests(two.path) == expected
    assert len(set(two.individuals()["worker"]) - {""}) == 2
    stopped = _run(tmp_path, text, "stopped", workers=2, on_generation=lambda row: row["generation"] == 3)
    assert stopped.meta["stop_reason"] == "callback"
    assert run_digests(stopped.path) == run_digests(_run(tmp_path, text, "short", workers=0, generations=3).path)


def test_a_target_reached_mid_epoch_writes_what_a_run_of_that_length_writes(tmp_path):
    text = SAMPLED.replace("generations = 7", "generations = 9") + "[stop]\ntarget = 0.37\n"
    stopped = _run(tmp_path, text, "target")
    assert stopped.meta["stop_reason"] == "target"
    last = int(stopped.generations()["generation"].iloc[-1])
    assert last % 2 == 1  # interval 2: the stop came mid-epoch, with generation last + 1 already evolved
    assert run_digests(stopped.path) == run_digests(_run(tmp_path, text, "short", generations=last).path)


def _killed(tmp_path: Path, spec: Path, name: str, kill_at: int) -> Path:
    out = tmp_path / name
    code = ("import os, signal, pipeline\n"
            f"pipeline.run({str(spec)!r}, out={str(out)!r}, on_generation=lambda row: row['generation'] == {kill_at} "
            "and os.kill(os.getpid(), signal.SIGKILL))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    return out


# Killed at generation k: resume starts after whatever the writer had committed, k or before
# (`Recorder`: up to QUEUE_GENERATIONS queued); with interval 2, mid-epoch or after a migration.
@pytest.mark.parametrize("lag", ["", LAG], ids=["synchronous", "lagged"])
@pytest.mark.parametrize("kill_at", [4, 5])
def test_sigkill_then_resume_gives_the_uninterrupted_log(tmp_path, kill_at, lag):
    spec = _spec(tmp_path, SAMPLED + lag)
    whole = pipeline.run(spec, out=str(tmp_path / "whole"))
    killed = _killed(tmp_path, spec, "killed", kill_at)
    assert 0 <= RunDir(killed).last_generation() <= kill_at  # committed, in recent/
    pipeline.resume(killed)
    assert run_digests(killed) == run_digests(whole.path)


@pytest.mark.parametrize("lag", ["", LAG], ids=["synchronous", "lagged"])
def test_a_run_killed_in_process_resumes_on_ray_workers_to_the_same_log(tmp_path, ray_session, lag):
    spec = _spec(tmp_path, SETCOVER + lag)
    whole = pipeline.run(spec, out=str(tmp_path / "whole"))
    killed = _killed(tmp_path, spec, "killed", 3)
    pipeline.resume(killed, workers=2)
    assert run_digests(killed) == run_digests(whole.path)


def test_lagged_migrants_are_the_best_of_their_source_one_migration_earlier(tmp_path):
    """With `lag = 1` the migrants placed after g are the best of their source island as it was
    after g - interval (before that migration's arrivals), so no island waits for another's epoch."""
    from pipeline.evolution.parts import build_parts

    run = _run(tmp_path, SETCOVER.replace('topology = "random"', 'topology = "ring"').replace(
        "generations = 7", "generations = 9") + LAG, "lagged")
    plan, objectives = Plan.of(run.spec), build_parts(run.spec).objectives
    rows, alive = run.individuals(), run.populations()
    placed = rows[(rows.origin == "migrant") & (rows.born == rows.generation)]
    checked = 0
    for m in range(plan.interval, 10, plan.interval):
        basis = m - plan.interval
        for island in range(plan.count):
            [source] = plan.sources(m, island)
            home = alive[(alive.generation == basis) & (alive.island == source)]
            home = home[~((home.origin == "migrant") & (home.born == basis))]  # arrived after basis
            value = {int(r["id"]): objectives.fitness(r).wvalues for _, r in home.iterrows()}
            parents = [int(p[0]) for p in placed[(placed.generation == m) & (placed.island == island)].parents]
            assert len(parents) == plan.migrants and set(parents) <= set(value)
            assert sorted(value[p] for p in parents) == sorted(value.values())[-plan.migrants:]
            checked += 1
    assert checked == 4 * plan.count


@pytest.mark.parametrize("change, message", [
    ('topology = "random"', "islands.topology: must be one of 'ring', 'random' or 'full' (got 'star')"),
    ("count = 3", "islands.count: must be >= 1 (got 0)"),
    ("migrants = 2", "islands.migrants: must be < population.size = 6, as each island keeps its best (got 6)"),
    ("interval = 2", "islands.cont: unknown key; did you mean 'count'?"),
    ("migrants = 2", "islands.lag: must be <= 1 (got 2)"),
])
def test_a_bad_islands_section_is_one_line_naming_the_field(tmp_path, change, message):
    bad = {'topology = "random"': 'topology = "star"', "count = 3": "count = 0", "migrants = 2": "migrants = 6",
           "interval = 2": "interval = 2\ncont = 3"}[change]
    if "lag" in message:
        bad = "migrants = 2\nlag = 2"
    with pytest.raises(SpecError) as raised:
        load_spec(_spec(tmp_path, SETCOVER.replace(change, bad)))
    assert "\n" not in str(raised.value) and message in str(raised.value)


def test_islands_change_the_fingerprint_and_refuse_an_algorithm_they_cannot_run(tmp_path):
    plain = load_spec(_spec(tmp_path, SETCOVER_SPEC, "plain"))
    islands = load_spec(_spec(tmp_path, SETCOVER, "islands"))
    assert plain.islands is None and plain.fingerprint() != islands.fingerprint()
    # lag = 0 is what runs made before the key did: the same run id; lag = 1 is another run
    for folder, lag in (("zero", "lag = 0\n"), ("one", LAG)):
        (tmp_path / folder).mkdir()
        other = load_spec(_spec(tmp_path / folder, SETCOVER + lag, "islands")).fingerprint()
        assert (other == islands.fingerprint()) == (lag != LAG)
    with pytest.raises(SpecError, match="islands: the island model runs the algorithms mu.lambda, mu,lambda, nsga2, "
                                        "steady-state, not population.algorithm = 'm:Mine'"):
        load_spec(_spec(tmp_path, SETCOVER.replace("[population]", '[population]\nalgorithm = "m:Mine"'), "user"))


class _Fit(base.Fitness):
    weights = (1.0,)


@settings(max_examples=80, deadline=None)
@given(count=st.integers(1, 5), size=st.integers(2, 6), offspring=st.integers(1, 5), interval=st.integers(1, 3),
       topology=st.sampled_from(migration.TOPOLOGIES), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_ids_cover_every_number_once_and_settling_equals_the_migration_operator(count, size, offspring, interval,
                                                                               topology, seed, data):
    migrants = data.draw(st.integers(0, size - 1))
    plan = Plan(count, interval, migrants, topology, size, offspring, seed)
    given_ids = list(range(count * size))
    for g in range(1, 3 * interval + 2):
        assert plan.next_id(g) == len(given_ids)
        given_ids += [plan.next_id(g) + i * offspring + j for i in range(count) for j in range(offspring)]
        if plan.migrates_after(g):
            given_ids += [plan.migrant_id(g, i) + k for i in range(count) for k in range(plan.rooms(g)[i])]
    assert given_ids == list(range(len(given_ids)))
    # One island's settling, island by island, is the migration operator applied to all at once.
    rng = np.random.default_rng(seed)
    homes = {i: [Member(i * size + j, 0, int(rng.integers(1000)), [], "init", {}, fitness=_Fit((int(rng.integers(5)),)),
                        island=i) for j in range(size)] for i in range(count)}
    m = interval
    whole = migration.migrate([homes[i] for i in range(count)], migrants, topology, migration_rng(seed, m))
    for i in range(count):
        arrivals = immigrants(plan, m, i, homes) if plan.migrates_after(m) else []
        settled = settle(homes[i], arrivals)
        assert [x.genome for x in settled] == [x.genome for x in whole[i]]
        assert all(a.origin == "migrant" and a.island == i and a.parents[0] // size != i for a in arrivals)


def _until(condition, timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


@pytest.mark.timeout(180)
def test_an_islands_actors_lose_no_work_when_one_dies_and_take_its_successor(ray_session):
    import threading

    from pipeline.evaluation import LocalEvaluator, evaluation_seeds, make_evaluator
    from pipeline.islands.actors import IslandActors
    from tests.pipeline.test_evaluation import BIG, BIG_LISTS, assert_same_columns, random_genomes

    genomes = random_genomes(8000, BIG_LISTS, density=0.5)  # ~1 s of compute in 32 chunks
    seeds = evaluation_seeds(11, 0, len(genomes))
    expected = LocalEvaluator(BIG).evaluate(genomes, seeds).columns
    with make_evaluator(BIG, workers=2, wait_for_all=True) as pool:
        evaluator = IslandActors(pool.slots(), fixed_chunk=250)
        killer = threading.Timer(0.1, ray_session.kill, [pool.actors[0]])
        killer.start()
        scored = evaluator.evaluate(genomes, seeds)
        killer.join()
        assert scored.failures >= 1
        assert_same_columns(scored.columns, expected)
        assert [number for number, _ in evaluator.lost] == [1]
        pool.replace(1, evaluator.lost[0][1])  # as the driver does: the successor handed to the island
        pool.wait_until_ready()
        evaluator.adopt(pool.slots())
        evaluator.fixed_chunk = 25
        again = evaluator.evaluate(genomes[:800], seeds[:800])
        assert again.failures == 0 and {w.split("@")[0] for w in again.worker} == {"actor-2", "actor-3"}
        assert_same_columns(again.columns, {k: v[:800] for k, v in expected.items()})


def test_islands_lost_mid_run_start_again_from_the_last_recorded_generation(tmp_path, monkeypatch):
    from pipeline.islands import loop as island_loop

    whole = _run(tmp_path, SETCOVER, "whole")
    real, calls = island_loop.InProcessIslands.results, []

    def flaky(self, timeout):  # the third epoch round's runner "dies" once
        calls.append(timeout)
        if len(calls) == 3:
            raise island_loop.IslandsLost("island 1's runner: ActorDiedError: node lost")
        return real(self, timeout)

    monkeypatch.setattr(island_loop.InProcessIslands, "results", flaky)
    restarted = _run(tmp_path, SETCOVER, "restarted")
    assert len(calls) > 4 and run_digests(restarted.path) == run_digests(whole.path)


def test_islands_lost_again_and_again_end_the_run_with_the_cause_and_the_generations_done(tmp_path, monkeypatch):
    from pipeline.evaluation import EvaluationError
    from pipeline.islands import loop as island_loop

    real, calls = island_loop.InProcessIslands.results, []

    def failing(self, timeout):  # after the first epochs, every restart is lost again
        calls.append(timeout)
        if len(calls) > 1:
            raise island_loop.IslandsLost("the island dispatcher: ActorDiedError: killed")
        return real(self, timeout)

    monkeypatch.setattr(island_loop.InProcessIslands, "results", failing)
    with pytest.raises(EvaluationError, match=r"lost 4 times \(they start again at most 3\); last cause: the "
                                              r"island dispatcher: ActorDiedError: killed"):
        _run(tmp_path, SETCOVER, "lost")
    assert len(calls) == 1 + island_loop.MAX_RESTARTS + 1
    assert pd.read_parquet(tmp_path / "lost" / "generations")["generation"].max() >= 1


def _pid(ray_session, actor) -> int:
    import os

    return ray_session.get(actor.__ray_call__.remote(lambda _: os.getpid()))


def kill_island_one(ray_session, monkeypatch, victim: str) -> list[int]:
    """Make the island run SIGKILL (as the OOM killer would) island 1's runner or its first actor
    at the driver's third look for results, with epochs to run (its pid taken before any epoch is
    queued); returns the list that counts the islands' (re)starts."""
    import os

    from pipeline.islands import loop as island_loop
    from pipeline.islands import on_ray

    real, calls = on_ray.RayIslands.results, []

    def killing(self, timeout):
        calls.append(timeout)
        if len(calls) == 1:
            share = [number for number, island in sorted(self.owner.items()) if island == 1]
            target = self.runners[1] if victim == "runner" else self.pool.actors[share[0] - 1]
            calls.append(_pid(ray_session, target))
        if len(calls) == 3:
            os.kill(calls[1], signal.SIGKILL)
        return real(self, timeout)

    begun, begin = [], island_loop.IslandLoop._begin
    monkeypatch.setattr(island_loop.IslandLoop, "_begin", lambda self, state: begun.append(1) or begin(self, state))
    monkeypatch.setattr(on_ray.RayIslands, "results", killing)
    return begun


@pytest.mark.timeout(300)
@pytest.mark.parametrize("victim", ["runner", "actor"])
def test_a_runner_or_an_actor_killed_on_ray_gives_the_same_log(tmp_path, ray_session, monkeypatch, victim):
    """A runner killed: the islands start again from the last recorded generation. An evaluation
    actor killed: its island's other actors take its chunks, the driver replaces it, no restart."""
    text = SAMPLED.replace("generations = 7", "generations = 5")
    expected = run_digests(_run(tmp_path, text, "local", workers=0).path)
    begun = kill_island_one(ray_session, monkeypatch, victim)
    run = _run(tmp_path, text, "killed", workers=4)
    assert len(begun) == (2 if victim == "runner" else 1)
    assert run_digests(run.path) == expected


@settings(max_examples=200, deadline=None)
@given(workers=st.integers(1, 128), n=st.integers(1, 100_000))
def test_island_chunks_are_one_per_actor_up_to_the_largest_chunk(workers, n):
    from pipeline.evaluation.core import MAX_AUTO_CHUNK
    from pipeline.islands.actors import island_chunk

    size = island_chunk(n, workers)
    chunks = -(-n // size)
    assert 1 <= size <= MAX_AUTO_CHUNK
    if n <= MAX_AUTO_CHUNK * workers:  # every actor one chunk at most, every chunk as even as can be
        assert chunks <= workers and size == -(-n // workers)
    else:
        assert size == MAX_AUTO_CHUNK


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans(), st.booleans()), max_size=40),
       parts=st.integers(1, 4), hall=st.integers(0, 12), mode=st.sampled_from(["lexicographic", "pareto"]))
def test_the_hall_over_every_islands_candidates_is_the_hall_over_all_they_scored(tmp_path_factory, values, parts,
                                                                                hall, mode):
    from pipeline.evolution.parts import build_parts
    from pipeline.evolution.tracking import Tracker

    text = SETCOVER_SPEC.replace('mode = "lexicographic"', f'mode = "{mode}"')
    text = text.replace("offspring = 10", 'offspring = 10\nalgorithm = "nsga2"') if mode == "pareto" else text
    spec = load_spec(_spec(tmp_path_factory.mktemp("hall"), text))
    objectives = build_parts(spec).objectives
    tracker = Tracker(spec, objectives)
    generation = 5

    def member(i: int, cost: int, covered: int, failed: bool, rescored: bool) -> Member:
        columns = {"cost": float(cost), "covered": float(covered), "feasible": True}
        error = "boom" if failed else None
        return Member(i, generation - 1 if rescored else generation, None, [], "mutation", columns,
                      fitness=objectives.fitness(columns, error), error=error)

    scored = [member(100 + i, *v) for i, v in enumerate(values)]
    before = [member(i, c % 4, c // 4, False, True) for i, c in enumerate(range(hall))]  # an older hall
    before = [m for m in before] + [m for m in scored[:2] if m.born < generation]  # a re-scored one held
    assume(before or any(m.viable for m in scored))  # else the generation stops the run (GenerationFailed)
    split = [scored[i::parts] for i in range(parts)]
    candidates = [m for part in split for m in tracker.candidates(generation, part)]
    assert {m.id for m in tracker._hall_of_fame(before, candidates)} == \
        {m.id for m in tracker._hall_of_fame(before, scored)}


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans()), max_size=8),
                       min_size=1, max_size=12), parts=st.integers(1, 3))
def test_islands_sending_only_what_enters_their_own_hall_give_the_same_hall(tmp_path_factory, values, parts):
    """Without re-scoring, a member that does not enter its island's own hall cannot enter the
    hall over every island: generation by generation, the driver's hall is the same."""
    from pipeline.evolution.parts import build_parts
    from pipeline.evolution.tracking import Tracker

    spec = load_spec(_spec(tmp_path_factory.mktemp("halls"), SETCOVER_SPEC))
    objectives = build_parts(spec).objectives
    tracker = Tracker(spec, objectives)
    every, sent, halls, ids = [], [], {}, iter(range(10**6))
    for generation, scores in enumerate(values):
        scored = []
        for cost, covered, failed in scores:
            columns = {"cost": float(cost), "covered": float(covered), "feasible": True}
            error = "boom" if failed else None
            scored.append(Member(next(ids), generation, None, [], "mutation", columns,
                                 fitness=objectives.fitness(columns, error), error=error))
        split = [scored[i::parts] for i in range(parts)]
        candidates = [tracker.candidates(generation, part) for part in split]
        entering = []
        for island, chosen in enumerate(candidates):
            chosen, halls[island] = tracker.entering(halls.get(island, []), chosen)
            entering += chosen
        every = tracker._hall_of_fame(every, [m for chosen in candidates for m in chosen])
        sent = tracker._hall_of_fame(sent, entering)
        assert [m.id for m in sent] == [m.id for m in every]
        assert any(m.viable for m in entering) == any(m.viable for m in scored)


@settings(deadline=None)
@given(nodes=st.lists(st.sampled_from("abc"), min_size=1, max_size=40), islands=st.integers(1, 12))
def test_each_island_gets_an_even_share_of_the_actors_one_nodes_together(nodes, islands):
    from pipeline.islands.actors import shares

    slots = [(f"handle-{n}", n, f"setup-{n}") for n in range(1, len(nodes) + 1)]
    split = shares(slots, nodes, islands)
    assert len(split) == islands and all(split)
    if len(slots) >= islands:  # each actor on one island; sizes differ by one at most
        assert sorted(s for share in split for s in share) == sorted(slots)
        assert max(map(len, split)) - min(map(len, split)) <= 1
        order = [nodes[number - 1] for share in split for _, number, _ in share]
        assert order == sorted(order)  # one node's actors next to each other, so shares span few nodes
    else:  # fewer actors than islands: each island one of them, every actor used
        assert {share[0] for share in split} == set(slots)
