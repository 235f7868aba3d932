"""A run on Ray measures the CPU each of its processes spends per evaluation (driver, each
island runner, the log's writer process, the evaluation actors), keeps it in run.json and shows it in `evo report`'s
Workers section, naming the busiest process: the one that would cap a bigger cluster."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pipeline
from pipeline.evaluation.cpu import CpuLedger, cpu_summary
from pipeline.reporting.common import load_run
from pipeline.reporting.summary import summary_blocks, to_markdown
from pipeline.reporting.workers import worker_use_of
from tests.pipeline.test_islands import SETCOVER, _run, _spec
from tests.pipeline.test_runs import SETCOVER_SPEC


def test_an_island_run_on_ray_reports_each_processs_cpu_per_evaluation(tmp_path, ray_session):
    run = _run(tmp_path, SETCOVER, "cpu", workers=2)
    cpu = json.loads((run.path / "run.json").read_text())["cpu_per_evaluation"]
    assert cpu["evaluations"] > 0
    assert cpu["driver"] > 0 and len(cpu["islands"]) == 3 and all(us > 0 for us in cpu["islands"])
    assert cpu["actors"]["count"] == 2 and cpu["actors"]["max"] >= cpu["actors"]["mean"] > 0
    assert cpu["writer"] > 0  # a process of its own (Linux)
    assert cpu["busiest"]["us"] == max(cpu["driver"], *cpu["islands"], cpu["actors"]["max"], cpu["writer"])
    logs = load_run(run.path)
    title, blocks = summary_blocks(logs, worker_use_of(str(run.path), logs.generations))
    text = to_markdown(title, blocks)
    workers = text.split("## Workers", 1)[1]
    assert "CPU per evaluation of the run" in workers and f"Busiest: {cpu['busiest']['process']}" in workers
    assert "| island 2 |" in workers and "| driver |" in workers and "| log writer |" in workers


@pytest.mark.parametrize("algorithm", ["mu+lambda", "steady-state"])
def test_a_run_on_ray_actors_from_its_start_reports_each_processs_cpu_per_evaluation(tmp_path, ray_session, algorithm):
    run = pipeline.run(_spec(tmp_path, SETCOVER_SPEC), out=str(tmp_path / algorithm), workers=2,
                       execution__handover=False, population__algorithm=algorithm)
    cpu = json.loads((run.path / "run.json").read_text())["cpu_per_evaluation"]
    assert cpu["evaluations"] == run.generations()["evaluations"].iloc[-1] > 0
    assert cpu["driver"] > 0 and cpu["islands"] == [] and cpu["writer"] > 0
    assert cpu["actors"]["count"] == 2 and cpu["actors"]["max"] >= cpu["actors"]["mean"] > 0
    logs = load_run(run.path)
    workers = to_markdown(*summary_blocks(logs, worker_use_of(str(run.path), logs.generations))).split("## Workers")[1]
    assert f"Busiest: {cpu['busiest']['process']}" in workers and "| evaluation actors, max of 2 |" in workers


def test_a_run_in_process_measures_nothing(tmp_path):
    run = pipeline.run(_spec(tmp_path, SETCOVER_SPEC), out=str(tmp_path / "here"), workers=0)
    assert "cpu_per_evaluation" not in json.loads((run.path / "run.json").read_text())


def test_the_ledger_counts_what_each_process_spent_since_it_was_first_heard_of():
    ledger = CpuLedger()
    for label, seconds in [("actor-0", 5.0), ("actor-0", 7.5), ("island 1", 2.0), ("actor-0", 8.0), ("island 1", 3.0)]:
        ledger.count(label, seconds)
    ledger.forget("island ")  # its runner replaced: the successor's clock starts from its first answer
    ledger.count("island 1", 0.5)
    ledger.count("island 1", 1.5)
    assert ledger.spent == {"actor-0": 3.0, "island 1": 2.0}
    assert ledger.answers == {"actor-0": 3, "island 1": 4}


def test_an_island_run_in_process_counts_only_the_driver(tmp_path):
    run = _run(tmp_path, SETCOVER, "local", workers=0)
    cpu = json.loads((run.path / "run.json").read_text())["cpu_per_evaluation"]
    assert cpu["islands"] == [] and cpu["actors"]["count"] == 0
    assert cpu["busiest"] == {"process": "driver", "us": cpu["driver"]} and cpu["driver"] > 0


@given(seconds=st.dictionaries(st.sampled_from([*(f"island {i}" for i in range(12)),
                                               *(f"actor-{n}" for n in range(5)), "log writer"]),
                               st.floats(0, 100)),
       driver=st.floats(0, 100), evaluations=st.integers(1, 10**6))
def test_the_summary_names_the_process_of_most_cpu_per_evaluation(seconds, driver, evaluations):
    writer = seconds.pop("log writer", None)
    cpu = cpu_summary(seconds, driver, evaluations, writer)
    if writer is not None:
        seconds["log writer"] = writer
    islands = sorted((int(k.split()[1]), v) for k, v in seconds.items() if k.startswith("island"))
    assert len(cpu["islands"]) == len(islands)  # in island order
    assert cpu["islands"] == [round(v / evaluations * 1e6, 2) for _, v in islands]
    assert cpu["writer"] == (round(seconds["log writer"] / evaluations * 1e6, 2) if "log writer" in seconds else None)
    every = [cpu["driver"], *cpu["islands"], cpu["actors"]["max"], *[w for w in [cpu["writer"]] if w is not None]]
    assert cpu["busiest"]["us"] == max(every)
    assert cpu_summary(seconds, driver, 0) is None
