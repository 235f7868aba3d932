"""Quality of the reinforcement-learning agents, and what it costs to train them.

For the 5-row board (1, 3, 5, 7, 9) in normal play unbounded, and in misère
with k = 3, each configuration is trained on one core and its greedy policy
is measured three ways:

* win rate against random (100,000 games on the engine, 95% Wilson interval);
* win rate against the expert (the maximum is 50%: the start is winning and
  the agents take turns opening);
* the share of all canonical winning positions (exact solver) where its move
  keeps the win: 100% means the policy is right everywhere, not only on the
  lines the evaluation games happen to reach.

    python benchmarks/bench_rl.py [--seed 1] [--games 100000] [--only td-self]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from fitness.nim import Rules, agent, play, wilson_interval  # noqa: E402
from fitness.nim.rl import Hyperparameters, Rewards, train, winning_moves  # noqa: E402

VARIANTS = {
    "normal, unbounded": Rules.standard(5),
    "misère, k=3": Rules.standard(5, k=3, misere=True),
}

MIX = "random=0.3,expert=0.2,self=0.5"
SEED004 = dict(rewards=Rewards.shaped(), initial=-0.5)  # ±5 / ±3 rewards, unseen moves at -0.5

# name: (opponents, episodes, hyperparameters); 1024 games in lockstep throughout.
CONFIGS = {
    "td-self": ("self", 300_000, Hyperparameters(method="td", batch=1024)),
    "mc-self": ("self", 1_000_000, Hyperparameters(method="mc", batch=1024)),
    "td-mix": (MIX, 1_000_000, Hyperparameters(method="td", batch=1024)),
    "mc-mix": (MIX, 1_000_000, Hyperparameters(method="mc", batch=1024)),
    "td-random": ("random", 300_000, Hyperparameters(method="td", batch=1024)),
    "td-expert": ("expert", 300_000, Hyperparameters(method="td", batch=1024)),
    "td-random-expert": ("random=0.5,expert=0.5", 300_000, Hyperparameters(method="td", batch=1024)),
    # Seed 004's options, trained like the seed against random and the expert,
    # with its adaptive exploration (plus our exploring starts) ...
    "td-seed004": ("random=0.5,expert=0.5", 300_000, Hyperparameters(
        method="td", adaptive=1e-4, batch=1024, **SEED004)),
    # ... and the same rewards and initial value in self-play.
    "td-self-seed004": ("self", 300_000, Hyperparameters(method="td", batch=1024, **SEED004)),
}


def measure(name: str, rules: Rules, seed: int, games: int) -> list[str]:
    opponents, episodes, hp = CONFIGS[name]
    wall, cpu = time.perf_counter(), time.process_time()
    run = train(rules, opponents, episodes, seed=seed, hyperparameters=hp, eval_games=100)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    trained = run.agent()
    vs_random = play(trained, agent("random", rules), rules, games, seed + 1)
    vs_expert = play(trained, agent("expert", rules), rules, 1000, seed + 2)
    low, high = wilson_interval(vs_random.wins_a, vs_random.games)
    quality = winning_moves(trained)
    return [
        name, f"{episodes:,}", f"{cpu:.0f} s ({wall:.0f} s wall)",
        f"{vs_random.win_rate_a:.3%} [{low:.2%}, {high:.2%}]",
        f"{vs_expert.win_rate_a:.1%}",
        f"{quality.kept}/{quality.winning} ({quality.rate:.2%})",
        f"{run.table.n_known}/{run.table.space.n_states - 1}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=100_000, help="games against random")
    parser.add_argument("--only", choices=sorted(CONFIGS), action="append", help="run only these configurations")
    args = parser.parse_args()
    header = ["config", "episodes", "train CPU", "vs random", "vs expert", "winning moves kept", "states known"]
    for variant, rules in VARIANTS.items():
        print(f"\n### {rules.describe()} ({variant})\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for name in args.only or CONFIGS:
            print("| " + " | ".join(measure(name, rules, args.seed, args.games)) + " |", flush=True)


if __name__ == "__main__":
    main()
