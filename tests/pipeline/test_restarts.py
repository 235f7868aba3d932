"""Restarts on stagnation (`population.restart_after`, `restart_keep`): a generation re-seeds
exactly when the logged best has not improved for N generations since the last restart, keeps the best
`restart_keep` and nothing else of the old population, and a run killed mid-run resumes to the
log of the uninterrupted one. Unused, the keys leave old specs' run ids as they were."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from pipeline.spec import SpecError, load_spec
from tests.golden.digest import run_digests

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "runs/setcover-1000.toml"  # greedy starts, small population: plateaus come fast
SMALL = {"population__size": 12, "population__offspring": 12, "population__tournament": 2}


def run(out: Path, generations: int, after: int, keep: int, workers: int = 0, **more) -> pipeline.Run:
    return pipeline.run(SPEC, workers=workers, out=str(out), force=True, generations=generations,
                        population__restart_after=after, population__restart_keep=keep, **SMALL, **more)


def expected_restarts(best: list[float], after: int) -> set[int]:
    """The oracle, from the logged best of each generation's population (lower cost is
    better): generation g restarts iff that best has not strictly improved for `after`
    generations as of g - 1, counted afresh from each restart."""
    restarts, record, stagnant = set(), best[0], 0
    for g in range(1, len(best)):
        if stagnant >= after:
            restarts.add(g)
            record, stagnant = best[g], 0
        elif best[g] < record:
            record, stagnant = best[g], 0
        else:
            stagnant += 1
    return restarts


@pytest.mark.parametrize("after, keep", [(1, 1), (2, 3), (3, 1), (4, 0), (5, 11)])
def test_a_restart_comes_exactly_after_n_stagnant_generations_and_keeps_only_the_elite(tmp_path, after, keep):
    result = run(tmp_path / "run", 24, after, keep)
    best = result.generations()["best_cost"].tolist()
    individuals = result.individuals(columns=["generation", "id", "origin", "born", "parents", "cost"])
    restarted = set(individuals.loc[individuals.origin == "restart", "generation"])
    assert restarted == expected_restarts(best, after)
    assert restarted, "the case should reach a plateau"
    for g in sorted(restarted):
        scored = individuals[individuals.generation == g]
        assert (scored.origin == "restart").all() and len(scored) == 12 - keep
        assert (scored.born == g).all() and all(len(p) == 0 for p in scored.parents)
        before, after_ = result.population(g - 1), result.population(g)
        assert set(after_.id) == set(before.id[:keep]) | set(scored.id)  # population(g): best first


def test_without_stagnation_no_generation_restarts(tmp_path):
    result = run(tmp_path / "run", 6, 10, 1)
    assert "restart" not in set(result.individuals(columns=["origin"]).origin)


def _killed_run(out: Path, kill_at: int) -> None:
    def on_generation(row: dict) -> None:
        if row["generation"] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    run(out, 20, 3, 2, on_generation=on_generation)


@pytest.mark.parametrize("kill_at", [3, 4, 9])
def test_a_run_killed_mid_run_resumes_to_the_uninterrupted_log(tmp_path, kill_at):
    whole = run(tmp_path / "whole", 20, 3, 2)
    origins = set(whole.individuals(columns=["origin"]).origin)
    assert "restart" in origins
    cut = tmp_path / "cut"
    code = (f"from tests.pipeline.test_restarts import _killed_run; from pathlib import Path; "
            f"_killed_run(Path({str(cut)!r}), {kill_at})")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=600)
    assert done.returncode == -signal.SIGKILL
    pipeline.resume(cut, workers=0)
    assert run_digests(cut) == run_digests(whole.path)


def test_the_log_is_the_same_on_ray_workers(tmp_path, ray_session):
    local = run(tmp_path / "local", 10, 2, 1)
    assert "restart" in set(local.individuals(columns=["origin"]).origin)
    assert run_digests(run(tmp_path / "ray", 10, 2, 1, workers=2).path) == run_digests(local.path)


def test_unused_keys_keep_the_run_id_and_used_ones_change_it():
    plain = load_spec(SPEC)
    assert load_spec(SPEC, {"population.restart_keep": 1}).fingerprint() == plain.fingerprint()
    assert load_spec(SPEC, {"population.restart_after": 5}).fingerprint() != plain.fingerprint()
    assert load_spec(SPEC, {"population.restart_after": 5}).fingerprint() != \
        load_spec(SPEC, {"population.restart_after": 5, "population.restart_keep": 2}).fingerprint()


@pytest.mark.parametrize("overrides, message", [
    ({"population.restart_keep": 3}, "restart_keep: applies only with restart_after"),
    ({"population.restart_after": 0}, "restart_after"),
    ({"population.restart_after": 5, "population.restart_keep": 100}, "restart_keep: must be < size = 100"),
    ({"population.restart_after": 5, "population.algorithm": "steady-state"}, "restarts are for the generational"),
    ({"population.restart_after": 5, "islands.count": 2}, "not with \\[islands\\]"),
])
def test_bad_restart_keys_are_refused_in_one_line(overrides, message):
    with pytest.raises(SpecError, match=message) as raised:
        load_spec(SPEC, overrides)
    assert "\n" not in str(raised.value)
