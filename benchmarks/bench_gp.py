"""Genetic programming over every Nim variant and many seeds: does the evolved expression
play perfectly, on its training boards and on boards it never saw? How long does it take?

For each variant (normal or misère, k unbounded or 2..5) the one shipped spec,
`runs/nim-gp.toml`, is run with only its `[nim]` section changed (`k`, `misere`),
`evo run --workers 0 --seed S` in a fresh process (wall and CPU time end to end,
Ray not involved). The best expression of best.json is then judged by the exact
solver on the training boards and on unseen boards with the same k and rule
(6 and 7 standard rows, 2,2,6,6,13 and 4,10,1,7): the share of winning
positions where it plays a winning move. Success means 100% on every board.

    python benchmarks/bench_gp.py [--variants normal-3 misere-unbounded ...] [--seeds 1 2 ...]
                                  [--spec runs/nim-gp.toml] [--speed-only]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np

from fitness.nim import Rules, agent, play
from fitness.nim.agents.expression import ExpressionAgent
from fitness.nim.exact import optimal_move_rates
from fitness.nim.space import StateSpace
from pipeline.report import best_expression

ROOT = Path(__file__).resolve().parents[1]
UNSEEN = [(1, 3, 5, 7, 9, 11), (1, 3, 5, 7, 9, 11, 13), (2, 2, 6, 6, 13), (4, 10, 1, 7)]
VARIANTS = [f"{rule}-{k}" for rule in ("normal", "misere") for k in ("unbounded", 2, 3, 4, 5)]


def variant_spec(spec: Path, variant: str, folder: Path) -> Path:
    """The spec with only its [nim] section changed: `k` and `misere` set for the variant."""
    rule, k = variant.split("-")
    lines = [f"k = {k}"] if k != "unbounded" else []
    lines += ["misere = true"] if rule == "misere" else []
    text = spec.read_text()
    if "\n[nim]\n" not in text or any(f"\n{key} =" in text.split("\n[nim]\n")[1].split("\n[")[0]
                                      for key in ("k", "misere")):
        raise SystemExit(f"{spec}: needs a [nim] section without k or misere")
    out = folder / spec.name
    out.write_text(text.replace("\n[nim]\n", "\n[nim]\n" + "".join(f"{line}\n" for line in lines), 1))
    return out


def evolve(spec: Path, seed: int, out: Path) -> tuple[float, float, int]:
    """`evo run SPEC --workers 0 --seed SEED` in a fresh process: (wall s, CPU s, last generation)."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(spec), "--workers", "0", "--seed", str(seed),
                    "--out", str(out)], check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads((out / "checkpoint.json").read_text())["generation"]


def judge(expression: str, boards: list[tuple[int, ...]], k: int | None, misere: bool) -> list[float]:
    """The solver's optimal-move rate of the expression on each board."""
    rates = []
    for rows in boards:
        rules = Rules(rows, k=k, misere=misere)
        player = ExpressionAgent("best", rules, expression)
        rates.append(float(optimal_move_rates([player.distribution(StateSpace.of(rows))], rules)[0]))
    return rates


def play_speed() -> None:
    """Games/s against random on the 5-row board for a fresh expression agent:
    compiling and tabulating it over the board included (pin to one core with taskset)."""
    rules = Rules.standard(5)
    rule = "eq(xor_all(vmod(rows, add(k, 1))), 0)"  # the normal-play rule, written in primitives
    for games in (10_000, 100_000, 1_000_000):
        started = time.perf_counter()
        result = play(ExpressionAgent("rule", rules, rule), agent("random", rules), rules, games, seed=1)
        print(f"- {games:,} games: {games / (time.perf_counter() - started):,.0f} games/s "
              f"(won {result.win_rate_a:.2%})", flush=True)


def bench_variant(spec: Path, variant: str, seeds: list[int]) -> dict:
    rule, k_text = variant.split("-")
    k, misere = (None if k_text == "unbounded" else int(k_text)), rule == "misere"
    nim = tomllib.loads(spec.read_text())["nim"]
    training = [tuple(nim.get("rows") or range(1, 2 * nim.get("standard", 5), 2))]
    training += [tuple(b) for b in nim.get("boards", [])]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        variant_path = variant_spec(spec, variant, Path(tmp))
        for seed in seeds:
            out = Path(tmp) / f"run-{seed}"
            wall, cpu, generations = evolve(variant_path, seed, out)
            best = json.loads((out / "best.json").read_text())
            expression = best["hall_of_fame"][0]["genome"]
            trained, unseen = judge(expression, training, k, misere), judge(expression, UNSEEN, k, misere)
            rows.append({"seed": seed, "wall": wall, "cpu": cpu, "generations": generations,
                         "training": min(trained), "unseen": unseen,
                         "perfect": min(trained) == 1.0 and min(unseen) == 1.0,
                         "expression": best_expression(best)})
            print(json.dumps({"variant": variant, **rows[-1]}), flush=True)
    return {"variant": variant, "runs": rows}


def summary_row(result: dict) -> str:
    runs = result["runs"]
    walls, cpus = [r["wall"] for r in runs], [r["cpu"] for r in runs]
    gens = [r["generations"] for r in runs]
    worst = min(runs, key=lambda r: (r["perfect"], min(r["training"], *r["unseen"])))
    misses = "" if worst["perfect"] else (f"seed {worst['seed']}: {worst['training']:.2%} training, "
                                          f"{min(worst['unseen']):.2%} unseen")
    return (f"| {result['variant']} | {sum(r['perfect'] for r in runs)}/{len(runs)} | "
            f"{np.median(gens):.0f} / {max(gens)} | {np.median(walls):.0f} / {max(walls):.0f} | "
            f"{np.median(cpus):.0f} / {max(cpus):.0f} | {misses} | `{runs[0]['expression']}` |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=ROOT / "runs/nim-gp.toml")
    parser.add_argument("--variants", nargs="+", default=VARIANTS, choices=VARIANTS)
    parser.add_argument("--seeds", nargs="+", type=int, default=list(range(1, 11)))
    parser.add_argument("--speed-only", action="store_true", help="only the games/s figures")
    args = parser.parse_args()
    print("Expression agent against random, 5 rows, end to end:")
    play_speed()
    if args.speed_only:
        return
    results = [bench_variant(args.spec, variant, args.seeds) for variant in args.variants]
    print("\n| variant | perfect everywhere | generations (median / max) | wall s (median / max) | "
          "CPU s (median / max) | worst miss | expression of the first seed (simplified) |")
    print("|---|---|---|---|---|---|---|")
    for result in results:
        print(summary_row(result))
    total = sum(r["perfect"] for result in results for r in result["runs"])
    print(f"\n{total} of {sum(len(result['runs']) for result in results)} runs perfect on every board")


if __name__ == "__main__":
    main()
