"""Your own problem, genome kind and Nim agent: from a spec's folder outside the
checkout, shipped to Ray workers, from installed entry points, and refused in
one line when broken."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import pipeline
from pipeline.spec import SpecError, load_spec
from tests.pipeline.test_runs import comparable

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _copy_example(name: str, tmp_path: Path) -> Path:
    """The example's folder, copied outside the checkout (no path back to it)."""
    target = tmp_path / f"user-{name}"
    shutil.copytree(EXAMPLES / name, target, ignore=shutil.ignore_patterns("runs", "__pycache__"))
    return target


def _optimum(folder: Path) -> int:
    spec = load_spec(folder / "knapsack.toml")
    from fitness.tasks import build_task

    return build_task(spec.task_spec()).optimum()


def test_the_knapsack_example_runs_from_its_own_folder_with_the_cli(tmp_path):
    folder = _copy_example("knapsack", tmp_path)
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", "knapsack.toml", "--workers", "0"],
                          cwd=folder, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    best = pipeline.open_run(folder / "runs" / "knapsack").best(1)
    assert best["value"][0] >= 0.99 * _optimum(folder)  # evolution gets close to the DP optimum


def test_the_knapsack_example_is_shipped_to_two_ray_workers_with_the_same_log(tmp_path, ray_session):
    folder = _copy_example("knapsack", tmp_path)

    @ray_session.remote(num_cpus=0)
    def importable() -> bool:
        try:
            import knapsack  # noqa: F401
        except ModuleNotFoundError:
            return False
        return True

    assert not ray_session.get(importable.remote())  # a worker finds it only when evo ships it
    spec = folder / "knapsack.toml"
    on_actors = pipeline.run(spec, generations=3, workers=2, out=str(tmp_path / "ray"),
                             execution__wait_for_workers=True)
    in_process = pipeline.run(spec, generations=3, workers=0, out=str(tmp_path / "local"))
    workers = on_actors.individuals(columns=["worker"])["worker"]
    assert workers.str.startswith("actor-").all() and workers.nunique() == 2
    pd.testing.assert_frame_equal(comparable(on_actors.path), comparable(in_process.path))


def test_a_user_agent_is_an_exact_opponent_on_ray_workers(tmp_path, ray_session):
    folder = _copy_example("nim-agent", tmp_path)
    spec = folder / "nim-vs-my-agent.toml"
    run = pipeline.run(spec, generations=2, workers=2, out=str(tmp_path / "ray"))
    local = pipeline.run(spec, generations=2, workers=0, out=str(tmp_path / "local"))
    assert run.individuals(columns=["worker"])["worker"].str.startswith("actor-").all()
    pd.testing.assert_frame_equal(comparable(run.path), comparable(local.path))
    # the user agent never plays a winning move on purpose: the expert-trained tables beat it
    assert run.best(1)["win_rate_my_agents_OneFromLargest"][0] > 0.5


def test_a_user_agent_plays_in_evo_match_from_the_current_folder(tmp_path):
    folder = _copy_example("nim-agent", tmp_path)
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "match", "my_agents:patient", "expert",
                           "--games", "500"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "my_agents:patient" in done.stdout and "100.00%" in done.stdout  # the expert wins every game


PROBLEM_SPEC = """
problem = "{problem}"
generations = 1
[genome]
kind = "{kind}"
[population]
size = 4
offspring = 4
[execution]
workers = 0
"""


