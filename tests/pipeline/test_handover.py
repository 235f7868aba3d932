"""The embedded-Ray evaluator: in-process until a pool pays off, then the pool; same results."""

import threading

import numpy as np

from pipeline.evaluation import LocalEvaluator, evaluation_seeds, make_evaluator
from pipeline.evaluation.handover import HandoverEvaluator

SMALL = {"problem": "setcover", "N": 100, "seed": 42}


class _Pool(LocalEvaluator):
    """Stands in for the Ray pool: labels its work, records that it was closed."""

    closed = False

    def _score(self, genomes, seeds, task_spec):
        scored = super()._score(genomes, seeds, task_spec)
        scored.worker = ["pool"] * len(genomes)
        return scored

    def close(self):
        self.closed = True


def _batch(generation):
    rng = np.random.default_rng(generation)
    genomes = [rng.random(427) < 0.1 for _ in range(20)]
    return genomes, evaluation_seeds(3, generation, len(genomes))


def test_a_short_run_never_starts_the_pool():
    started = []
    evaluator = HandoverEvaluator(SMALL, 2, lambda: started.append(1) or _Pool(SMALL), expected_batches=3,
                                  worth_seconds=60.0)
    with evaluator:
        for g in range(3):
            assert set(evaluator.evaluate(*_batch(g)).worker) == {"local"}
    assert started == [] and not evaluator.handed_over


def test_a_long_run_hands_over_once_the_pool_is_ready_with_the_same_results():
    ready = threading.Event()
    pool = _Pool(SMALL)

    def start_pool():
        ready.wait(30)  # the pool "starts" while batches go on in-process
        return pool

    reference = LocalEvaluator(SMALL)
    evaluator = HandoverEvaluator(SMALL, 2, start_pool, expected_batches=None, worth_seconds=0.0)
    workers = []
    for g in range(4):
        if g == 2:
            ready.set()
            evaluator._starter.join(30)
        scored = evaluator.evaluate(*_batch(g))
        expected = reference.evaluate(*_batch(g))
        for name, column in expected.columns.items():
            np.testing.assert_array_equal(scored.columns[name], column)
        workers.append(set(scored.worker))
    assert workers == [{"local"}, {"local"}, {"pool"}, {"pool"}]
    evaluator.close()
    assert pool.closed


def test_a_pool_that_fails_to_start_leaves_the_run_in_process():
    def broken():
        raise RuntimeError("no Ray here")

    evaluator = HandoverEvaluator(SMALL, 2, broken, expected_batches=None, worth_seconds=0.0)
    evaluator.evaluate(*_batch(0))
    evaluator._starter.join(30)
    assert set(evaluator.evaluate(*_batch(1)).worker) == {"local"}
    assert "no Ray here" in str(evaluator.start_error)
    evaluator.close()


def test_make_evaluator_hands_over_only_for_an_embedded_ray_of_a_run(monkeypatch):
    monkeypatch.setattr("pipeline.evaluation.ray_initialized", lambda: False)  # as in a fresh `evo run`
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with make_evaluator(SMALL, workers=2, expected_batches=5) as evaluator:
        assert isinstance(evaluator, HandoverEvaluator)
    with make_evaluator(SMALL, workers=0, expected_batches=5) as evaluator:
        assert isinstance(evaluator, LocalEvaluator)


def test_a_run_that_stops_early_never_starts_ray():
    """Long enough by its generations, but it has spent less than a third of the worth
    threshold in-process when it stops (a stop target): Ray must not have been started."""
    started = []
    evaluator = HandoverEvaluator(SMALL, 2, lambda: started.append("pool") or _Pool(SMALL),
                                  expected_batches=10**9, worth_seconds=1.0,
                                  start_ray=lambda: started.append("ray"))
    for generation in range(3):  # each batch predicts years of evaluation, but only ms were spent
        evaluator.evaluate(*_batch(generation))
    evaluator.close()
    assert started == [] and not evaluator.handed_over


def test_no_handover_starts_the_embedded_actors_at_once(tmp_path):
    """README's quick start: `--no-handover` scores every generation on the embedded Ray's actors."""
    import subprocess
    import sys
    from pathlib import Path

    import pandas as pd

    out = tmp_path / "run"
    shipped = Path(__file__).resolve().parents[2] / "runs" / "nim-table.toml"
    spec = tmp_path / "nim-table.toml"  # every actor scores from generation 0, so both are seen
    spec.write_text(shipped.read_text().replace("[execution]", "[execution]\nwait_for_workers = true"))
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(spec), "--generations", "1",
                           "--workers", "2", "--engine", "ray", "--no-handover", "--out", str(out)],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    workers = pd.read_parquet(out / "individuals")["worker"]
    assert workers.str.startswith("actor-").all() and workers.nunique() == 2
    lines = done.stdout.splitlines()  # the start line said so, and the done line says it happened
    assert "(seed 1, 2 Ray workers on an embedded Ray (loopback), started now)" in lines[0]
    assert f"{len(workers):,} evaluations, all on Ray actors" in lines[-1]
