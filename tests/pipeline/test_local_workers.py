"""The local process pool (issue 45): the same log as in-process, failures handled as on Ray
actors, the engine chosen by `execution.engine` (auto: processes on one machine), its errors
in one line, and the done line's seconds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import sys
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.evaluation import EvaluationError, LocalEvaluator, make_evaluator
from pipeline.evaluation.engines import chosen_engine
from pipeline.evaluation.processes import START_METHOD, ProcessEvaluator
from tests.golden.digest import run_digests

ROOT = Path(__file__).resolve().parents[2]
FLAKY = ROOT / "tests" / "pipeline" / "flaky" / "flaky.toml"
FLAKY_TASK = {"problem": "flaky:Flaky", "options": {}}
SMALL = {"problem": "setcover", "N": 100, "seed": 42}


@pytest.fixture(autouse=True)
def _flaky_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(FLAKY.parent))


def _genomes(n: int, bits: int, seed: int = 0) -> tuple[list[np.ndarray], list[int]]:
    rng = np.random.default_rng(seed)
    return [rng.random(bits) < 0.3 for _ in range(n)], list(range(100, 100 + n))


def _same(a, b) -> None:
    assert sorted(a.columns) == sorted(b.columns)
    for name in a.columns:
        assert np.array_equal(a.columns[name].astype(str), b.columns[name].astype(str)), name


def _run(out: Path, **overrides) -> pipeline.Run:
    done = pipeline.run(FLAKY, out=str(out), force=True, **overrides)
    return pipeline.open_run(done.path)


def test_the_pool_scores_as_in_process_with_the_raising_genomes_narrowed():
    genomes, seeds = _genomes(120, 24)
    local = LocalEvaluator(FLAKY_TASK).evaluate(genomes, seeds)
    with ProcessEvaluator(FLAKY_TASK, 2, chunk_size=7) as pool:
        pooled = pool.evaluate(genomes, seeds)
        assert pool.all_ready is not None and pool.first_ready <= pool.all_ready
    _same(local, pooled)
    assert any(error is not None for error in pooled.columns["error"])  # the cursed genomes failed alone
    assert {w.split("/")[0] for w in pooled.worker} <= {"process-1", "process-2", "local"}


def test_a_dead_worker_is_replaced_and_its_chunk_re_run():
    genomes, seeds = _genomes(40, 24, seed=1)
    local = LocalEvaluator(FLAKY_TASK).evaluate(genomes, seeds)
    with ProcessEvaluator(FLAKY_TASK, 2, chunk_size=5) as pool:
        pool.evaluate(genomes, seeds)
        os.kill(pool._pool[0].process.pid, signal.SIGKILL)
        again = pool.evaluate(genomes, seeds)
        assert [worker.number for worker in pool._pool] == [2, 3]  # its successor
    _same(local, again)
    assert again.failures == 1


def test_a_chunk_that_keeps_killing_its_worker_fails_in_one_line():
    crashing = {**FLAKY_TASK, "options": {"crash": True}}
    genomes, seeds = _genomes(60, 24, seed=2)
    with ProcessEvaluator(crashing, 2, chunk_size=4) as pool:
        with pytest.raises(EvaluationError, match=r"^chunk \d+ of 15 \(genomes \d+-\d+\) failed 3 attempts; "
                                                  r"last cause: worker process \d+ died \(exit code 1\)$"):
            pool.evaluate(genomes, seeds)


def test_results_already_back_when_the_driver_waits_end_the_wait():
    """Every chunk's result waits in its pipe before `wait` is called: handled in one
    non-blocking receive, they end the wait (a blocking receive after them would never return)."""
    import threading

    genomes, seeds = _genomes(8, 427)
    with ProcessEvaluator(SMALL, 2, chunk_size=4) as pool:  # one chunk each
        pool.evaluate(genomes, seeds)  # both workers ready
        ticket = pool.submit(genomes, seeds)
        assert all(worker.conn.poll(60) for worker in pool._pool)  # both chunks scored, results in the pipes
        done = {}
        waiter = threading.Thread(target=lambda: done.update(pool.wait([ticket], every=True)), daemon=True)
        waiter.start()
        waiter.join(60)
        assert ticket in done


def test_the_log_is_the_same_in_process_and_on_the_pool(tmp_path):
    local = _run(tmp_path / "local", workers=0, generations=3)
    pooled = _run(tmp_path / "pooled", workers=2, generations=3, execution__chunk_size=3, execution__engine="processes")
    assert run_digests(local.path) == run_digests(pooled.path)
    assert pooled.individuals()["worker"].str.startswith("process-").any()
    seconds = json.loads((pooled.path / "run.json").read_text())["worker_seconds"]
    assert seconds["workers_ready"] is not None and seconds["first_evaluation"] > 0


@pytest.mark.timeout(120)
def test_a_hung_evaluation_on_the_pool_fails_only_the_hung_genome(tmp_path):
    settings = dict(generations=1, problem_options__hang=True, execution__eval_timeout=0.5)
    local = _run(tmp_path / "local", workers=0, **settings)
    pooled = _run(tmp_path / "pooled", workers=2, execution__chunk_size=4, execution__engine="processes", **settings)
    assert (pooled.individuals()["error"] == "timeout after 0.5 s").any()
    assert run_digests(local.path) == run_digests(pooled.path)


def test_auto_chooses_processes_on_one_machine_and_ray_elsewhere(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr("pipeline.evaluation.engines.ray_initialized", lambda: False)
    assert chosen_engine("auto", 2) == "processes"
    assert chosen_engine("auto", 0) == "in-process"
    assert chosen_engine("processes", 0) == "in-process"
    assert chosen_engine("in-process", 4) == "in-process"
    assert chosen_engine("auto", 2, "10.0.0.2:6379") == "ray"
    assert chosen_engine("auto", 2, runners=True) == "ray"
    monkeypatch.setenv("RAY_ADDRESS", "auto")
    assert chosen_engine("auto", 2) == "ray"
    with pytest.raises(ValueError, match=r"^execution.engine: must be one of auto, ray, processes, in-process"):
        chosen_engine("fast", 2)


def test_make_evaluator_builds_the_pool_for_processes():
    with make_evaluator(SMALL, workers=2, engine="processes") as evaluator:
        assert isinstance(evaluator, ProcessEvaluator) and evaluator.workers == 2


@pytest.mark.parametrize("settings, said", [
    (["execution.engine=fast"], "execution.engine"),
    (["execution.engine=processes", "execution.address=10.0.0.2:6379"], "'processes' runs on this machine"),
    (["execution.engine=processes", "execution.workers=2", "islands.count=2"], "evolve on Ray runner actors"),
])
def test_a_bad_engine_is_refused_in_one_line(tmp_path, settings, said):
    sets = [arg for setting in settings for arg in ("--set", setting)]
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(FLAKY), "--out", str(tmp_path / "x"),
                           *sets], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert said in done.stderr and not (tmp_path / "x").exists()


def test_the_start_and_done_lines_say_the_workers_and_their_seconds(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(FLAKY), "--workers", "2",
                           "--generations", "2", "--out", str(tmp_path / "run")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "2 worker processes on this machine" in lines[0]
    assert "first evaluation after" in lines[-1] and "every worker ready after" in lines[-1]


def test_a_golden_log_holds_on_worker_processes(tmp_path):
    """A shipped sampled-Nim spec's pinned log, on the pool (the golden cases run in-process and on Ray)."""
    from tests.golden.cases import CASES
    from tests.pipeline.test_golden import GOLDEN

    spec, overrides = CASES["nim-table-sampled"]
    done = pipeline.run(ROOT / spec, workers=2, execution__engine="processes", out=str(tmp_path / "run"), force=True,
                        **overrides)
    assert run_digests(done.path) == GOLDEN["nim-table-sampled"]
    assert pipeline.open_run(done.path).individuals()["worker"].str.startswith("process-").any()


