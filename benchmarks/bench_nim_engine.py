"""Games/s of the batched engine against a faithful course-style reference loop.

The reference is the way the course notebooks play: a `Nim` object per game,
a Python loop per move, and an expert that deep-copies the position for every
legal move to compute the resulting nim-sum. Both run in the same process,
one core, so the ratio is meaningful on a noisy machine.

    python benchmarks/bench_nim_engine.py [--games 1000000] [--ref-games 2000]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from copy import deepcopy
from functools import reduce
from operator import xor

os.environ.setdefault("OMP_NUM_THREADS", "1")

from fitness.nim import Rules, agent, play  # noqa: E402
from fitness.nim.solver import SolvedGame  # noqa: E402


class ReferenceNim:
    """Course-style game object: a list of rows, mutated move by move."""

    def __init__(self, rows: list[int], k: int | None) -> None:
        self.rows = list(rows)
        self.k = k

    def __bool__(self) -> bool:
        return sum(self.rows) > 0

    def nimming(self, row: int, take: int) -> None:
        assert 1 <= take <= self.rows[row] and (self.k is None or take <= self.k)
        self.rows[row] -= take


def reference_moves(state: ReferenceNim) -> list[tuple[int, int]]:
    return [
        (r, t)
        for r, c in enumerate(state.rows)
        for t in range(1, c + 1)
        if state.k is None or t <= state.k
    ]


def reference_expert(state: ReferenceNim) -> tuple[int, int]:
    """Brute-force nim-sum expert: copy the game for every legal move."""
    moves = reference_moves(state)
    for move in moves:
        trial = deepcopy(state)
        trial.nimming(*move)
        if reduce(xor, trial.rows, 0) == 0:
            return move
    return random.choice(moves)


def reference_random(state: ReferenceNim) -> tuple[int, int]:
    row = random.choice([r for r, c in enumerate(state.rows) if c > 0])
    limit = state.rows[row] if state.k is None else min(state.k, state.rows[row])
    return row, random.randint(1, limit)


def reference_games_per_second(rules: Rules, games: int) -> float:
    random.seed(1)
    players = (reference_expert, reference_random)
    started = time.perf_counter()
    for g in range(games):
        state = ReferenceNim(list(rules.rows), rules.k)
        turn = g % 2
        while state:
            state.nimming(*players[turn](state))
            turn = 1 - turn
    return games / (time.perf_counter() - started)


def engine_games_per_second(rules: Rules, games: int) -> float:
    expert, rand = agent("expert", rules), agent("random", rules)
    play(expert, rand, rules, 1000, seed=0)  # warm up: tabulate the expert once
    best = 0.0
    for seed in range(3):
        best = max(best, play(expert, rand, rules, games, seed=seed).games_per_second)
    return best


def solver_seconds(rules: Rules) -> float:
    started = time.perf_counter()
    SolvedGame(rules)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--ref-games", type=int, default=2_000)
    args = parser.parse_args()

    normal = Rules.standard(5)
    misere = Rules.standard(5, k=3, misere=True)
    ref = reference_games_per_second(normal, args.ref_games)
    fast = engine_games_per_second(normal, args.games)
    fast_misere = engine_games_per_second(misere, args.games)
    print("expert vs random, 5-row board, one process")
    print(f"  reference loop (normal):      {ref:>12,.0f} games/s")
    print(f"  engine (normal):              {fast:>12,.0f} games/s   target >= 1,000,000")
    print(f"  engine (misere, k=3):         {fast_misere:>12,.0f} games/s   target >=   500,000")
    print(f"  ratio engine / reference:     {fast / ref:>12,.0f} x        target >= 400 x")
    print("exact solver, seconds (targets: 8 rows < 1 s, 9 rows < 5 s)")
    for n in (8, 9):
        cells = []
        for k in (None, 1, 3, 5):
            for mis in (False, True):
                cells.append(solver_seconds(Rules.standard(n, k=k, misere=mis)))
        print(f"  {n} rows, 8 variants (k in None/1/3/5 x normal/misere): worst {max(cells):.2f} s, "
              f"mean {sum(cells) / len(cells):.2f} s")


if __name__ == "__main__":
    main()
