"""An island run measures the CPU each of its processes spends per evaluation (driver, each
island runner, the log's writer process, the evaluation actors), keeps it in run.json and shows it in `evo report`'s
Workers section, naming the busiest process: the one that would cap a bigger cluster."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pipeline.islands.cpu import cpu_summary
from pipeline.reporting.common import load_run
from pipeline.reporting.summary import summary_blocks, to_markdown
from pipeline.reporting.workers import worker_use_of
from tests.pipeline.test_islands import SETCOVER, _run


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
