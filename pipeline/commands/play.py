"""`evo play AGENT`: a person plays Nim against an agent in the terminal."""

from __future__ import annotations

import sys

import numpy as np
from rich.markup import escape

from ..display import console
from .match import add_board_options, rules_from_args


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play Nim against an agent in the terminal",
                       description="Play Nim against AGENT in the terminal: type a row and how many to take. "
                       "You move first unless --second.")
    p.add_argument("agent", metavar="AGENT", help="a registered agent name, a run directory (e.g. runs/nim-table) or its best.json")
    add_board_options(p)
    p.add_argument("--second", action="store_true", help="let the agent move first")
    p.add_argument("--seed", type=int, default=None)
    p.set_defaults(handler=run)


def draw(position: np.ndarray) -> str:
    width = len(str(len(position) - 1))
    return "\n".join(f"  row {i:>{width}}: {'|' * int(v):<{int(position.max())}}  ({int(v)})"
                     for i, v in enumerate(position))


def ask_move(position: np.ndarray, k: int | None, read=input) -> tuple[int, int] | None:
    """Ask until the person types a legal move (`row take`); None on quit/EOF."""
    limit = f", at most {k}" if k else ""
    while True:
        try:
            text = read(f"your move — row and how many{limit} (e.g. '2 3', q to quit): ").strip()
        except EOFError:
            return None
        if text.lower() in ("q", "quit", "exit"):
            return None
        parts = text.replace(",", " ").split()
        if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
            console.print("  please type two whole numbers: the row, then how many to take")
            continue
        row, take = int(parts[0]), int(parts[1])
        if not 0 <= row < len(position):
            console.print(f"  there is no row {row}; rows are 0 to {len(position) - 1}")
        elif position[row] == 0:
            console.print(f"  row {row} is empty")
        elif take < 1:
            console.print("  you must take at least one object")
        elif take > position[row]:
            console.print(f"  row {row} only has {int(position[row])}")
        elif k is not None and take > k:
            console.print(f"  at most {k} per move")
        else:
            return row, take


def run(args, read=input) -> int:
    from ..agents import build_agent

    rules = rules_from_args(args)
    opponent = build_agent(args.agent, rules)
    rng = np.random.default_rng(args.seed)
    position = np.asarray(rules.rows, dtype=np.int64)
    person_turn = not args.second
    goal = "takes the last object loses" if rules.misere else "takes the last object wins"
    console.print(f"Nim {rules.describe()} against {args.agent}: whoever {goal}.")
    while position.sum() > 0:
        console.print(draw(position))
        if person_turn:
            move = ask_move(position, rules.k, read)
            if move is None:
                console.print("bye")
                return 0
        else:
            rows, takes = opponent(position[None, :], rng)
            move = int(rows[0]), int(takes[0])
            console.print(f"{args.agent} takes {move[1]} from row {move[0]}")
        position[move[0]] -= move[1]
        person_turn = not person_turn
    mover_was_person = not person_turn
    person_won = mover_was_person != rules.misere
    console.print("[bold]You win![/bold]" if person_won else f"[bold]{escape(args.agent)} wins.[/bold]", markup=True)
    sys.stdout.flush()
    return 0
