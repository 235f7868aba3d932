"""README.md's claims hold: every command of its "What you can do" block, the
examples' block, and every Python block run, in order, on small settings, in a
copy of runs/ and examples/ in a temporary folder.

The README is parsed, so a line added there is tested without touching this
file. Small settings replace the long ones (`--games 2000`, `--episodes 3000`,
`--generations 2` on `evo run`, a resume that extends by one generation,
`generations=` at most 10 in Python); everything else runs as written, through
bash, with the installed `evo` first on PATH.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
TIMEOUT = 300  # seconds per command: a hung command fails, it does not stall CI


def section(title: str) -> str:
    """The text under `## title`, up to the next `## ` heading."""
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else None]


def code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def commands(text: str) -> list[str]:
    """The shell commands of a block's lines, comments dropped (a `\\` continues a line)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def small_command(command: str) -> str:
    """The same command on small settings."""
    command = re.sub(r"--games [\d_,]+", "--games 2000", command)
    command = re.sub(r"--episodes [\d_,]+", "--episodes 3000", command)
    if re.search(r"\bevo run\b", command) and "--generations" not in command:
        command = re.sub(r"(\bevo run \S+)", r"\1 --generations 2", command)
    if re.search(r"\bevo resume\b", command) and "--generations" not in command:
        command += " --generations 3"  # extends the 2-generation run above: a real resume
    return command


def small_python(code: str) -> str:
    """The same code on small settings: `generations=` at most 10 for a run, 12 for a
    resume, 4 where a run names none; `games=2_000`."""
    code = re.sub(r"games=[\d_]+", "games=2_000", code)

    def call(match: re.Match) -> str:
        text, limit = match.group(0), 12 if match.group(1) == "resume" else 10
        if "generations=" not in text:
            return text.replace(",", ", generations=4,", 1) if match.group(1) == "run" else text
        return re.sub(r"generations=(\d+)", lambda m: f"generations={min(int(m.group(1)), limit)}", text)

    return re.sub(r"pipeline\.(run|resume)\((?:[^()]|\([^()]*\))*\)", call, code)


CLI = commands(code_blocks(section("What you can do"), "bash")[0])
EXAMPLES = commands(code_blocks(section("Your own problem, genome kind, algorithm and Nim agent"), "bash")[0])
PYTHON = [block for title in ("Python API", "The run directory and its logs")
          for block in code_blocks(section(title), "python")]

# A few claims the lines make, beyond running cleanly: (start of the command, text in its output).
CLAIMS = {
    "evo report runs/nim-gp": "best expression, simplified: ",
    "evo match runs/nim-gp/best.json expert --rows 7": "rows=[1, 3, 5, 7, 9, 11, 13]",
    "evo run runs/setcover-1000.toml --workers 2": "2 Ray workers on an embedded Ray join only if",
    "evo --version": "evo ",
    "evo match expert random": "A moving first won",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A user's folder: the shipped specs (with the instance files beside them) and examples, nothing else."""
    here = tmp_path_factory.mktemp("readme")
    (here / "runs").mkdir()
    for spec in [*(ROOT / "runs").glob("*.toml"), *(ROOT / "runs").glob("*.txt")]:
        shutil.copy(spec, here / "runs")
    shutil.copytree(ROOT / "examples", here / "examples", ignore=shutil.ignore_patterns("runs", "__pycache__"))
    return here


def shell(command: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", COLUMNS="120")
    return subprocess.run(["bash", "-c", f"set -euo pipefail; {command}"], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT, env=env)


def test_the_blocks_are_found():
    assert len(CLI) >= 15 and all(c.startswith("evo ") for c in CLI)
    assert any(c.startswith("cd examples/") for c in EXAMPLES)
    assert len(PYTHON) >= 3 and "pipeline.run(" in PYTHON[0]


@pytest.mark.parametrize("command", CLI + EXAMPLES)
def test_each_readme_command_runs(command, folder):
    # `evo play` is a game in the terminal: a person who tries every row in turn, one object at a time.
    moves = "".join(f"{row} 1\n" for _ in range(30) for row in range(10)) if " play " in command else ""
    done = shell(small_command(command), folder, moves)
    assert done.returncode == 0, f"{small_command(command)}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr and "error" not in done.stderr.lower(), done.stderr
    for start, text in CLAIMS.items():
        if command.startswith(start):
            assert text in done.stdout, done.stdout
    if " play " in command:
        assert re.search(r"You win!|wins\.", done.stdout), done.stdout


@pytest.mark.parametrize("index", range(len(PYTHON)))
def test_each_readme_python_block_runs(index, folder):
    code = small_python(PYTHON[index])
    done = subprocess.run([sys.executable, "-c", "import matplotlib; matplotlib.use('Agg')\n" + code],
                          cwd=folder, capture_output=True, text=True, timeout=TIMEOUT,
                          env=dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0"))
    assert done.returncode == 0, f"{code}\n{done.stderr[-3000:]}"


def test_small_settings_are_what_they_say():
    assert small_command("evo run runs/x.toml --workers 2") == "evo run runs/x.toml --generations 2 --workers 2"
    assert small_command("cd a && evo run k.toml && evo match x y --games 100000") == \
        "cd a && evo run k.toml --generations 2 && evo match x y --games 2000"
    assert small_command("evo resume runs/x") == "evo resume runs/x --generations 3"
    code = small_python('r = pipeline.run("a.toml", generations=60, workers=0)\n'
                        'pipeline.run("a.toml", workers=0, on_generation=f)\npipeline.resume("a", generations=60)\n'
                        'play(a, b, rules, games=100_000, seed=7)')
    assert code == ('r = pipeline.run("a.toml", generations=10, workers=0)\n'
                    'pipeline.run("a.toml", generations=4, workers=0, on_generation=f)\n'
                    'pipeline.resume("a", generations=12)\nplay(a, b, rules, games=2_000, seed=7)')
