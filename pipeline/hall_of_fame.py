"""A run's best.json, loaded back as a playing agent."""

from __future__ import annotations

import json
from pathlib import Path

from fitness.nim import Agent, Rules
from fitness.nim.genomes import decode

from .kinds import task_genome_from_record

__all__ = ["load_agent", "saved_rules"]


def saved_rules(best: dict) -> Rules:
    task = best["task"]
    return Rules(rows=tuple(task["rows"]), k=task.get("k"), misere=bool(task.get("misere", False)))


def load_agent(path: str | Path, rules: Rules, rank: int = 0) -> Agent:
    """The `rank`-th individual of a Nim run's hall of fame, playing under `rules`."""
    path = Path(path)
    try:
        best = json.loads(path.read_text())
        task = best["task"]
        entry = best["hall_of_fame"][rank]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"{path}: not a readable best.json ({exc})") from None
    if task.get("problem") != "nim":
        raise ValueError(f"{path}: a {task.get('problem')} run; only Nim runs give agents")
    evolved_for = saved_rules(best)
    if evolved_for != rules:
        k = f" --k {evolved_for.k}" if evolved_for.k else ""
        mis = " --misere" if evolved_for.misere else ""
        raise ValueError(
            f"{path} was evolved for {evolved_for.describe()}, not {rules.describe()}; "
            f"play it with --board {','.join(map(str, evolved_for.rows))}{k}{mis}"
        )
    config = {key: value for key, value in task["genome"].items() if key != "kind"}
    genome = task_genome_from_record(best["kind"], entry["genome"])
    return decode(best["kind"], genome, config, rules, name=f"{path}#{entry['id']}")
