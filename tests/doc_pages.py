"""The documentation as tests/test_readme.py reads it: README.md and the site's pages (in
mkdocs.yml's order), their bash and Python blocks, the commands in them, and the same
commands on small settings.

A reader runs a page's commands in one shell from the repository root: README's tour
activates `.venv` on its own first line, and the site's pages follow Getting started,
which does it once. So a command is marked `activated` only where the page (or, for the
site, an earlier page) has done so; the tests run it in a shell whose PATH lacks evo
otherwise, which is how a fresh shell answers `evo: command not found`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ACTIVATE = "source .venv/bin/activate"
SETUP = "python3 -m venv .venv && "  # the two set-up lines: .ci/run runs them, from README.md
CLUSTER_TITLE = 'title="On a Ray cluster'  # blocks that need a Ray cluster, said so on the page


@dataclass(frozen=True)
class Block:
    """One fenced block at the start of a line: ```bash or ```python, with its attributes."""

    page: Path
    language: str
    attributes: str
    text: str

    @property
    def needs_cluster(self) -> bool:
        return self.attributes.strip().startswith(CLUSTER_TITLE)


@dataclass(frozen=True)
class Command:
    """A command line of a page, and whether the reader's shell has `.venv` active by then."""

    page: str
    line: str
    activated: bool


def site_pages() -> list[Path]:
    """The site's pages in mkdocs.yml's nav order."""
    nav = (ROOT / "mkdocs.yml").read_text()
    return [ROOT / "docs" / name for name in re.findall(r":\s*([\w./-]+\.md)\s*$", nav, flags=re.M)]


def pages() -> list[Path]:
    return [README, *site_pages()]


def blocks(page: Path) -> list[Block]:
    text = page.read_text()
    return [Block(page, language, attributes, body) for language, attributes, body in
            re.findall(r"^```(bash|python)([^\n]*)\n(.*?)^```", text, flags=re.M | re.S)]


def commands(text: str) -> list[str]:
    """The shell commands of a block's lines, comments dropped (a `\\` continues a line)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def runnable_commands() -> list[Command]:
    """Every command the tests run, in reading order, each once (on small settings, a command
    met again on a later page is the same command: a second `evo run` of one spec would meet
    the first's run directory). Left out: the set-up lines (.ci/run's) and cluster blocks."""
    seen, found = set(), []
    for group in ([README], site_pages()):
        activated = False
        for block in (b for page in group for b in blocks(page) if b.language == "bash" and not b.needs_cluster):
            for line in commands(block.text):
                if line.startswith(SETUP):
                    continue
                if line == ACTIVATE:
                    activated = True
                elif small_command(line) not in seen:
                    seen.add(small_command(line))
                    found.append(Command(block.page.relative_to(ROOT).as_posix(), line, activated))
    return found


def python_blocks() -> list[Block]:
    """Every Python block, each text once, in reading order."""
    unique = {}
    for page in pages():
        for block in blocks(page):
            if block.language == "python":
                unique.setdefault(block.text, block)
    return list(unique.values())


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


def imported_modules(code: str) -> set[str]:
    """The top-level packages a block imports."""
    return set(re.findall(r"^\s*(?:import|from)\s+(\w+)", code, flags=re.M))
