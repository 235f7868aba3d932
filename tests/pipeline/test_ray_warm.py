"""The embedded Ray kept warm between runs in one process (`ray_embedded`, issue 45)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.test_evaluation import run_python

RUNS = Path(__file__).resolve().parents[2] / "runs"


@pytest.mark.timeout(240)
def test_a_second_ray_run_in_one_process_reuses_the_embedded_ray_and_pool_and_auto_still_picks_processes(tmp_path):
    """One fresh interpreter (Ray starts are slow): two runs, one Ray start, one actor pool; then
    shutdown() stops them."""
    code = (
        "import json, ray, pipeline\n"
        "from pipeline.evaluation.engines import chosen_engine\n"
        "from pipeline.evaluation.ray_embedded import embedded_starts, is_ours\n"
        "runs = [pipeline.run(" + repr(str(RUNS / "setcover-1000.toml")) + ", generations=1, workers=1, "
        "execution__engine='ray', execution__handover=False, force=True, "
        f"out={str(tmp_path)!r} + '/run' + str(n)) for n in (1, 2)]\n"
        "workers = [set(run.individuals()['worker']) for run in runs]\n"
        "ready = [json.load(open(run.path / 'run.json'))['worker_seconds']['workers_ready'] for run in runs]\n"
        "warm = {'starts': embedded_starts(), 'ours': is_ours(), 'up': ray.is_initialized(),\n"
        "        'auto': chosen_engine('auto', 2)}\n"
        "pipeline.shutdown()\n"
        "print(json.dumps({**warm, 'workers': [sorted(w) for w in workers], 'ready': ready,\n"
        "                  'after': ray.is_initialized()}))\n"
    )
    out = run_python(code, timeout=220)
    first, second = out["workers"]
    assert first == second and first[0].startswith("actor-1@")  # both runs on the same Ray actor,
    assert out["ready"][1] == 0.0  # ... parked between them with its task built: ready at once
    assert out["starts"] == 1 and out["ours"] and out["up"]  # ... of one embedded Ray, kept warm
    assert out["auto"] == "processes"  # our warm Ray is no user's Ray: auto still picks the pool
    assert out["after"] is False  # pipeline.shutdown() stopped it


def test_shutdown_leaves_a_ray_the_user_started(ray_session):
    import pipeline

    pipeline.shutdown()
    assert ray_session.is_initialized()


def test_a_run_of_another_task_discards_the_parked_pool(monkeypatch):
    """A parked pool's actors hold CPUs of our Ray: only one of the same key is kept."""
    from pipeline.evaluation import ray_embedded

    class Pool:
        discarded = False

        def discard(self) -> None:
            self.discarded = True

    monkeypatch.setattr(ray_embedded, "is_ours", lambda: True)
    same, other = ray_embedded.parked_key({"task": 1}, 2, {}), ray_embedded.parked_key({"task": 2}, 2, {})
    assert same != other and same == ray_embedded.parked_key({"task": 1}, 2, {})
    kept, stale = Pool(), Pool()
    ray_embedded.parker(same)(kept)
    ray_embedded.parker(other)(stale)
    assert ray_embedded.unpark(same) is kept and not kept.discarded
    assert stale.discarded and ray_embedded.unpark(other) is None