@pytest.mark.parametrize("module, problem, kind, expected", [
    ("", "missing:Factory", "missing:Kind", "problem 'missing:Factory': no module named 'missing'"),
    ("x = 1\n", "plug:Factory", "plug:Kind", "problem 'plug:Factory': module plug has no attribute 'Factory'"),
    ("raise RuntimeError('boom')\n", "plug:Factory", "plug:Kind",
     "importing plug failed: RuntimeError: boom"),
    ("def Factory(options):\n    raise ValueError('needs items')\n", "plug:Factory", "plug:Kind",
     "problem 'plug:Factory': ValueError: needs items"),
    ("class Factory:\n    objectives = ('a',)\n    weights = (1.0,)\n    def __init__(self, o): pass\n",
     "plug:Factory", "plug:Kind", "the task has no evaluate(genomes, seeds) method"),
    ("class Factory:\n    objectives = ('a',)\n    weights = (2.0,)\n    def __init__(self, o): pass\n"
     "    def evaluate(self, g, s): pass\n", "plug:Factory", "plug:Kind", "task.weights must give +1"),
    ("from knapsack import Knapsack as Factory\nclass Kind:\n    def __init__(self, o, t): pass\n",
     "plug:Factory", "plug:Kind", "genome.kind 'plug:Kind': the kind has no init, crossover, mutate"),
])
def test_a_broken_plugin_is_refused_in_one_line_before_anything_is_written(tmp_path, module, problem, kind,
                                                                           expected):
    shutil.copy(EXAMPLES / "knapsack" / "knapsack.py", tmp_path / "knapsack.py")
    if module:
        (tmp_path / "plug.py").write_text(module)
    sys.modules.pop("plug", None)
    spec = tmp_path / "spec.toml"
    spec.write_text(PROBLEM_SPEC.format(problem=problem, kind=kind))
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(spec), "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], done.stderr
    assert str(spec) in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("change, message", [
    (('kind = "knapsack:Bits"', 'kind = "bitstring"'), "a user-defined problem takes a user-defined genome kind"),
    (('problem = "knapsack:Knapsack"', 'problem = "knapsak"'), "problem: must be one of 'nim', 'setcover' or "
                                                                 "your own 'module:Name'"),
    (('[genome]', '[operators]\nmutation = "flip"\n[genome]'), "the kind 'knapsack:Bits' brings its own operators"),
    (('items = 200', 'items = 200\ncolour = 3'), "ValueError: unknown option 'colour'"),
])
def test_spec_mistakes_around_plugins_are_named(tmp_path, change, message):
    folder = _copy_example("knapsack", tmp_path)
    spec = folder / "knapsack.toml"
    old, new = change
    assert old in spec.read_text()
    spec.write_text(spec.read_text().replace(old, new, 1))
    with pytest.raises(SpecError, match=None) as info:
        load_spec(spec)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_installed_plugins_are_found_by_entry_point_name(tmp_path, monkeypatch):
    """A package declaring `evo.problems`, `evo.kinds` and `evo.agents` entry points."""
    site = tmp_path / "site"
    package = site / "evo_extras"
    package.mkdir(parents=True)
    shutil.copy(EXAMPLES / "knapsack" / "knapsack.py", package / "knapsack.py")
    shutil.copy(EXAMPLES / "nim-agent" / "my_agents.py", package / "my_agents.py")
    (package / "__init__.py").write_text("")
    info = site / "evo_extras-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evo-extras\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [evo.problems]
        knapsack = evo_extras.knapsack:Knapsack
        [evo.kinds]
        knapsack-bits = evo_extras.knapsack:Bits
        [evo.agents]
        patient = evo_extras.my_agents:patient
        """))
    monkeypatch.syspath_prepend(str(site))
    run = pipeline.run({"problem": "knapsack", "generations": 2, "problem_options": {"items": 30},
                        "genome": {"kind": "knapsack-bits"}, "execution": {"workers": 0}},
                       out=str(tmp_path / "run"))
    assert len(run.population(2)) == run.spec.population.size
    from fitness.nim import Rules, agent

    assert agent("patient", Rules(rows=(1, 3, 5))).name == "patient"


SLEEPY = ROOT / "benchmarks" / "sleepy" / "sleepy.py"
SLEEPY_SPEC = {"name": "bits", "problem": "sleepy:Sleepy", "seed": 3, "generations": 3,
               "problem_options": {"ms": 0, "bits": 24}, "genome": {"kind": "sleepy:Bits"},
               "population": {"size": 12, "offspring": 12}, "execution": {"workers": 0}}
KINDS = """
from sleepy import Bits


class PlainBits(Bits):
    record_array = None  # the log's column genome by genome, from to_record


class ShortBits(Bits):
    def record_array(self, genomes):
        return super().record_array(genomes[1:])
"""


def _sleepy_folder(tmp_path: Path) -> Path:
    shutil.copy(SLEEPY, tmp_path / "sleepy.py")
    (tmp_path / "kinds.py").write_text(KINDS)
    for name in ("sleepy", "kinds"):
        sys.modules.pop(name, None)
    return tmp_path


def test_a_kinds_own_record_array_logs_what_to_record_would(tmp_path):
    folder = _sleepy_folder(tmp_path)
    spec = {**SLEEPY_SPEC, "execution": {"workers": 0, "code_dir": str(folder)}}
    own = pipeline.run(spec, out=str(tmp_path / "own"))
    plain = pipeline.run({**spec, "genome": {"kind": "kinds:PlainBits"}}, out=str(tmp_path / "plain"))
    pd.testing.assert_frame_equal(comparable(own.path).drop(columns="run_id"),  # the kind's name is in the id
                                  comparable(plain.path).drop(columns="run_id"))
    assert pipeline.resume(own.path, generations=5).generations()["generation"].max() == 5  # genomes read back


def test_a_kinds_record_array_that_disagrees_with_to_record_stops_the_run_before_it_logs(tmp_path):
    folder = _sleepy_folder(tmp_path)
    spec = {**SLEEPY_SPEC, "genome": {"kind": "kinds:ShortBits"}, "execution": {"workers": 0, "code_dir": str(folder)}}
    with pytest.raises(ValueError, match=r"genome kind 'kinds:ShortBits': record_array gave \d+ values"):  # (as many as the writer took at once)
        pipeline.run(spec, out=str(tmp_path / "short"))
    assert not (tmp_path / "short" / "individuals").exists() and not (tmp_path / "short" / "generations").exists()
