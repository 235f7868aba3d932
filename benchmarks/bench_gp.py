"""Genetic programming over every Nim variant and many seeds: does the evolved expression
play perfectly, on its training boards and on boards it never saw? How long does it take?

For each variant (normal or misère, k unbounded or 2..5) the one shipped spec,
`runs/nim-gp.toml`, is run with only its `[nim]` section changed (`k`, `misere`),
`evo run --workers 0 --seed S` in a fresh process (wall and CPU time end to end,
Ray not involved; `--workers 2`: the spec's own 2 Ray workers, wall time only).
The best expression of best.json is then judged by the exact solver on the training boards and on unseen boards with the same k and rule
(6 and 7 standard rows, 2,2,6,6,13 and 4,10,1,7): the share of winning
positions where it plays a winning move. Success means 100% on every board.

    python benchmarks/bench_gp.py [--variants normal-3 misere-unbounded ...] [--seeds 1 2 ...]
                                  [--spec runs/nim-gp.toml] [--play-only | --no-play]
    python benchmarks/bench_gp.py --summarise LOG ...   # the table again from the printed run lines
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np

from fitness.nim import Rules, agent, play
from fitness.nim.agents.base import CodedPolicy
from fitness.nim.agents.expression import ExpressionAgent
from fitness.nim.exact import optimal_move_rates
from fitness.nim.space import StateSpace
from pipeline.report import best_expression
from spec_runs import ROOT, evolved

UNSEEN = [(1, 3, 5, 7, 9, 11), (1, 3, 5, 7, 9, 11, 13), (2, 2, 6, 6, 13), (4, 10, 1, 7)]
VARIANTS = [f"{rule}-{k}" for rule in ("normal", "misere") for k in ("unbounded", 2, 3, 4, 5)]
RULE = "eq(xor_all(vmod(rows, add(k, 1))), 0)"  # the normal-play rule, written in primitives


def variant_spec(spec: Path, variant: str, folder: Path) -> Path:
    """The spec with only its [nim] section changed: `k` and `misere` set for the variant."""
    rule, k = variant.split("-")
    lines = [f"k = {k}"] if k != "unbounded" else []
    lines += ["misere = true"] if rule == "misere" else []
    text = spec.read_text()
    nim = tomllib.loads(text).get("nim", {})
    if "\n[nim]\n" not in text or "k" in nim or "misere" in nim:
        raise SystemExit(f"{spec}: needs a [nim] section without k or misere")
    out = folder / spec.name
    out.write_text(text.replace("\n[nim]\n", "\n[nim]\n" + "".join(f"{line}\n" for line in lines), 1))
    return out


def judge(expression: str, boards: list[tuple[int, ...]], k: int | None, misere: bool) -> list[float]:
    """The solver's optimal-move rate of the expression on each board."""
    rates = []
    for rows in boards:
        rules = Rules(rows, k=k, misere=misere)
        player = ExpressionAgent("best", rules, expression)
        rates.append(float(optimal_move_rates([player.distribution(StateSpace.of(rows))], rules)[0]))
    return rates


