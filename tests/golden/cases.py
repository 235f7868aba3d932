"""The short runs whose logs are pinned: every shipped spec and example, plus the
algorithm and objective variants no shipped spec uses (mu,lambda, NSGA-II, ...)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# name -> (spec path relative to the checkout, overrides as pipeline.run takes them)
CASES: dict[str, tuple[str, dict]] = {
    "nim-table": ("runs/nim-table.toml", {"generations": 4}),
    "nim-table-sampled": ("runs/nim-table-sampled.toml", {"generations": 4}),
    "nim-misere-k3": ("runs/nim-misere-k3.toml", {"generations": 4}),
    "nim-rules": ("runs/nim-rules.toml", {"generations": 3}),
    # the GP specs as shipped before issue 20 (runs/nim-gp.toml now uses the keys it added)
    "nim-gp": ("tests/golden/specs/nim-gp-v1.toml", {"generations": 3}),
    "nim-gp-misere-k3": ("tests/golden/specs/nim-gp-misere-k3-v1.toml", {"generations": 2}),
    # runs/nim-gp.toml as issue 20 first shipped it (v2 primitives, four training boards, distinct by moves)
    "nim-gp-v2-misere-k4": ("tests/golden/specs/nim-gp-v2.toml", {"generations": 3, "nim__k": 4,
                                                                   "nim__misere": True}),
    # runs/nim-gp.toml with issue 20's second step (a canonical 7-row board, restarts); restarts after
    # 1 stagnant generation instead of 15, so that the pinned log holds one
    "nim-gp-v3-misere-k4": ("tests/golden/specs/nim-gp-v3.toml", {"generations": 4, "nim__k": 4, "nim__misere": True,
                                                 "population__restart_after": 1}),
    # runs/nim-gp.toml with issue 20's third step (confirmed on every canonical position, restarts after
    # 10): normal k = 4 seed 5 meets an expression perfect on the sample but not on the whole board
    "nim-gp-v4-normal-k4": ("runs/nim-gp.toml", {"generations": 4, "nim__k": 4, "seed": 5}),
    "setcover-1000": ("runs/setcover-1000.toml", {"generations": 4}),
    "setcover-scp": ("runs/setcover-scp.toml", {"generations": 4}),
    # 21 generations: one migration (after 20)
    "setcover-200-islands": ("runs/setcover-200-islands.toml", {"generations": 21}),
    "knapsack": ("examples/knapsack/knapsack.toml", {"generations": 4}),
    # issue 43: NSGA-III (its hypervolume column) and MAP-Elites (its archive, qd_score, coverage)
    "nsga3-nim-table": ("runs/nsga3-nim-table.toml", {"generations": 4}),
    "map-elites-nim-table": ("runs/map-elites-nim-table.toml", {"generations": 4}),
    "map-elites-nim-rules": ("runs/map-elites-nim-rules.toml", {"generations": 3}),
    "nim-vs-my-agent": ("examples/nim-agent/nim-vs-my-agent.toml", {"generations": 4}),
    # variants
    "table-mu-comma-lambda": ("runs/nim-table.toml", {"generations": 4, "population__algorithm": "mu,lambda"}),
    "table-nsga2": ("runs/nim-table.toml", {"generations": 4, "population__algorithm": "nsga2",
                                            "objectives__mode": "pareto"}),
    "table-sampled-plain": ("runs/nim-table-sampled.toml", {
        "generations": 4, "sampling__reevaluate": False, "sampling__common_random_numbers": False}),
    "setcover-flip-sparse": ("runs/setcover-1000.toml", {
        "generations": 3, "operators__mutation": "flip", "genome__init": "sparse", "population__distinct": False,
        "objectives__mode": "weighted"}),
    "rules-pareto": ("runs/nim-rules.toml", {"generations": 3, "population__algorithm": "nsga2",
                                             "objectives__mode": "pareto"}),
    "gp-comma": ("tests/golden/specs/nim-gp-v1.toml", {"generations": 2, "population__algorithm": "mu,lambda",
                                      "population__size": 60, "population__offspring": 120}),
    # steady-state in-process (deterministic there); pinned from the code before steady-state islands
    "setcover-steady-state": ("runs/setcover-1000.toml", {"generations": 4, "population__algorithm": "steady-state"}),
    "table-steady-state": ("runs/nim-table.toml", {"generations": 3, "population__algorithm": "steady-state"}),
    # steady-state islands: 21 generations, one migration (after 20)
    "setcover-200-steady-islands": ("runs/setcover-200-islands.toml", {"generations": 21,
                                                                       "population__algorithm": "steady-state"}),
    # sampled steady-state islands, each its own loop: every island's batch seeds and draws (pinned from the
    # code before they were computed 64 batches at a time)
    "table-sampled-own-steady-islands": ("runs/nim-table-sampled.toml", {
        "generations": 4, "population__algorithm": "steady-state", "sampling__reevaluate": False,
        "islands__count": 2, "islands__interval": 2, "islands__loop": "own"}),
    # CMA-ES (issue 43): the float-vector plug-in, the table kind, and an IPOP restart (after generation 110)
    "cma-es-rosenbrock": ("runs/cma-es-rosenbrock.toml", {"generations": 30}),
    "cma-es-table": ("runs/cma-es-table.toml", {"generations": 4}),
    "cma-es-ipop": ("runs/cma-es-rosenbrock.toml", {"generations": 114, "problem_options__dimension": 2,
                                                    "population__size": 3, "population__offspring": 6,
                                                    "cma_es__restarts": 2, "stop__target": -1.0}),
}


def run_case(name: str, out: Path, workers: int | str = 0) -> Path:
    import pipeline

    spec, overrides = CASES[name]
    return pipeline.run(ROOT / spec, workers=workers, out=str(out), force=True, **overrides).path
