"""The documentation's claims hold: every command of README.md and of the site's pages
(docs/, in mkdocs.yml's order) and every Python block run, in order, on small settings, in
a copy of runs/ and examples/ in a temporary folder; and the site builds with
`mkdocs build --strict`.

The pages are parsed (tests/doc_pages.py), so a line added there is tested without touching
this file. Small settings replace the long ones (`--games 2000`, `--episodes 3000`,
`--generations 2` on `evo run`, a resume that extends by one generation, `generations=` at
most 10 in Python); everything else runs as written, through bash, in a shell whose PATH
holds evo only once the page has run `source .venv/bin/activate`. Not run here: README's
two set-up lines (.ci/run runs them) and blocks titled "On a Ray cluster".
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .doc_pages import (ACTIVATE, README, ROOT, SETUP, blocks, commands, imported_modules, pages, python_blocks,
                        runnable_commands, site_pages, small_command, small_python)

TIMEOUT = 300  # seconds per command: a hung command fails, it does not stall CI
IN_CI = bool(os.environ.get("CI"))
COMMANDS = runnable_commands()
PYTHON = python_blocks()
BIN = Path(sys.executable).parent

# A few claims the lines make, beyond running cleanly: (start of the command, text in its output).
CLAIMS = {
    "evo report runs/nim-gp": "best expression, simplified: ",
    "evo match runs/nim-gp/best.json expert --rows 7": "rows=[1, 3, 5, 7, 9, 11, 13]",
    "evo run runs/setcover-1000.toml --workers 2": "2 worker processes on this machine",
    "evo --version": "evo ",
    "evo match expert random": "A moving first won",
}


def _skip_or_fail(reason: str) -> None:
    """A tool the docs extra brings is missing: a failure in CI, which installs it; a skip elsewhere."""
    if IN_CI:
        pytest.fail(f"{reason} (CI installs the docs extra: pip install -e \".[test,docs]\")")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A user's folder: the shipped specs (with the instance files beside them), the examples,
    and `.venv` (this interpreter's environment), nothing else."""
    here = tmp_path_factory.mktemp("readme")
    (here / "runs").mkdir()
    for spec in [*(ROOT / "runs").glob("*.toml"), *(ROOT / "runs").glob("*.txt")]:
        shutil.copy(spec, here / "runs")
    shutil.copytree(ROOT / "examples", here / "examples", ignore=shutil.ignore_patterns("runs", "__pycache__"))
    if (Path(sys.prefix) / "bin" / "activate").exists():
        (here / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    else:  # not run from a virtual environment: an activate script that does what one does
        (here / ".venv" / "bin").mkdir(parents=True)
        (here / ".venv" / "bin" / "activate").write_text(f'export PATH="{BIN}:$PATH"\n')
    return here


def shell(command: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    """`command` in bash as a new shell has it: evo is not on PATH until `.venv` is activated."""
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p and Path(p) != BIN)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(PATH=path, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", COLUMNS="120")
    return subprocess.run(["bash", "-c", f"set -euo pipefail; {command}"], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT, env=env)


def test_the_blocks_are_found():
    assert all(page.exists() for page in site_pages()) and len(site_pages()) >= 10
    readme = [c for c in COMMANDS if c.page == "README.md"]
    assert len(readme) >= 8 and all(c.activated and c.line.startswith("evo ") for c in readme)
    getting_started = [c for c in COMMANDS if c.page == "docs/getting-started.md"]
    assert len(getting_started) >= 8 and all(c.activated for c in getting_started)
    examples = [p for p in (ROOT / "examples").iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert sum(c.line.startswith("cd examples/") for c in COMMANDS) == len(examples)
    assert len(PYTHON) >= 8 and any("pipeline.run(" in b.text for b in PYTHON)


def test_a_new_shell_is_told_to_activate():
    """Issue 44: after the set-up, bare `evo` is not on PATH; every page's command that
    calls it comes after the activation line (README's own tour, the site's Getting started)."""
    for command in COMMANDS:
        if re.search(r"(^|&& )evo ", command.line):
            assert command.activated, f"{command.page}: `{command.line}` before `{ACTIVATE}`"
    done = shell("evo --version", ROOT)
    assert done.returncode != 0, "evo is on PATH without activation: the test would not see a missing step"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: f"{c.page}:{c.line}")
def test_each_documented_command_runs(command, folder):
    # `evo play` is a game in the terminal: a person who tries every row in turn, one object at a time.
    moves = "".join(f"{row} 1\n" for _ in range(30) for row in range(10)) if " play " in command.line else ""
    line = small_command(command.line)
    done = shell(f"{ACTIVATE}; {line}" if command.activated else line, folder, moves)
    assert done.returncode == 0, f"{command.page}: {line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr and "error" not in done.stderr.lower(), done.stderr
    for start, text in CLAIMS.items():
        if command.line.startswith(start):
            assert text in done.stdout, done.stdout
    if " play " in command.line:
        assert re.search(r"You win!|wins\.", done.stdout), done.stdout


@pytest.mark.parametrize("block", PYTHON, ids=lambda b: f"{b.page.relative_to(ROOT)}:{b.text.splitlines()[0]}")
def test_each_documented_python_block_runs(block, folder):
    missing = sorted(m for m in imported_modules(block.text) if importlib.util.find_spec(m) is None)
    if missing:
        _skip_or_fail(f"{block.page.name}'s block needs {', '.join(missing)}")
    code = small_python(block.text)
    done = subprocess.run([sys.executable, "-c", "import matplotlib; matplotlib.use('Agg')\n" + code],
                          cwd=folder, capture_output=True, text=True, timeout=TIMEOUT,
                          env=dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0"))
    assert done.returncode == 0, f"{block.page.name}\n{code}\n{done.stderr[-3000:]}"


def test_cluster_blocks_are_only_what_needs_a_cluster():
    """A block left out as "On a Ray cluster" holds only commands that start or join one."""
    left_out = [line for page in pages() for b in blocks(page) if b.needs_cluster for line in commands(b.text)]
    assert left_out, "no cluster block found: has the title changed?"
    for line in left_out:
        assert line.startswith("ray ") or "--address" in line or line.startswith("RAY_"), line


def test_the_set_up_lines_are_what_ci_runs():
    """.ci/run greps README's two set-up lines and runs them; the site's copies are the same lines."""
    ci = (ROOT / ".ci" / "run").read_text()
    readme_lines = README.read_text().splitlines()
    patterns = re.findall(r"grep -m1 '([^']+)' README\.md", ci)
    assert len(patterns) == 2, patterns
    found = [next(line for line in readme_lines if re.match(p, line)) for p in patterns]
    assert any("[test,docs]" in line for line in found) and "install -e . && " in found[1]
    site_setup = [line for page in site_pages() for b in blocks(page) if b.language == "bash"
                  for line in commands(b.text) if line.startswith(SETUP)]
    assert sorted(site_setup) == sorted(found)


def test_readme_is_a_front_door():
    text = README.read_text()
    assert len(text.encode()) <= 12 * 1024
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        assert (ROOT / target).exists(), target


def test_examples_readme_lists_every_example():
    """Issue 44: examples/README.md had left out restarts/."""
    listed = (ROOT / "examples" / "README.md").read_text()
    for example in sorted(p.name for p in (ROOT / "examples").iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert f"| `{example}/` |" in listed, example


def test_cross_references_are_links():
    """Issue 44: "see 'Islands' above" pointed below. A page names another part as a link,
    which `mkdocs build --strict` checks, never by "above" or "below"."""
    for page in pages():
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
        assert not re.search(r"""see ["'][^"']+["'] (above|below)""", text), page.name


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


def test_the_site_builds_strict(tmp_path):
    """`mkdocs build --strict`: every page in the nav, every link and anchor found, the API
    reference generated from the docstrings, benchmarks/README.md included."""
    if importlib.util.find_spec("mkdocs") is None:
        _skip_or_fail("mkdocs is not installed")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "api" / "index.html").read_text().count("pipeline.api.run") >= 1