def play_speed(repeats: int = 3) -> None:
    """Games/s of a fresh expression agent (and a fresh opponent) end to end: building both
    agents' tables included, as `evo match` measures it; best of `repeats` runs (pin to one
    core with taskset). 7 rows (645,120 positions) are looked up as games reach them.
    Wall-clock and CPU-time rates both: on a shared machine the CPU rate is the steadier."""
    for rows in (5, 7):
        rules = Rules.standard(rows)
        for opponent in ("expert", "random"):
            for games in (10_000, 100_000, 1_000_000):
                wall = cpu = float("inf")
                for _ in range(repeats):
                    player, other = ExpressionAgent("rule", rules, RULE), agent(opponent, rules)
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
    rules = Rules.standard(7)
    seconds = {}
    for label, cls in (("whole board", WholeBoard), ("lazy", ExpressionAgent)):
        seconds[label] = min(_timed(lambda: play(cls("rule", rules, RULE), agent("expert", rules), rules, games, 1))
                             for _ in range(3))
    print(f"- 7 rows, against expert, {games:,} games, whole board tabulated first: "
          f"{games / seconds['whole board']:,.0f} games/s; lazily: {games / seconds['lazy']:,.0f} games/s "
          f"({seconds['whole board'] / seconds['lazy']:.0f}x)", flush=True)


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def bench_variant(spec: Path, variant: str, seeds: list[int], workers: int = 0) -> dict:
    """Every seed of one variant: run (on `workers` Ray workers; 0: in-process), then judged on
    the training and unseen boards."""
    rule, k_text = variant.split("-")
    k, misere = (None if k_text == "unbounded" else int(k_text)), rule == "misere"
    nim = tomllib.loads(spec.read_text())["nim"]
    training = [tuple(nim.get("rows") or range(1, 2 * nim.get("standard", 5), 2))]
    training += [tuple(b) for b in nim.get("boards", [])]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        variant_path = variant_spec(spec, variant, Path(tmp))
        for seed in seeds:
            with evolved(str(variant_path), seed, workers) as (out, wall, generations, cpu):
                best = json.loads((out / "best.json").read_text())
            expression = best["hall_of_fame"][0]["genome"]
            trained, unseen = judge(expression, training, k, misere), judge(expression, UNSEEN, k, misere)
            runs.append({"seed": seed, **({"workers": workers} if workers else {}), "wall": wall, "cpu": cpu,
                         "generations": generations,
                         "training": min(trained), "unseen": unseen,
                         "perfect": min(trained) == 1.0 and min(unseen) == 1.0,
                         "expression": best_expression(best)})
            print(json.dumps({"variant": variant, **runs[-1]}), flush=True)
    return {"variant": variant, "runs": runs}


def summary_row(result: dict) -> str:
    """One Markdown row: seeds perfect everywhere, generations, wall and CPU time, worst miss."""
    runs = result["runs"]
    walls, cpus, gens = ([r[key] for r in runs] for key in ("wall", "cpu", "generations"))
    worst = min(runs, key=lambda r: (r["perfect"], min(r["training"], *r["unseen"])))
    misses = "" if worst["perfect"] else (f"seed {worst['seed']}: {worst['training']:.2%} training, "
                                          f"{min(worst['unseen']):.2%} unseen")
    return (f"| {result['variant']} | {sum(r['perfect'] for r in runs)}/{len(runs)} | "
            f"{np.median(gens):.0f} / {max(gens)} | {np.median(walls):.0f} / {max(walls):.0f} | "
            f"{np.median(cpus):.0f} / {max(cpus):.0f} | {misses} | `{runs[0]['expression']}` |")


def print_summary(results: list[dict]) -> None:
    print("\n| variant | perfect everywhere | generations (median / max) | wall s (median / max) | "
          "CPU s (median / max) | worst miss | expression of the first seed (simplified) |")
    print("|---|---|---|---|---|---|---|")
    for result in results:
        print(summary_row(result))
    total = sum(r["perfect"] for result in results for r in result["runs"])
    print(f"\n{total} of {sum(len(result['runs']) for result in results)} runs perfect on every board")


def from_logs(paths: list[Path]) -> list[dict]:
    """The results again from the JSON lines runs print (several logs: variants run apart).
    A seed met twice is the same run (the log is deterministic): the first is kept."""
    runs: dict[str, dict[int, dict]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.startswith("{"):
                row = json.loads(line)
                runs.setdefault(row.pop("variant"), {}).setdefault(row["seed"], row)
    return [{"variant": v, "runs": sorted(runs[v].values(), key=lambda r: r["seed"])} for v in VARIANTS if v in runs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=ROOT / "runs/nim-gp.toml")
    parser.add_argument("--variants", nargs="+", default=VARIANTS, choices=VARIANTS)
    parser.add_argument("--seeds", nargs="+", type=int, default=list(range(1, 11)))
    parser.add_argument("--play-only", action="store_true", help="only the games/s figures (no evolution)")
    parser.add_argument("--no-play", action="store_true", help="only the evolution figures")
    parser.add_argument("--summarise", nargs="+", type=Path, help="only the table, from these logs")
    parser.add_argument("--workers", type=int, default=0,
                        help="Ray workers per run (embedded Ray; default 0: in-process, the CPU time is then whole)")
    args = parser.parse_args()
    if args.summarise:
        print_summary(from_logs(args.summarise))
        return
    if not args.no_play:
        print("Expression agent, end to end (tables built in the timing):")
        play_speed()
        whole_board_reference()
    if args.play_only:
        return
    print_summary([bench_variant(args.spec, variant, args.seeds, args.workers) for variant in args.variants])


if __name__ == "__main__":
    main()
