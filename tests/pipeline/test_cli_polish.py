"""The `evo` command's manners: --version, bare `evo`, a description for every command,
a progress count that ends at `gen N/N`, and piped output without carriage returns,
wrapped paths or Ray's token-authentication warning."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.cli import COMMAND_MODULES, build_parser, main
from pipeline.progress import PLAIN_LINES, RunProgress

from .test_runs import NIM_SPEC


def test_version_is_the_installed_packages(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"evo {version('evo-pipeline')}"


def test_bare_evo_lists_the_commands_and_how_to_get_help(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: evo")
    for name in COMMAND_MODULES:
        assert name.replace("_", "-") in out
    assert "evo COMMAND --help" in out


def test_every_command_has_a_description():
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(commands) == {n.replace("_", "-") for n in COMMAND_MODULES}
    for name, sub in commands.items():
        assert sub.description and len(sub.description) > 30, name


def _row(generation: int) -> dict:
    return {"generation": generation, "evaluations": 10 * (generation + 1), "wall_seconds": 0.01,
            "best_fitness": 0.5, "mean_fitness": 0.25}


@given(st.integers(1, 400), st.data())
def test_piped_progress_is_a_few_plain_lines_ending_at_the_last_generation(generations, data):
    first = data.draw(st.integers(0, generations))
    lines: list[str] = []
    progress = RunProgress(live=False)
    progress._print = lines.append
    with progress:
        progress.on_start(generations, first, "fitness")
        for generation in range(first, generations + 1):
            progress.on_generation(_row(generation))
    shown = [line for line in lines if line.startswith("gen ")]
    assert shown[-1].startswith(f"gen {generations}/{generations} ")
    assert len(shown) <= PLAIN_LINES + 2
    numbers = [int(line.split()[1].split("/")[0]) for line in shown]
    assert numbers == sorted(set(numbers))
    assert not any("\r" in line for line in lines)
    assert (first > 0) == any(line.startswith("resuming after") for line in lines)


@pytest.mark.parametrize("first", [0, 3])
def test_the_live_bar_counts_generations_after_the_initial_one(first):
    progress = RunProgress(live=True)
    with progress:
        progress.on_start(5, first, "fitness")
        task = progress._progress.tasks[0]
        assert (task.completed, task.total) == (max(first - 1, 0), 5)
        for generation in range(first, 6):
            progress.on_generation(_row(generation))
    assert (task.completed, task.total) == (5, 5)  # `--generations 5` ends at gen 5/5


def test_piped_run_output_is_plain_whole_lines_without_ray_warnings(tmp_path):
    spec = tmp_path / "tiny.toml"
    spec.write_text(NIM_SPEC.format(generations=3, kind="table", games=10))
    out = tmp_path / ("a-directory-name-long-enough-to-pass-eighty-columns-" * 2) / "run"
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(spec), "--workers", "1",
                           "--engine", "ray", "--out", str(out)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, COLUMNS="80"))
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stdout and "\x1b" not in done.stdout
    lines = done.stdout.splitlines()
    assert "(seed 11, in-process; 1 Ray worker on an embedded Ray joins only if the run grows past ~30 s" \
        in lines[0]  # a run this short stays in-process: the start line says so (issue 18)
    assert [line.split()[1] for line in lines if line.startswith("gen ")] == ["0/3", "1/3", "2/3", "3/3"]
    assert lines[-1].startswith("done: ") and lines[-1].endswith(f"evo report {out}")
    assert "generation 3 of 3" in lines[-1] and "all in-process" in lines[-1]
    assert "token" not in done.stderr.lower()


def test_an_embedded_ray_starts_without_the_token_authentication_warning(tmp_path):
    code = ("from pipeline.evaluation.ray_connect import start_local_ray\n"
            "import ray\nstart_local_ray(1)\nprint(ray.get(ray.put(7)))\nray.shutdown()\n")
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                          env=dict(env, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0"), cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "7"
    assert "token authentication" not in (done.stdout + done.stderr).lower()
