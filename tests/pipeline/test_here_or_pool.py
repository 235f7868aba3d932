"""Where the process pool scores a batch submitted alone (issue 45): on the workers first, then
wherever batches went faster, with one batch in PROBE_EVERY at the slower place; the same
scores either way."""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from pipeline.evaluation import LocalEvaluator
from pipeline.evaluation.here_or_pool import HERE, POOL, PROBE_EVERY, HereOrPool, probe_every
from pipeline.evaluation.processes import ProcessEvaluator

SMALL = {"problem": "setcover", "N": 100, "seed": 42}


def test_the_workers_first_then_one_batch_here_then_the_faster():
    where = HereOrPool()
    assert where.on_pool() and where.on_pool()
    where.learn(POOL, 100, 5.0)  # the workers' first batch pays their warm-up: not counted
    assert where.rates[POOL] is None
    where.learn(POOL, 100, 1.0)
    assert not where.on_pool()  # here is not measured yet
    where.learn(HERE, 100, 2.0)
    assert where.rates == {HERE: 0.02, POOL: 0.01}


@given(st.floats(1e-4, 1.0), st.floats(1e-4, 1.0))
def test_the_faster_place_gets_all_but_one_batch_in_probe_every(here: float, pool: float):
    where = HereOrPool()
    where.learn(POOL, 1, pool)
    where.learn(POOL, 1, pool)
    where.learn(HERE, 1, here)
    every = probe_every(here, pool)
    choices = [where.on_pool() for _ in range(10 * every)]
    assert choices.count(pool >= here) == 10  # the slower place's probes (a tie: the workers')
    assert every == PROBE_EVERY or (max(here, pool) / min(here, pool) - 1) / every <= 0.05 + 1e-9


def test_the_workers_own_seconds_stand_for_the_driver_until_it_is_measured():
    """15 workers, the driver 15 times slower than all of them: no batch of the run's first
    hundred is scored in the driver to learn that (the pool's figure at 16 cores: 0.14x
    in-process, 0.24x with a batch here in every ten)."""
    where = HereOrPool()
    where.learn(POOL, 100, 5.0)
    where.learn(POOL, 100, 0.1)  # 1 ms a genome on 15 workers: 15 ms a genome on one core
    assert all(where.on_pool(seconds_per_genome=0.015) for _ in range(100))
    assert not where.on_pool(seconds_per_genome=0.0001)  # one core beats the round trips: here


def test_a_batch_goes_where_batches_went_faster_with_the_same_scores():
    rng = np.random.default_rng(3)
    genomes, seeds = [rng.random(100) < 0.3 for _ in range(40)], list(range(40))
    local = LocalEvaluator(SMALL).evaluate(genomes, seeds)
    with ProcessEvaluator(SMALL, 2) as pool:
        pool._where.rates = {HERE: 1e-9, POOL: 1.0}  # here was faster
        scored_here = pool.evaluate(genomes, seeds)
        pool._where.rates = {HERE: 1.0, POOL: 1e-9}  # the workers were faster
        scored_there = pool.evaluate(genomes, seeds)
    assert set(scored_here.worker) == {"local"}
    assert {w.split("/")[0] for w in scored_there.worker} == {"process-1", "process-2"}
    for scored in (scored_here, scored_there):
        for name in local.columns:
            assert np.array_equal(local.columns[name], scored.columns[name]), name
