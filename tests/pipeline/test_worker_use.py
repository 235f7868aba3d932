"""How busy a run kept its Ray workers, from its logs (`pipeline/reporting/workers.py`): the seconds in
evaluation calls over the actors present times the wall seconds, generation 0, in-process
generations, placed migrants and generations without a wall time left out; a run on Ray says it in
its report, an in-process run does not."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.reporting.workers import WorkerUse, worker_use, worker_use_of

SLEEPY = Path(__file__).resolve().parents[2] / "benchmarks" / "sleepy"
ACTORS = [f"actor-{n}@10.0.0.{n % 3}/node{n % 3}" for n in range(1, 7)]

# a generation: its wall seconds, and its rows as (worker label, evaluation seconds, placed migrant)
row = st.tuples(st.sampled_from([*ACTORS, "local"]), st.floats(0.0, 1.0), st.booleans())
generation = st.tuples(st.floats(0.01, 10.0), st.lists(row, min_size=1, max_size=12))


def _frames(generations: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [(g, "" if migrant else worker, 0.0 if migrant else seconds, "migrant" if migrant else "crossover", g)
            for g, (_, scored) in enumerate(generations) for worker, seconds, migrant in scored]
    individuals = pd.DataFrame(rows, columns=["generation", "worker", "eval_seconds", "origin", "born"])
    return individuals, pd.DataFrame({"generation": range(len(generations)),
                                      "wall_seconds": [wall for wall, _ in generations]})


def _oracle(generations: list) -> tuple[float, int] | None:
    """The share, generation by generation: an actor counts from its first scored generation to its last."""
    counted = {g: (wall, [(w, s) for w, s, migrant in scored if not migrant])
               for g, (wall, scored) in enumerate(generations) if g >= 1}
    counted = {g: (wall, rows) for g, (wall, rows) in counted.items()
               if rows and all(w != "local" for w, _ in rows)}
    if not counted:
        return None
    first, last = {}, {}
    for g, (_, rows) in counted.items():
        for w, _ in rows:
            first.setdefault(w, g)
            last[w] = g
    capacity = sum(wall * sum(first[w] <= g <= last[w] for w in first) for g, (wall, _) in counted.items())
    return sum(s for _, rows in counted.values() for _, s in rows) / capacity, len(first)


@settings(max_examples=300, deadline=None)
@given(st.lists(generation, min_size=1, max_size=8))
def test_the_share_counts_every_actor_present_from_its_first_scored_generation_to_its_last(generations):
    expected = _oracle(generations)
    use = worker_use(*_frames(generations))
    if expected is None:
        assert use is None
        return
    assert use.busy == pytest.approx(expected[0]) and use.workers == expected[1]


def test_an_actor_between_two_of_its_batches_is_busy_not_absent():
    """Steady-state: a generation holds only some batches' arrivals, the others land in the next."""
    a, b = ACTORS[:2]
    generations = [(1.0, [(a, 0.5, False)]), (1.0, [(a, 1.0, False)]), (1.0, [(b, 1.0, False)]),
                   (1.0, [(a, 1.0, False), (b, 1.0, False)])]
    use = worker_use(*_frames(generations))
    assert use.workers == 2 and use.busy == pytest.approx(4.0 / (1 + 2 + 2))  # a present in 1-3, b in 2-3


def test_nothing_to_count_gives_no_figure():
    local = [(1.0, [("local", 0.5, False)]), (2.0, [("local", 0.7, False)])]
    assert worker_use(*_frames(local)) is None  # in-process
    assert worker_use(pd.DataFrame(), pd.DataFrame({"generation": [0], "wall_seconds": [1.0]})) is None
    individuals, timing = _frames([(1.0, [(ACTORS[0], 0.5, False)]), (2.0, [(ACTORS[0], 0.7, False)])])
    untimed = timing[timing["generation"] == 0]  # a crash between a generation's file and the derived ones
    assert worker_use(individuals, untimed) is None


SLEEP_SPEC = {
    "problem": "sleepy:Sleepy", "genome": {"kind": "sleepy:Bits"}, "seed": 5, "generations": 20,
    "problem_options": {"ms": 5, "sigma": 0, "bits": 16},
    "population": {"size": 16, "offspring": 32, "algorithm": "steady-state"},
    "execution": {"code_dir": str(SLEEPY), "handover": False, "wait_for_workers": True},
}


@pytest.mark.timeout(300)
def test_a_report_of_a_run_on_ray_says_how_busy_its_workers_were_and_one_in_process_does_not(tmp_path,
                                                                                           ray_session):
    on_ray = pipeline.run(SLEEP_SPEC, out=str(tmp_path / "ray"), workers=2)
    use = worker_use_of(str(on_ray.path), on_ray.generations())
    assert use is not None and use.workers == 2 and use.nodes == 1 and use.generations == 20
    assert use.evaluations == 20 * 32 and 0.5 < use.busy < 1.2  # 5 ms sleeps, two actors asleep most of the time
    on_ray.report()
    text = (tmp_path / "ray" / "report" / "summary.md").read_text()
    assert "## Workers" in text and f"spent about {min(use.busy, 1.0):.0%} of their time in evaluation calls" in text
    assert "2 Ray actors on 1 node scored 640 evaluations in 20 generations" in text
    assert f"({use.busy:.1%} here)" in text  # steady-state: the share as measured, and why it may pass 100%

    in_process = pipeline.run(SLEEP_SPEC, out=str(tmp_path / "local"), workers=0)
    in_process.report()
    assert "## Workers" not in (tmp_path / "local" / "report" / "summary.md").read_text()


@pytest.mark.timeout(300)
def test_a_steady_state_run_shorter_than_its_children_in_flight_is_said_too_short(tmp_path, ray_session):
    """4 actors, batches of 32, eight generations' children in flight, 6 generations: most of what
    generations 1-6 record was scored before generation 1 began (its share came out 1.8)."""
    spec = copy.deepcopy(SLEEP_SPEC)
    spec["generations"], spec["execution"]["in_flight"] = 6, 8
    run = pipeline.run(spec, out=str(tmp_path / "short"), workers=4)
    assert worker_use_of(str(run.path), run.generations()).workers == 4
    run.report()
    text = (tmp_path / "short" / "report" / "summary.md").read_text()
    assert "4 Ray actors on 1 node scored 192 evaluations in 6 generations after generation 0. The run is too " \
           "short to say how busy they were" in text and "after about 80 generations" in text
    assert "of their time in evaluation calls" not in text


@pytest.mark.parametrize("algorithm, busy, said, unsaid", [
    ("mu+lambda", 0.5, ["about 50%", "or for the slowest chunk of a generation"], ["no generation barrier"]),
    ("mu+lambda", 1.2, ["about 100%", "as measured is 120.0%"], ["The rest they waited", "no generation barrier"]),
    ("steady-state", 0.6, ["about 60%", "waited: for the driver or Ray's calls.", "(60.0% here)"], ["slowest chunk"]),
])
def test_the_workers_sentence_says_what_the_share_means_for_the_algorithm(algorithm, busy, said, unsaid):
    from pipeline.reporting.summary import _workers

    use = WorkerUse(workers=3, nodes=2, generations=40, evaluations=1200, busy=busy)
    text = _workers(use, {"in_flight": 2}, algorithm)[1][1]
    assert text.startswith("3 Ray actors on 2 nodes scored 1,200 evaluations in 40 generations after generation 0.")
    assert all(part in text for part in said) and not any(part in text for part in unsaid)
