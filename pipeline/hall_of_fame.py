"""A run's best.json, loaded back as a playing agent."""

from __future__ import annotations

import json
from pathlib import Path

from fitness.nim import Agent, Rules
from fitness.nim.genomes import decode

from .kinds import task_genome_from_record

__all__ = ["BOARD_INDEPENDENT", "load_agent", "saved_rules"]

# Genome kinds whose agents never look at a row's index or the starting board.
BOARD_INDEPENDENT = {"expression"}


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
    if best["kind"] in BOARD_INDEPENDENT:  # any board, as long as k and the winning rule are the same
        if (evolved_for.k, evolved_for.misere) != (rules.k, rules.misere):
            flags = " ".join(([f"--k {evolved_for.k}"] if evolved_for.k else []) + (["--misere"] if evolved_for.misere else []))
            raise ValueError(f"{path} was evolved for {evolved_for.describe()}; it plays any board with the same "
                             f"k and rule, not {rules.describe()}: play it with {flags or 'neither --k nor --misere'}")
    elif evolved_for != rules:
        k = f" --k {evolved_for.k}" if evolved_for.k else ""
        mis = " --misere" if evolved_for.misere else ""
        raise ValueError(
            f"{path} was evolved for {evolved_for.describe()}, not {rules.describe()}; "
            f"play it with --board {','.join(map(str, evolved_for.rows))}{k}{mis}"
        )
    config = {key: value for key, value in task["genome"].items() if key != "kind"}
    genome = task_genome_from_record(best["kind"], entry["genome"])
    return decode(best["kind"], genome, config, rules, name=f"{path}#{entry['id']}")
