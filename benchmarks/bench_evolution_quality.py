"""How strong are the agents the shipped Nim specs evolve? Judged as a user would.

For each spec and seed: `evo run` in a fresh process (in-process evaluation,
wall time end to end), then the hall of fame's first agent from best.json is
judged by a fresh 100,000-game `play` against every opponent of the spec (a
seed unrelated to the run) and by the exact solver: the share of winning
positions where its move keeps the win. Beside it, the same figures for the
genome's ceiling where one is known (the pure expert column of a table).

    python benchmarks/bench_evolution_quality.py [--seeds 1 2 3] [--specs runs/nim-table.toml ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from fitness.nim import agent, play
from fitness.nim.exact import optimal_move_rates
from fitness.nim.space import StateSpace
from spec_runs import evolved
from pipeline.hall_of_fame import load_agent, saved_rules

SPECS = ["runs/nim-table.toml", "runs/nim-misere-k3.toml", "runs/nim-table-sampled.toml", "runs/nim-rules.toml"]


def judge(best_path: Path, games: int) -> dict[str, float]:
    best = json.loads(best_path.read_text())
    rules = saved_rules(best)
    player = load_agent(best_path, rules)
    figures = {}
    for name in best["task"]["opponents"]:
        figures[name] = play(player, agent(name, rules), rules, games, seed=20_261_122).win_rate_a
    space = StateSpace.of(rules.rows)
    figures["optimal_move_rate"] = float(optimal_move_rates([player.distribution(space)], rules)[0])
    logged = best["hall_of_fame"][0]["objectives"]
    figures["largest_gap_to_logged"] = max(abs(figures[n] - logged[f"win_rate_{n.replace(':', '_').replace('-', '_')}"])
                                           for n in best["task"]["opponents"])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", nargs="+", default=SPECS)
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3, 4, 5])
    parser.add_argument("--games", type=int, default=100_000)
    args = parser.parse_args()
    print("| spec | seed | generations | wall s | " + "vs opponents (fresh 100k games) | optimal-move rate | max gap to best.json |")
    print("|---|---|---|---|---|---|---|")
    for spec in args.specs:
        rows = []
        for seed in args.seeds:
            with evolved(spec, seed) as (out, wall, generations, _cpu):
                figures = judge(out / "best.json", args.games)
            rows.append(figures)
            versus = ", ".join(f"{name} {value:.2%}" for name, value in figures.items()
                               if name not in ("optimal_move_rate", "largest_gap_to_logged"))
            print(f"| {spec} | {seed} | {generations} | {wall:.1f} | {versus} | {figures['optimal_move_rate']:.4f} "
                  f"| {figures['largest_gap_to_logged'] * 100:.2f} pt |", flush=True)
        rates = [r["optimal_move_rate"] for r in rows]
        print(f"| {spec} | median of {len(rows)} | | | | {np.median(rates):.4f} | |", flush=True)


if __name__ == "__main__":
    main()
