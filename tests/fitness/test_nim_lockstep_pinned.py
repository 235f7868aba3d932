"""Results of the three lockstep callers pinned to the numbers the code gave
before they shared one loop (recorded at commit 1b0da8e): same seeds, same
draws in the same order, so exactly the same wins, plies, transitions and
learned tables.

    python tests/fitness/test_nim_lockstep_pinned.py   # prints the values the code gives now
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from fitness.nim import Rules, agent, play
from fitness.nim.agents.base import Agent
from fitness.nim.agents.mixture import MixtureAgent, stack_mixtures
from fitness.nim.population import play_population, stack_tabulated
from fitness.nim.rl import CanonicalSpace, Hyperparameters, QTable, Rewards, train
from fitness.nim.rl.episodes import play_batch
from fitness.nim.space import StateSpace


class FirstRowJitter(Agent):
    """Random, with no policy on codes: the engine decodes codes for it."""

    def act(self, positions, rng):
        rows = np.argmax(positions > 0, axis=1)
        left = positions[np.arange(len(positions)), rows]
        takes = 1 + (rng.random(len(positions)) * left).astype(np.int64)
        return rows, takes


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def _match(result) -> list[int]:
    return [result.games, result.wins_a, result.wins_a_first, result.games_a_first, result.plies]


def play_cases() -> dict[str, list[int]]:
    five, misere = Rules.standard(5), Rules.standard(4, k=3, misere=True)
    big = Rules.standard(8)  # too many positions to number: the engine plays on position arrays
    assert StateSpace.of(big.rows) is None
    jitter = FirstRowJitter("jitter", five)
    cases = {
        "expert-random-5": play(agent("expert", five), agent("random", five), five, 1001, seed=3),
        "random-expert-5": play(agent("random", five), agent("expert", five), five, 999, seed=4),
        "random-sloppy-misere": play(agent("random", misere), agent("sloppy:0.3", misere), misere, 500, seed=11),
        "jitter-random-5": play(jitter, agent("random", five), five, 301, seed=5),
        "expert-jitter-5": play(agent("expert", five), jitter, five, 300, seed=6),
        "one-game": play(agent("random", five), agent("random", five), five, 1, seed=7),
        "no-game": play(agent("random", five), agent("random", five), five, 0, seed=7),
        "expert-random-8rows": play(agent("expert", big), agent("random", big), big, 301, seed=8),
        "random-random-8rows": play(agent("random", big), agent("random", big), big, 200, seed=9),
    }
    return {name: _match(r) for name, r in cases.items()}


def _tables(n: int, seed: int, rules: Rules) -> list[MixtureAgent]:
    rng = np.random.default_rng(seed)
    columns = ("expert", "random", "longest")
    return [MixtureAgent(f"t{i}", rules, rng.dirichlet(np.ones(3), size=8), columns) for i in range(n)]


def population_cases() -> dict[str, list[list[int]]]:
    rules = Rules.standard(4, k=3)
    space = StateSpace(rules.rows)
    tables = _tables(6, 4, rules)
    fixed = [agent(name, rules) for name in ("expert", "gabriele", "silly", "rule-expert")]
    five = Rules.standard(5)
    cases = {
        "tables-sloppy": play_population(tables, agent("sloppy:0.3", rules), rules, 61, range(10, 16)),
        "tables-stacked-random": play_population(tables, agent("random", rules), rules, 40, range(6),
                                                 stacked=stack_mixtures(tables, space)),
        "fixed-stacked-random": play_population(fixed, agent("random", rules), rules, 50, [7, 8, 9, 10],
                                                stacked=stack_tabulated(fixed, space)),
        "mixed-jitter": play_population([agent("random", five), FirstRowJitter("j", five)],
                                        agent("sloppy:0.5", five), five, 33, [1, 2]),
    }
    return {name: [_match(r) for r in results] for name, results in cases.items()}


def _batch(rules: Rules, opponents: list[str], n: int, seed: int, method: str):
    """One `play_batch` of mixed self-play and fixed opponents; every transition digested."""
    rng = np.random.default_rng(seed)
    space = CanonicalSpace(rules)
    table = QTable(space, -0.5)
    table.q[:] = rng.normal(size=len(table.q))
    starts = rules.start(n)
    explore = rng.random(n) < 0.3
    starts[explore] = space.raw_positions(rng.integers(1, space.n_states, int(explore.sum())))
    opponent_of_game = rng.integers(-1, len(opponents), n)
    learner_first = rng.random(n) < 0.5
    fixed = [agent(name, rules) for name in opponents]
    seen: list = []

    def observe(t) -> None:
        seen.append(_digest(t.game, t.action, t.reward, t.next_state, t.sign))
        if method == "td":  # the table changes as transitions arrive, as in training
            table.update(t.action, t.reward, 0.1)

    outcome = play_batch(table, rules, Rewards.shaped(), starts, explore, fixed, opponent_of_game,
                         learner_first, 0.2, rng, observe)
    return [outcome.wins, outcome.losses, len(seen), _digest(np.array(seen)), _digest(table.q)]


def _curve(run) -> list:
    rates = ("win_rate_random", "win_rate_expert", "train_win_rate")
    return [[None if np.isnan(row[r]) else round(row[r], 12) for r in rates] for row in run.curve]


def rl_cases() -> dict[str, list]:
    four, misere = Rules.standard(4), Rules.standard(4, k=2, misere=True)
    runs = {
        "td-self": train(four, "self", 3000, seed=1, hyperparameters=Hyperparameters(method="td", batch=256),
                         eval_every=1000, eval_games=50),
        "mc-mix": train(misere, "random=0.3,expert=0.2,self=0.5", 3000, seed=2, eval_every=1000, eval_games=50,
                        hyperparameters=Hyperparameters(method="mc", batch=200)),
        "td-seed004": train(four, "random=0.5,expert=0.5", 2000, seed=3, eval_every=1000, eval_games=50,
                            hyperparameters=Hyperparameters(method="td", adaptive=1e-3, batch=128,
                                                            explore_starts=0.2, rewards=Rewards.shaped(),
                                                            initial=-0.5)),
    }
    out: dict[str, list] = {name: [_digest(run.table.q, run.table.seen), _curve(run)] for name, run in runs.items()}
    out["batch-td"] = _batch(four, ["random", "expert"], 300, 5, "td")
    out["batch-mc"] = _batch(misere, ["sloppy:0.2"], 200, 6, "mc")
    out["batch-self"] = _batch(four, [], 100, 7, "td")
    return out


PINNED: dict = {
    "play": {
        "expert-random-5": [1001, 1001, 501, 501, 9811],
        "random-expert-5": [999, 0, 0, 500, 9801],
        "random-sloppy-misere": [500, 72, 37, 250, 5002],
        "jitter-random-5": [301, 141, 68, 151, 3171],
        "expert-jitter-5": [300, 300, 150, 150, 3126],
        "one-game": [1, 1, 1, 1, 9],
        "no-game": [0, 0, 0, 0, 0],
        "expert-random-8rows": [301, 301, 151, 151, 6249],
        "random-random-8rows": [200, 99, 54, 100, 3969],
    },
    "population": {
        "tables-sloppy": [[61, 18, 7, 31, 598], [61, 19, 7, 31, 609], [61, 12, 5, 31, 564], [61, 24, 11, 31, 610], [61, 20, 6, 31, 618], [61, 20, 10, 31, 630]],
        "tables-stacked-random": [[40, 27, 13, 20, 355], [40, 22, 10, 20, 388], [40, 25, 9, 20, 365], [40, 28, 13, 20, 362], [40, 33, 20, 20, 375], [40, 23, 13, 20, 367]],
        "fixed-stacked-random": [[50, 50, 25, 25, 509], [50, 34, 19, 25, 417], [50, 35, 15, 25, 408], [50, 35, 17, 25, 578]],
        "mixed-jitter": [[33, 10, 5, 17, 334], [33, 14, 6, 17, 334]],
    },
    # the Q-tables' digests re-pinned on 2026-11-27: a batch's step size is an integer power by
    # repeated squaring now (numpy's power differed in the last bits between CPUs); curves unchanged
    "rl": {
        "td-self": ["fc39497eea7a4281", [[0.82, 0.0, None], [1.0, 0.0, None], [0.98, 0.5, None], [1.0, 0.5, None]]],
        "mc-mix": ["c9a395eb34caf2a3", [[0.62, 0.0, None], [0.86, 0.0, 0.477272727273], [0.94, 0.0, 0.560784313725], [0.98, 0.0, 0.58726899384]]],
        "td-seed004": ["b8ff6ae7c7f88b0f", [[0.86, 0.0, None], [0.9, 0.0, 0.392578125], [0.94, 0.0, 0.40368852459]]],
        "batch-td": [46, 149, 37, "51c035f55803d0a1", "ec482f8f00174127"],
        "batch-mc": [4, 100, 32, "19f6b0f0635b7342", "85316d9f34b46161"],
        "batch-self": [0, 0, 12, "837691895c36351c", "c05b1b311615c6b3"],
    },
}


@pytest.mark.parametrize("kind", ["play", "population", "rl"])
def test_results_are_those_of_the_code_before_the_shared_loop(kind):
    got = {"play": play_cases, "population": population_cases, "rl": rl_cases}[kind]()
    assert json.loads(json.dumps(got)) == PINNED[kind]


if __name__ == "__main__":
    print(json.dumps({"play": play_cases(), "population": population_cases(), "rl": rl_cases()}, indent=1))
