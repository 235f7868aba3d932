"""`evo match A B`: play two agents against each other and report win rates."""

from __future__ import annotations

import argparse

from ..agents import build_agent
from ..cli import UserError
from ..display import print_table


def add_parser(sub) -> None:
    p = sub.add_parser(
        "match",
        help="play two agents against each other",
        description="Play AGENT_A against AGENT_B; A moves first in half of the games. "
        "Agents are registered names (expert, random, minimax, minimax:D, sloppy:P, ...) "
        "or saved agents (a run directory, e.g. runs/nim-table, or its best.json).",
    )
    p.add_argument("agent_a", metavar="AGENT_A")
    p.add_argument("agent_b", metavar="AGENT_B")
    add_board_options(p)
    p.add_argument("--games", type=int, default=10_000, help="number of games (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.set_defaults(handler=run)


def add_board_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rows", type=int, default=5, help="standard board with this many rows: 1, 3, 5, ... (default 5)")
    p.add_argument("--board", type=str, default=None, help="any board instead, e.g. 3,4,5")
    p.add_argument("--k", type=int, default=None, help="at most K objects per move (default: unbounded)")
    p.add_argument("--misere", action="store_true", help="whoever takes the last object loses")


def rules_from_args(args):
    """The board of `--rows`/`--board`, `--k` and `--misere`; a bad value names its flag."""
    from fitness.nim import Rules

    for flag, value in (("--rows", args.rows), ("--k", args.k)):
        if value is not None and value < 1:
            raise UserError(f"{flag}: must be >= 1, got {value}")
    if args.board is None:
        return Rules.standard(args.rows, k=args.k, misere=args.misere)
    try:
        rows = tuple(int(v) for v in args.board.split(","))
    except ValueError:
        raise UserError(f"--board: must be comma-separated integers, got {args.board!r}") from None
    try:
        return Rules(rows=rows, k=args.k, misere=args.misere)
    except ValueError as exc:
        raise UserError(f"--board: {exc}") from None


def run(args) -> int:
    from fitness.nim import play, wilson_interval

    if args.games < 1:
        raise UserError(f"--games: must be >= 1, got {args.games}")
    rules = rules_from_args(args)
    a = build_agent(args.agent_a, rules)
    b = build_agent(args.agent_b, rules)
    result = play(a, b, rules, args.games, args.seed)
    rows = []
    for who, wins, label in ((a, result.wins_a, "A"), (b, result.wins_b, "B")):
        low, high = wilson_interval(wins, result.games)
        rows.append([f"{label}: {args.agent_a if label == 'A' else args.agent_b}", f"{wins:,}",
                     f"{wins / result.games:.2%}", f"{low:.2%} – {high:.2%}"])
    print_table(
        f"{rules.describe()} · {result.games:,} games · seed {args.seed} · "
        f"{result.games_per_second:,.0f} games/s",
        ["agent", "wins", "win rate", "95% CI"],
        rows,
    )
    first = result.wins_a_first / result.games_a_first if result.games_a_first else 0.0
    second_games = result.games - result.games_a_first
    second = (result.wins_a - result.wins_a_first) / second_games if second_games else 0.0
    print(f"A moving first won {first:.2%}; A moving second won {second:.2%}")
    return 0
