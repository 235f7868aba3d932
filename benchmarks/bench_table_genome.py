"""Games/s of a strategy-table genome against random, on one core, vs a per-game Python loop.

The genome is a 16 x 3 nim-sum table over (expert, random, longest), drawn
from a Dirichlet, decoded with the `table` decoder and played by the batched
engine. The reference plays the same table the way seed 002 did: one game
object per game, a Python loop per move, the nim-sum bucket computed in
Python, the strategy drawn with `random.choices`, and the course-style
strategies of `bench_nim_engine.py`. Both run in this process, pinned to
one core, so the ratio means something on a noisy machine. Rule genomes
(seed 004's expert, seed 000's dictionary) are timed alongside.

    python benchmarks/bench_table_genome.py [--games 100000] [--ref-games 2000]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from functools import reduce
from operator import xor

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from bench_nim_engine import ReferenceNim, reference_expert, reference_random  # noqa: E402

from fitness.nim import Rules, agent, play  # noqa: E402
from fitness.nim.genomes import decode  # noqa: E402
from operators import rules as rule_genomes  # noqa: E402
from operators import table as table_genomes  # noqa: E402

COLUMNS = ["expert", "random", "longest"]
CONFIG = {"columns": COLUMNS, "feature": "nimsum"}


def reference_longest(state: ReferenceNim) -> tuple[int, int]:
    row = max(range(len(state.rows)), key=lambda r: state.rows[r])
    return row, state.rows[row] if state.k is None else min(state.k, state.rows[row])


def reference_games_per_second(rules: Rules, table: np.ndarray, games: int) -> tuple[float, float]:
    """Seed 002's way: per move, the nim-sum row, a drawn strategy, that strategy's move."""
    random.seed(1)
    strategies = (reference_expert, reference_random, reference_longest)
    weights = table.tolist()
    wins = 0
    started = time.perf_counter()
    for g in range(games):
        state = ReferenceNim(list(rules.rows), rules.k)
        genome_to_move = g % 2 == 0
        while state:
            if genome_to_move:
                column = random.choices(range(len(strategies)), weights=weights[reduce(xor, state.rows, 0)])[0]
                state.nimming(*strategies[column](state))
            else:
                state.nimming(*reference_random(state))
            genome_to_move = not genome_to_move
        wins += not genome_to_move  # normal play: whoever moved last won
    return games / (time.perf_counter() - started), wins / games


def best_of(player, rules: Rules, games: int, runs: int = 3):
    opponent = agent("random", rules)
    play(player, opponent, rules, 1000, seed=0)  # warm up: build the coded tables once
    results = [play(player, opponent, rules, games, seed=seed) for seed in range(runs)]
    return max(r.games_per_second for r in results), float(np.mean([r.win_rate_a for r in results]))


def decode_and_play_per_second(rules: Rules, tables: list[np.ndarray], games: int) -> float:
    """A fresh genome each time, as a task evaluates them: decode + build its tables + play."""
    opponent = agent("random", rules)
    started = time.perf_counter()
    for i, table in enumerate(tables):
        play(decode("table", table, CONFIG, rules), opponent, rules, games, seed=i)
    return len(tables) * games / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--ref-games", type=int, default=2_000)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    rules = Rules.standard(5)
    rng = np.random.default_rng(0)
    table = table_genomes.random_table(table_genomes.shape_for(rules, CONFIG), rng)
    ref, ref_rate = reference_games_per_second(rules, table, args.ref_games)
    fast, fast_rate = best_of(decode("table", table, CONFIG, rules), rules, args.games)
    fresh = [table_genomes.random_table(table.shape, rng) for _ in range(20)]
    per_genome = decode_and_play_per_second(rules, fresh, 200)

    print(f"table genome (16 x 3 nim-sum table over {', '.join(COLUMNS)}) vs random, 5-row board, one core")
    print(f"  reference loop:                {ref:>12,.0f} games/s   win rate {ref_rate:.3f}")
    print(f"  engine ({args.games:,} games):       {fast:>12,.0f} games/s   win rate {fast_rate:.3f}"
          "   target >= 200,000")
    print(f"  ratio engine / reference:      {fast / ref:>12,.0f} x")
    print(f"  fresh genome, 200 games each:  {per_genome:>12,.0f} games/s   (decode + tables + play)")
    for name in ("rule-expert", "rule-dict"):
        spec = rule_genomes.spec_for(rules, {"agent": name})
        genome = rule_genomes.random_genome(spec, rng)
        speed, rate = best_of(decode("rules", genome, {"agent": name}, rules), rules, args.games)
        print(f"  rules genome, {name + ':':<13}   {speed:>12,.0f} games/s   win rate {rate:.3f}")


if __name__ == "__main__":
    main()