@pytest.mark.skipif(START_METHOD != "fork", reason="workers are spawned there: no fork, no spare")
def test_the_first_dead_worker_is_replaced_by_the_spare_forked_before_any_thread():
    genomes, seeds = _genomes(40, 100, seed=4)
    local = LocalEvaluator(SMALL).evaluate(genomes, seeds)
    stop = threading.Event()
    writer = threading.Thread(target=stop.wait, daemon=True)  # as a run's writer thread
    with ProcessEvaluator(SMALL, 2) as pool:
        spare = pool._spare
        writer.start()
        try:
            os.kill(pool._pool[0].process.pid, signal.SIGKILL)
            pool._where.rates = {"here": 1.0, "pool": 1e-9}  # the batch goes to the workers
            again = pool.evaluate(genomes, seeds)
            assert pool._pool[-1] is spare and pool._spare is None
            assert set(again.worker) <= {pool._pool[0].label, spare.label}
        finally:
            stop.set()
    assert spare.number == 3 and not spare.process.is_alive()  # stopped with the pool
    _same(local, again)


def _product(x: int, y: int) -> tuple[int, int]:
    if x < 0:
        raise ValueError(f"no negative x: {x}")
    return x * y, os.getpid()


@pytest.mark.skipif(START_METHOD != "fork", reason="spawned workers hold no helpers: map_pure runs in the driver")
def test_map_pure_shares_the_drivers_helper_over_idle_workers_in_order():
    genomes, seeds = _genomes(8, 100)
    args = [(i, 3) for i in range(50)]
    with ProcessEvaluator(SMALL, 2, helpers=[_product]) as pool:
        pool.evaluate(genomes, seeds)  # every worker says it is ready
        pids = {worker.process.pid for worker in pool._pool}
        done = pool.map_pure(_product, args)
        assert [value for value, _ in done] == [i * 3 for i in range(50)]
        assert {pid for _, pid in done} == pids  # a share each
        assert {pid for _, pid in pool.map_pure(lambda x: (x, os.getpid()), [(1,), (2,)])} == {os.getpid()}
        with pytest.raises(ValueError, match="no negative x: -1"):  # raised where it ran: the driver runs that share
            pool.map_pure(_product, [(2, 1), (-1, 1)])


