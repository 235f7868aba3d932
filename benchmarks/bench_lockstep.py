"""Speed of the lockstep loop's three callers against another checkout of the code.

For each measurement, two worker processes are started, one importing this
tree's `fitness` package and one the package in `--base` (e.g. a `git
worktree` of the commit before a change). After a warm-up, the parent asks
them in turn for one timed run each, alternating who goes first, so both see
the same machine load from second to second; a run is timed in CPU seconds
of its thread, so what other processes take is not counted. Reported: the
median of the per-pair ratios new speed / base speed (above 1: the new code
is faster) and its interquartile range. The measurements are those of
`bench_nim_engine.py` (expert vs random, 1,000,000 games) and `bench_rl.py`
(training at 1,024 games in lockstep, self-play and a mix), plus shorter
matches, position arrays and population matches.

    git worktree add --detach /tmp/base HEAD~1
    nice -n 10 python benchmarks/bench_lockstep.py --base /tmp/base [--pairs 15]
    nice -n 10 python benchmarks/bench_lockstep.py --base /tmp/base --instructions

`--instructions` counts instead, under valgrind, the instructions one run
executes on each tree: deterministic, blind to the machine's load (and to
memory stalls, which it does not time).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import count
from pathlib import Path
from typing import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent

Work = tuple[Callable[[], object], int]  # one timed run, and how many games or episodes it plays


def engine(misere: bool) -> Work:
    """bench_nim_engine.py's measure: expert vs random on 5 rows, 1,000,000 games."""
    from fitness.nim import Rules, agent, play

    rules = Rules.standard(5, k=3, misere=True) if misere else Rules.standard(5)
    expert, rand = agent("expert", rules), agent("random", rules)
    seeds = count()
    return (lambda: play(expert, rand, rules, 1_000_000, seed=next(seeds))), 1_000_000


def matches(games: int, n: int) -> Work:
    """`n` matches of `games` games, expert vs random: the loop's cost per ply shows."""
    from fitness.nim import Rules, agent, play

    rules = Rules.standard(5)
    a, b = agent("expert", rules), agent("random", rules)
    return (lambda: [play(a, b, rules, games, seed=s) for s in range(n)]), games * n


def positions() -> Work:
    """8 rows: too many positions to number, so games are position arrays."""
    from fitness.nim import Rules, agent, play

    rules = Rules.standard(8)
    a, b = agent("expert", rules), agent("random", rules)
    return (lambda: play(a, b, rules, 20_000, seed=1)), 20_000


def population(stacked: bool) -> Work:
    """60 table genomes x 1,000 games against random, as the Nim task plays them."""
    import numpy as np

    from fitness.nim import Rules, agent
    from fitness.nim.agents.mixture import MixtureAgent, stack_mixtures
    from fitness.nim.population import play_population
    from fitness.nim.space import StateSpace

    rules = Rules.standard(5)
    rng = np.random.default_rng(0)
    columns = ("expert", "random", "longest")
    players = [MixtureAgent(f"t{i}", rules, rng.dirichlet(np.ones(3), size=16), columns) for i in range(60)]
    act = stack_mixtures(players, StateSpace(rules.rows)) if stacked else None
    opponent = agent("random", rules)
    return (lambda: play_population(players, opponent, rules, 1000, range(60), stacked=act)), 60_000


def training(opponents: str) -> Work:
    """TD training on 5 rows, 1,024 games in lockstep (bench_rl.py's setting), 20,000 episodes."""
    from fitness.nim import Rules
    from fitness.nim.rl import Hyperparameters, train

    rules = Rules.standard(5)
    hp = Hyperparameters(method="td", batch=1024)
    return (lambda: train(rules, opponents, 20_000, seed=1, hyperparameters=hp, eval_games=100)), 20_000


MEASURES: dict[str, Callable[[], Work]] = {
    "engine, normal, 1M games (games/s)": lambda: engine(False),
    "engine, misere k=3, 1M games (games/s)": lambda: engine(True),
    "engine, 200 x 200-game matches (games/s)": lambda: matches(200, 200),
    "engine, 20 x 2,000-game matches (games/s)": lambda: matches(2000, 20),
    "engine, 8 rows on positions (games/s)": positions,
    "population, 60 x 1000 games, stacked (games/s)": lambda: population(True),
    "population, 60 x 1000 games, one by one (games/s)": lambda: population(False),
    "RL td self-play (episodes/s)": lambda: training("self"),
    "RL td random/expert/self mix (episodes/s)": lambda: training("random=0.3,expert=0.2,self=0.5"),
}


def serve(name: str) -> None:
    """Worker: warm up, then one timed run per line read from stdin; print its speed."""
    work, amount = MEASURES[name]()
    work()
    print("ready", flush=True)
    for _ in sys.stdin:
        started = time.thread_time()
        work()
        print(amount / (time.thread_time() - started), flush=True)


class Worker:
    def __init__(self, tree: Path, name: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1")
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", name], env=env, cwd=tree,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"worker for {tree} failed")

    def run(self) -> float:
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def compare(base: Path, new: Path, name: str, pairs: int) -> list[tuple[float, float]]:
    """(base speed, new speed) of `pairs` runs, the two workers alternating who goes first."""
    workers = {base: Worker(base, name), new: Worker(new, name)}
    out = []
    for i in range(pairs):
        order = (base, new) if i % 2 == 0 else (new, base)
        got = {tree: workers[tree].run() for tree in order}
        out.append((got[base], got[new]))
    for worker in workers.values():
        worker.close()
    return out


def instructions(tree: Path, name: str, runs: int) -> int:
    """Instructions executed by a worker doing `runs` timed runs, counted by valgrind."""
    env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           sys.executable, __file__, "--serve", name], env=env, cwd=tree, input="go\n" * runs,
                          capture_output=True, text=True, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    return int(refs.group(1).replace(",", ""))


def count_instructions(base: Path, new: Path, name: str) -> tuple[int, int]:
    """Instructions of one run on each tree: (2 runs) - (1 run), so start-up and warm-up cancel."""
    with ThreadPoolExecutor(2) as pool:
        counts = {(tree, runs): pool.submit(instructions, tree, name, runs) for tree in (base, new) for runs in (1, 2)}
        return tuple(counts[tree, 2].result() - counts[tree, 1].result() for tree in (base, new))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, help="checkout of the code to compare with")
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--only", action="append", choices=sorted(MEASURES), help="run only these")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under valgrind instead of timing (deterministic, ~50x slower)")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    if args.base is None:
        parser.error("--base is required")
    new = HERE.parent
    print(f"new: {new}\nbase: {args.base.resolve()}\n")
    if args.instructions:
        print("| measure | base instructions / run | new | new / base |")
        print("|---|---|---|---|")
        for name in args.only or MEASURES:
            b, n = count_instructions(args.base, new, name)
            print(f"| {name.split(' (')[0]} | {b:,} | {n:,} | {n / b:.3f} |", flush=True)
        return
    print("| measure | base | new | new / base (median of pairs) | interquartile |")
    print("|---|---|---|---|---|")
    for name in args.only or MEASURES:
        got = compare(args.base, new, name, args.pairs)
        ratios = sorted(n / b for b, n in got)
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        print(f"| {name} | {statistics.median(b for b, _ in got):,.0f} | {statistics.median(n for _, n in got):,.0f} "
              f"| {statistics.median(ratios):.3f} | {q1:.3f} - {q3:.3f} |", flush=True)


if __name__ == "__main__":
    main()
