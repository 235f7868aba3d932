"""Saved RL agents: one JSON file holding the rules, the training setup and the values.

Format (version 1), a JSON object:

    {"format": "evo-nim-rl-agent", "version": 1,
     "rules": {"rows": [1, 3, 5], "k": null, "misere": false},
     "hyperparameters": {"method": "td", "alpha": ..., ...},
     "training": {"episodes": ..., "seed": ..., "opponents": {...}, "seconds": ...},
     "initial": 0.0,
     "values": [[[1, 3], [[1, 1, 0.25], [3, 2, -1.0]]], ...]}

`values` lists each state training visited (row sizes, sorted) with the
actions it updated as `[row size, take, Q]`; every other action holds
`initial`. Floats are written with Python's repr, so a load gives back the
very same table, hence the very same moves. Any suffix works; `.rlagent` is
the convention (`.json` names are taken for saved hall-of-fame genomes).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ...atomic import atomic_write_text
from ..rules import Rules
from .agent import RLAgent
from .space import CanonicalSpace, same_game
from .training import TrainingRun
from .values import QTable

__all__ = ["FORMAT", "VERSION", "save_agent", "load_table", "load_agent"]

FORMAT = "evo-nim-rl-agent"
VERSION = 1


def _document(run: TrainingRun) -> dict:
    table = run.table
    space = table.space
    values = []
    for state in np.flatnonzero(table.known_states()):
        where = space.action_slice(int(state))
        seen = np.flatnonzero(table.seen[where]) + where.start
        values.append([
            [int(v) for v in space.states[state] if v > 0],
            [[int(space.sizes[a]), int(space.takes[a]), float(table.q[a])] for a in seen],
        ])
    rules = run.rules
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": {"rows": list(rules.rows), "k": rules.k, "misere": rules.misere},
        "hyperparameters": run.hyperparameters.to_dict(),
        "training": {
            "episodes": run.episodes,
            "seed": run.seed,
            "opponents": run.opponents,
            "seconds": run.seconds,
        },
        "initial": table.initial,
        "values": values,
    }


def save_agent(path: str | Path, run: TrainingRun) -> Path:
    """Write the trained agent atomically (temp file, then rename); returns the path."""
    return atomic_write_text(path, json.dumps(_document(run), separators=(",", ":")))


def load_table(path: str | Path, rules: Rules | None = None) -> tuple[QTable, dict]:
    """The value table saved at `path` and the rest of the file (rules, training, ...).

    With `rules`, the file must have been trained on the same variant (the same
    rows in any order, the same k and play). Anything else is a ValueError
    naming the file and what is wrong.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no saved RL agent at {path}")
    try:
        doc = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a saved RL agent (unreadable JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a saved RL agent (no \"format\": \"{FORMAT}\" field)")
    if doc.get("version") != VERSION:
        raise ValueError(f"{path}: RL agent format version {doc.get('version')!r} is not supported (expected {VERSION})")
    try:
        spec = doc["rules"]
        saved = Rules(rows=tuple(spec["rows"]), k=spec["k"], misere=spec["misere"])
        initial = float(doc["initial"])
        entries = doc["values"]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: corrupt RL agent file ({type(exc).__name__}: {exc})") from None
    if rules is not None and not same_game(saved, rules):
        raise ValueError(f"{path}: this agent was trained on {saved.describe()}, not {rules.describe()}")
    table = QTable(CanonicalSpace.of(saved), initial)
    try:
        actions, values = _parse_values(table.space, entries)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: corrupt RL agent file ({exc})") from None
    table.set(actions, values)
    return table, {key: value for key, value in doc.items() if key != "values"}


def _parse_values(space: CanonicalSpace, entries) -> tuple[np.ndarray, np.ndarray]:
    actions, values = [], []
    for state_sizes, moves in entries:
        try:
            state = space.state_index(state_sizes)
        except ValueError:
            raise ValueError(f"state {state_sizes} is not a position of {space.rules.describe()}") from None
        for size, take, q in moves:
            q = float(q)
            if not math.isfinite(q):
                raise ValueError(f"value {q} in state {state_sizes} is not finite")
            actions.append(space.action_index(state, int(size), int(take)))
            values.append(q)
    return np.asarray(actions, dtype=np.int64), np.asarray(values, dtype=np.float64)


def load_agent(path: str | Path, rules: Rules, name: str | None = None) -> RLAgent:
    """The greedy agent saved at `path`, to play `rules` (see `load_table`)."""
    table, _ = load_table(path, rules)
    return RLAgent(name or f"rl:{path}", rules, table)
