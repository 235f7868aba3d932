"""Genetic programming over many seeds: does the evolved expression play perfectly,
on its own board and on boards it never saw? And how long does it take?

For each GP spec and seed: `evo run --workers 0` in a fresh process (wall time
end to end, Ray not involved), then the best expression of best.json is
judged by the exact solver on its board and on unseen boards with the same
k and rule: the share of winning positions where it plays a winning move.
Success means 100% on every board.

    python benchmarks/bench_gp.py [--seeds 1 2 ... 10] [--play-only]
"""

from __future__ import annotations

import argparse
import time
import json
from pathlib import Path

import numpy as np

from fitness.nim import Rules, agent, play
from fitness.nim.agents.base import CodedPolicy
from fitness.nim.agents.expression import ExpressionAgent
from fitness.nim.exact import optimal_move_rates
from fitness.nim.space import StateSpace
from spec_runs import evolved
from pipeline.hall_of_fame import load_agent
from pipeline.report import best_expression

CASES = {
    "runs/nim-gp.toml": [Rules.standard(5), Rules.standard(7), Rules((2, 2, 6, 6, 13))],
    "runs/nim-gp-misere-k3.toml": [Rules.standard(5, k=3, misere=True), Rules.standard(6, k=3, misere=True)],
}


def optimal_move_rate(best: Path, rules: Rules) -> float:
    player = load_agent(best, rules)
    return float(optimal_move_rates([player.distribution(StateSpace.of(rules.rows))], rules)[0])


def play_speed(repeats: int = 3) -> None:
    """Games/s of a fresh expression agent (and a fresh opponent) end to end: building both
    agents' tables included, as `evo match` measures it; best of `repeats` runs (pin to one
    core with taskset). 7 rows (645,120 positions) are looked up as games reach them.
    Wall-clock and CPU-time rates both: on a shared machine the CPU rate is the steadier."""
    rule = "eq(xor_all(vmod(rows, add(k, 1))), 0)"  # the normal-play rule, written in primitives
    for rows in (5, 7):
        rules = Rules.standard(rows)
        for opponent in ("expert", "random"):
            for games in (10_000, 100_000, 1_000_000):
                wall = cpu = float("inf")
                for _ in range(repeats):
                    player, other = ExpressionAgent("rule", rules, rule), agent(opponent, rules)
                    started, used = time.perf_counter(), time.process_time()
                    result = play(player, other, rules, games, seed=1)
                    wall = min(wall, time.perf_counter() - started)
                    cpu = min(cpu, time.process_time() - used)
                print(f"- {rows} rows, against {opponent}, {games:,} games: {games / wall:,.0f} games/s wall, "
                      f"{games / cpu:,.0f} per CPU second (won {result.win_rate_a:.2%})", flush=True)


class WholeBoard(ExpressionAgent):
    """The reference: tabulated over every position of the board before the first game, as
    every deterministic agent was before issue 18 (645,120 positions on 7 rows)."""

    def _build_coded(self, space):
        return CodedPolicy.tabulate(self, space)


def whole_board_reference(games: int = 10_000) -> None:
    """The same match on 7 rows with the whole board tabulated first: the ratio to the lazy tables."""
    rules, rule = Rules.standard(7), "eq(xor_all(vmod(rows, add(k, 1))), 0)"
    seconds = {}
    for label, cls in (("whole board", WholeBoard), ("lazy", ExpressionAgent)):
        seconds[label] = min(_timed(lambda: play(cls("rule", rules, rule), agent("expert", rules), rules, games, 1))
                             for _ in range(3))
    print(f"- 7 rows, against expert, {games:,} games, whole board tabulated first: "
          f"{games / seconds['whole board']:,.0f} games/s; lazily: {games / seconds['lazy']:,.0f} games/s "
          f"({seconds['whole board'] / seconds['lazy']:.0f}x)", flush=True)


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=list(range(1, 11)))
    parser.add_argument("--specs", nargs="+", default=list(CASES))
    parser.add_argument("--play-only", action="store_true", help="only the games/s figures (no evolution)")
    args = parser.parse_args()
    print("Expression agent, end to end (tables built in the timing):")
    play_speed()
    whole_board_reference()
    if args.play_only:
        return
    for spec in args.specs:
        boards = CASES[spec]
        print(f"\n### {spec}\n")
        print("| seed | generations | wall s | " + " | ".join(str(list(b.rows)) for b in boards) + " | best expression (simplified) |")
        print("|---" * (len(boards) + 4) + "|")
        walls, successes = [], 0
        for seed in args.seeds:
            with evolved(spec, seed) as (out, wall, generations):
                rates = [optimal_move_rate(out / "best.json", rules) for rules in boards]
                expression = best_expression(json.loads((out / "best.json").read_text()))
            walls.append(wall)
            successes += all(r == 1.0 for r in rates)
            print(f"| {seed} | {generations} | {wall:.1f} | " + " | ".join(f"{r:.2%}" for r in rates)
                  + f" | `{expression}` |", flush=True)
        print(f"\n{successes} of {len(args.seeds)} seeds perfect on every board; median wall time "
              f"{np.median(walls):.1f} s (max {max(walls):.1f} s)", flush=True)


if __name__ == "__main__":
    main()