@pytest.mark.skipif(START_METHOD != "fork", reason="spawned workers hold no helpers: map_pure runs in the driver")
def test_a_share_whose_worker_died_runs_in_the_driver():
    genomes, seeds = _genomes(8, 100)
    with ProcessEvaluator(SMALL, 2, helpers=[_product]) as pool:
        pool.evaluate(genomes, seeds)
        victim = pool._pool[0].process
        os.kill(victim.pid, signal.SIGKILL)
        victim.join()
        done = pool.map_pure(_product, [(i, 2) for i in range(10)])
    assert [value for value, _ in done] == [i * 2 for i in range(10)]
    assert os.getpid() in {pid for _, pid in done}


@pytest.mark.skipif(START_METHOD != "fork", reason="spawned workers hold no helpers: map_pure runs in the driver")
def test_set_covers_repaired_on_the_workers_keep_the_golden_log(tmp_path):
    """Bred children are repaired by `map_pure` on the pool: the pinned in-process log, and
    run.json (the done line) counts the children the workers finished."""
    from tests.golden.cases import CASES
    from tests.pipeline.test_golden import GOLDEN

    spec, overrides = CASES["setcover-1000"]
    done = pipeline.run(ROOT / spec, workers=2, execution__engine="processes", out=str(tmp_path / "run"), force=True,
                        **overrides)
    assert run_digests(done.path) == GOLDEN["setcover-1000"]
    seconds = json.loads((Path(done.path) / "run.json").read_text())["worker_seconds"]
    assert seconds["finished_on_workers"] >= 100  # two generations' children at least
