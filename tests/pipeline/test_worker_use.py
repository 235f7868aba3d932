"""How busy a run kept its Ray workers, from its logs (`pipeline/reporting/workers.py`): the share is
the evaluation seconds over the workers seen times the wall seconds, generation 0 and in-process
generations left out; a run on Ray says it in its report, an in-process run does not."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.reporting.workers import worker_use

SLEEPY = Path(__file__).resolve().parents[2] / "benchmarks" / "sleepy"
ACTORS = [f"actor-{n}@10.0.0.{n % 3}/node{n % 3}" for n in range(1, 7)]

# a generation: its wall seconds, and its rows as (worker label, evaluation seconds)
generation = st.tuples(st.floats(0.01, 10.0),
                       st.lists(st.tuples(st.sampled_from([*ACTORS, "local", ""]), st.floats(0.0, 1.0)),
                                min_size=1, max_size=12))


def _frames(generations: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [(g, worker, seconds) for g, (_, scored) in enumerate(generations) for worker, seconds in scored]
    individuals = pd.DataFrame(rows, columns=["generation", "worker", "eval_seconds"])
    return individuals, pd.DataFrame({"generation": range(len(generations)),
                                      "wall_seconds": [wall for wall, _ in generations]})


@settings(max_examples=200, deadline=None)
@given(st.lists(generation, min_size=1, max_size=8))
def test_the_share_is_evaluation_seconds_over_workers_seen_times_wall_seconds(generations):
    counted = [(wall, scored) for g, (wall, scored) in enumerate(generations)
               if g >= 1 and all(worker != "local" for worker, _ in scored)]
    seen = [{worker for worker, _ in scored if worker} for _, scored in counted]
    capacity = sum(len(workers) * wall for workers, (wall, _) in zip(seen, counted))
    use = worker_use(*_frames(generations))
    if capacity == 0:
        assert use is None
        return
    actors = set().union(*seen)
    assert use.workers == len(actors) and use.nodes == len({a.rpartition("/")[2] for a in actors})
    assert use.generations == sum(1 for workers in seen if workers)
    assert use.evaluations == sum(1 for _, scored in counted for worker, _ in scored if worker)
    spent = sum(seconds for _, scored in counted for _, seconds in scored)
    assert use.busy == pytest.approx(spent / capacity)


def test_a_run_scored_in_process_has_no_worker_figures():
    generations = [(1.0, [("local", 0.5)]), (2.0, [("local", 0.7), ("local", 0.1)])]
    assert worker_use(*_frames(generations)) is None


SLEEP_SPEC = {
    "problem": "sleepy:Sleepy", "genome": {"kind": "sleepy:Bits"}, "seed": 5, "generations": 4,
    "problem_options": {"ms": 5, "sigma": 0, "bits": 16},
    "population": {"size": 16, "offspring": 32, "algorithm": "steady-state"},
    "execution": {"code_dir": str(SLEEPY), "handover": False, "wait_for_workers": True},
}


@pytest.mark.timeout(300)
def test_a_report_of_a_run_on_ray_says_how_busy_its_workers_were_and_one_in_process_does_not(tmp_path,
                                                                                           ray_session):
    on_ray = pipeline.run(SLEEP_SPEC, out=str(tmp_path / "ray"), workers=2)
    use = worker_use(on_ray.individuals(columns=["generation", "worker", "eval_seconds"]), on_ray.generations())
    assert use is not None and use.workers == 2 and use.nodes == 1 and use.generations == 4
    assert use.evaluations == 4 * 32 and 0 < use.busy < 1.5  # 5 ms sleeps: the actors did sleep, and logged it
    summary = (tmp_path / "ray" / "report" / "summary.md")
    on_ray.report()
    text = summary.read_text()
    assert "## Workers" in text and f"spent about {min(use.busy, 1.0):.0%} of their time evaluating" in text
    assert f"({use.busy:.1%} here)" in text  # steady-state: the share as measured, and why it may pass 100%
    assert "2 Ray actors on 1 node scored 128 evaluations in 4 generations" in text

    in_process = pipeline.run(SLEEP_SPEC, out=str(tmp_path / "local"), workers=0)
    in_process.report()
    assert "## Workers" not in (tmp_path / "local" / "report" / "summary.md").read_text()
