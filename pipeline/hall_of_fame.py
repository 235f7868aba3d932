"""A run's best.json, loaded back as a playing agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fitness.nim import Agent, Rules
from fitness.nim.genomes import decode

from .kinds import task_genome_from_record

__all__ = ["BOARD_INDEPENDENT", "distinct_entries", "genome_agent", "load_agent", "read_best", "saved_rules"]

# Genome kinds whose agents never look at a row's index or the starting board.
BOARD_INDEPENDENT = {"expression"}


def distinct_entries(hall_of_fame: list[dict]) -> list[tuple[dict, list[int]]]:
    """The hall of fame with each genome once: (its best-ranked entry, the ids of the other
    entries holding the identical genome). Selection keeps distinct *individuals*, so the
    same genome, made again by another crossover, can stand there under several ids."""
    kept: dict[str, tuple[dict, list[int]]] = {}
    for entry in hall_of_fame:
        key = json.dumps(entry["genome"], sort_keys=True)
        if key in kept:
            kept[key][1].append(entry["id"])
        else:
            kept[key] = (entry, [])
    return list(kept.values())


def saved_rules(best: dict) -> Rules:
    task = best["task"]
    return Rules(rows=tuple(task["rows"]), k=task.get("k"), misere=bool(task.get("misere", False)))


def load_agent(path: str | Path, rules: Rules, rank: int = 0) -> Agent:
    """The `rank`-th distinct genome of a Nim run's hall of fame (as `Run.best` ranks
    them), playing under `rules`."""
    path = Path(path)
    best = read_best(path)
    try:
        entries = distinct_entries(best["hall_of_fame"])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a readable best.json ({exc})") from None
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < len(entries):
        ranks = f": ranks 0 to {len(entries) - 1}" if entries else ""
        raise ValueError(f"rank {rank!r}: {path}'s hall of fame holds {len(entries)} distinct genomes{ranks}")
    entry = entries[rank][0]
    return genome_agent(best, entry["genome"], rules, path, f"{path}#{entry['id']}")


def read_best(path: Path) -> dict:
    try:
        best = json.loads(path.read_text())
        best["task"], best["kind"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a readable best.json ({exc})") from None
    return best


def genome_agent(best: dict, record: Any, rules: Rules, path: Path, name: str) -> Agent:
    """A logged genome `record` of the run whose best.json is `best` (at `path`) as an agent
    playing under `rules`, which must be the board it was evolved for (or, for board-independent
    kinds, the same k and rule)."""
    task = best["task"]
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
    genome = task_genome_from_record(best["kind"], record)
    return decode(best["kind"], genome, config, rules, name=name)
