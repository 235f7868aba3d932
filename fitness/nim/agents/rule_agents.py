"""Hand-written rule agents whose numbers are genes (the `rules` genome kind).

Two seeds evolve the parameters of a fixed decision procedure rather than the
procedure itself. Each agent here publishes a `ParamSpec` (bounds derived
from the board) through `param_spec(rules)`, validates the parameters it is
given, and respects `k` in every variant. The decoder `"rules"` turns a plain
dict `{param: value}` plus config `{"agent": NAME}` into such an agent.

On boards small enough to number, both agents look their rule moves up by
position code, each code worked out the first time it is met: a genome plays
a few hundred games, which visit far fewer positions than the board has.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import numpy as np

# This module is imported at the end of the package's __init__, after
# `register` exists there.
from . import no_param_factory, register
from ..distribution import UNIFORM_LEGAL, Component, MoveDistribution
from ..genomes import register_decoder
from ..params import ChoiceParam, FloatParam, IntParam, ParamSpec
from ..rules import Rules
from ..space import StateSpace
from .base import Agent, CodedPolicy, LazyTable, Moves, cap, row_values
from .seeds import uniform_legal_moves

__all__ = ["RuleExpertAgent", "RuleDictAgent", "RULE_AGENTS", "rule_param_spec"]


def _cut(available: np.ndarray, wanted: np.ndarray, k: int | None) -> np.ndarray:
    """Take `wanted` objects if legal: at least 1, at most the row and `k`."""
    return np.clip(wanted, 1, cap(available, k))


def _shortest_first(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per position: how many rows are non-empty, and the rows ordered shortest non-empty first
    (ties to the lower row index, so choices are deterministic; empty rows last)."""
    big = np.iinfo(np.int64).max
    return (positions > 0).sum(axis=1), np.argsort(np.where(positions > 0, positions, big), axis=1, kind="stable")


@lru_cache(maxsize=8)
def _board_order(board: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_shortest_first` of every position of a board (code order, the empty board left out),
    shared by all genomes: tabulating a genome then costs a few gathers, not a sort."""
    positions = StateSpace(board).all_positions()[1:]
    active, order = _shortest_first(positions)
    for array in (positions, active, order):
        array.setflags(write=False)
    return positions, active, order


def _nth_shortest_active(order: np.ndarray, active: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Row index of the n-th shortest non-empty row (1-based, clamped to the non-empty rows)."""
    slot = np.clip(n, 1, active) - 1
    return order[np.arange(len(order)), slot]


class RuleExpertAgent(Agent):
    """Seed 004's expert system with nine parameters, deterministic.

    With `a` non-empty rows:

    * win condition: `a == 1` -> take the whole row (as much as `k` allows);
    * row: `a >= ACTIVE_ROWS_TH1` -> the ROW_CHOICE1-th shortest non-empty
      row, else the ROW_CHOICE2-th (both clamped to the `a` rows);
    * amount: a fraction of that row's length `n`, picked from a 2x2 grid,
      `a >= ACTIVE_ROWS_TH2` (many rows) x `n >= ROW_LEN_TH` (long row):
      ITEM_CHOICE1 (many, long), ITEM_CHOICE2 (many, short),
      ITEM_CHOICE3 (few, long), ITEM_CHOICE4 (few, short);
      take round-half-up(fraction * n), then at least 1 and at most `k`.

    Bounds follow the seed's normalisation: thresholds and row choices in
    1..rows, ROW_LEN_TH in 1..longest row, fractions 0.1..1.0 in steps of 0.1.
    """

    deterministic = True  # rng is never used (its coded path is a lazy table, see LazyTable)
    SEED_DEFAULTS = {
        "ACTIVE_ROWS_TH1": 3, "ACTIVE_ROWS_TH2": 2, "ROW_CHOICE1": 7, "ROW_CHOICE2": 5,
        "ROW_LEN_TH": 5, "ITEM_CHOICE1": 0.2, "ITEM_CHOICE2": 0.4, "ITEM_CHOICE3": 0.9,
        "ITEM_CHOICE4": 0.7,
    }

    def __init__(self, name: str, rules: Rules, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, rules)
        spec = self.param_spec(rules)
        self.params = spec.snap(self.SEED_DEFAULTS) if params is None else spec.validate(params)

    @staticmethod
    def param_spec(rules: Rules) -> ParamSpec:
        """The nine parameters, bounded by this board's rows and longest row."""
        n_rows, longest = rules.n_rows, max(rules.rows)
        ints = [
            IntParam("ACTIVE_ROWS_TH1", 1, n_rows),
            IntParam("ACTIVE_ROWS_TH2", 1, n_rows),
            IntParam("ROW_CHOICE1", 1, n_rows),
            IntParam("ROW_CHOICE2", 1, n_rows),
            IntParam("ROW_LEN_TH", 1, longest),
        ]
        fractions = [FloatParam(f"ITEM_CHOICE{i}", 0.1, 1.0, 0.1) for i in range(1, 5)]
        return ParamSpec(ints + fractions)

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        return self._moves(p, *_shortest_first(p))

    def _moves(self, p: np.ndarray, active: np.ndarray, order: np.ndarray) -> Moves:
        q = self.params
        nth = np.where(active >= q["ACTIVE_ROWS_TH1"], q["ROW_CHOICE1"], q["ROW_CHOICE2"])
        rows = _nth_shortest_active(order, active, nth)
        length = row_values(p, rows)

        # Fractions as whole tenths keep the rounding exact.
        tenths = {i: round(q[f"ITEM_CHOICE{i}"] * 10) for i in range(1, 5)}
        many = active >= q["ACTIVE_ROWS_TH2"]
        long = length >= q["ROW_LEN_TH"]
        chosen = np.where(
            many,
            np.where(long, tenths[1], tenths[2]),
            np.where(long, tenths[3], tenths[4]),
        )
        wanted = (chosen * length + 5) // 10
        wanted = np.where(active == 1, length, wanted)  # the win condition
        return rows, _cut(length, wanted, self.rules.k)

    def _build_coded(self, space: StateSpace) -> CodedPolicy:
        return CodedPolicy.lazy(self, space)

    def _build_distribution(self, space: StateSpace) -> MoveDistribution:
        """Where it moves from every code, from the board's shared row order (exact fitness)."""
        positions, active, order = _board_order(space.board)
        rows, takes = self._moves(positions, active, order)
        successors = np.zeros(space.size, dtype=np.int64)
        successors[1:] = np.arange(1, space.size) - takes * space.radix[rows]
        successors.setflags(write=False)
        return MoveDistribution.deterministic(space, successors)


class RuleDictAgent(Agent):
    """Seed 000's evolved rule dictionary ("BrilliantEvolvedAgent"), re-derived.

    Each rule covers one situation (`a` = non-empty piles) and holds a pile
    choice and `leave`, the most objects to leave in the chosen pile; the move
    takes `pile - leave` objects, but always at least 1 and at most `k`:

    * rule_1, one pile: `leave` (the seed's constant first entry is dropped);
    * rule_2a, two piles, one of them a single stick: `mode` 0 wipes out that
      stick, 1 plays `leave` on the other pile;
    * rule_2b, two piles of several sticks: `pile` 0 the smaller, 1 the larger;
    * rule_3, three piles, exactly two of them equal: `pile` 0 the odd one
      out, 1 one of the equal pair;
    * rule_4, `a >= 4` piles of which `a - 1` are equal: `pile` as rule_3.

    Anything else gets a move drawn uniformly from all legal moves, from the
    rng (one uniform per game, drawn for every game so that the amount of
    randomness used never depends on the positions).

    The named agent `rule-dict` plays DEFAULTS: clear a lone pile, wipe out a
    single stick, cut the larger of two piles to one, remove the odd pile out.
    """

    deterministic = False
    DEFAULTS = {
        "rule_1_leave": 0,
        "rule_2a_mode": 0, "rule_2a_leave": 1,
        "rule_2b_pile": 1, "rule_2b_leave": 1,
        "rule_3_pile": 0, "rule_3_leave": 0,
        "rule_4_pile": 0, "rule_4_leave": 0,
    }

    def __init__(self, name: str, rules: Rules, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, rules)
        spec = self.param_spec(rules)
        self.params = spec.snap(self.DEFAULTS) if params is None else spec.validate(params)

    @staticmethod
    def param_spec(rules: Rules) -> ParamSpec:
        """Five rules (groups); `leave` counts range over 0..longest row."""
        longest = max(rules.rows)

        def leave(rule: str) -> IntParam:
            return IntParam(f"{rule}_leave", 0, longest, group=rule)

        return ParamSpec([
            leave("rule_1"),
            ChoiceParam("rule_2a_mode", (0, 1), group="rule_2a"), leave("rule_2a"),
            ChoiceParam("rule_2b_pile", (0, 1), group="rule_2b"), leave("rule_2b"),
            ChoiceParam("rule_3_pile", (0, 1), group="rule_3"), leave("rule_3"),
            ChoiceParam("rule_4_pile", (0, 1), group="rule_4"), leave("rule_4"),
        ])

    def _rule_moves(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rules' moves, and where no rule applies (those moves are placeholders)."""
        p = np.asarray(positions, dtype=np.int64)
        q, k = self.params, self.rules.k
        n = len(p)
        active_mask = p > 0
        active = active_mask.sum(axis=1)
        big = np.iinfo(np.int64).max
        by_size = np.argsort(np.where(active_mask, p, big), axis=1, kind="stable")
        smallest, second = by_size[:, 0], by_size[:, min(1, p.shape[1] - 1)]

        # Multiplicity of each pile's size among the non-empty piles.
        same = (p[:, :, None] == p[:, None, :]) & active_mask[:, None, :]
        mult = np.where(active_mask, same.sum(axis=2), 0)
        lone = active_mask & (mult == 1)
        odd_pile = lone.argmax(axis=1)
        equal_pile = (active_mask & (mult == active[:, None] - 1)).argmax(axis=1)
        one_odd_out = (lone.sum(axis=1) == 1) & ((mult == active[:, None] - 1).sum(axis=1) == active - 1)

        def choose(flag: str, when_zero: np.ndarray, when_one: np.ndarray) -> np.ndarray:
            return when_one if q[flag] == 1 else when_zero

        rows = np.zeros(n, dtype=np.int64)
        leave = np.zeros(n, dtype=np.int64)
        fallback = np.ones(n, dtype=bool)
        cases = [
            (active == 1, smallest, q["rule_1_leave"]),
            ((active == 2) & (row_values(p, smallest) == 1),
             choose("rule_2a_mode", smallest, second), 0 if q["rule_2a_mode"] == 0 else q["rule_2a_leave"]),
            ((active == 2) & (row_values(p, smallest) > 1),
             choose("rule_2b_pile", smallest, second), q["rule_2b_leave"]),
            ((active == 3) & one_odd_out, choose("rule_3_pile", odd_pile, equal_pile), q["rule_3_leave"]),
            ((active >= 4) & one_odd_out, choose("rule_4_pile", odd_pile, equal_pile), q["rule_4_leave"]),
        ]
        for where, pile, keep in cases:
            rows = np.where(where, pile, rows)
            leave = np.where(where, keep, leave)
            fallback &= ~where
        available = row_values(p, rows)
        return rows, _cut(available, available - leave, k), fallback

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        u = rng.random(len(p))
        rows, takes, fallback = self._rule_moves(p)
        if fallback.any():
            rows[fallback], takes[fallback] = uniform_legal_moves(p[fallback], self.rules.k, u[fallback])
        return rows, takes

    def _build_coded(self, space: StateSpace) -> CodedPolicy:
        # The rules are looked up per code; only the random fallback runs per move.
        table = LazyTable(space, self._rule_moves)
        k = self.rules.k

        def act(codes: np.ndarray, rng: np.random.Generator) -> Moves:
            u = rng.random(len(codes))
            rows, takes, fallback = table(codes)
            if fallback.any():
                rows[fallback], takes[fallback] = uniform_legal_moves(
                    space.decode(codes[fallback]), k, u[fallback]
                )
            return rows, takes

        return CodedPolicy(act, trusted=True)

    def _build_distribution(self, space: StateSpace) -> MoveDistribution:
        """The rules' move where one applies, a uniformly drawn legal move elsewhere."""
        codes = np.arange(1, space.size)
        rows, takes, fallback = self._rule_moves(space.decode(codes))
        successors = np.zeros(space.size, dtype=np.int64)
        successors[1:] = np.where(fallback, codes, codes - takes * space.radix[rows])
        ruled = np.zeros(space.size)
        ruled[1:] = ~fallback
        return MoveDistribution(space, [Component(ruled, successors), Component(1.0 - ruled, UNIFORM_LEGAL)])


RULE_AGENTS: dict[str, type[RuleExpertAgent] | type[RuleDictAgent]] = {
    "rule-expert": RuleExpertAgent,
    "rule-dict": RuleDictAgent,
}


def rule_param_spec(agent_name: str, rules: Rules) -> ParamSpec:
    """The parameter spec of the rule agent called `agent_name` on this board."""
    return _rule_agent_class(agent_name).param_spec(rules)


def _rule_agent_class(agent_name: Any) -> type[RuleExpertAgent] | type[RuleDictAgent]:
    if not isinstance(agent_name, str) or agent_name not in RULE_AGENTS:
        raise ValueError(f"unknown rule agent {agent_name!r}; valid: {', '.join(RULE_AGENTS)}")
    return RULE_AGENTS[agent_name]


def _decode_rules(genome: Mapping[str, Any], config: dict, rules: Rules, name: str) -> Agent:
    """`rules` genome: a plain dict {param: value} for the agent `config["agent"]`.

    Other config keys are left to the genome kind (operator settings).
    """
    return _rule_agent_class(config.get("agent"))(name, rules, genome)


register("rule-expert", no_param_factory(RuleExpertAgent), help="seed 004's nine-parameter expert, its first configuration")
register("rule-dict", no_param_factory(RuleDictAgent), help="seed 000's rule dictionary; a random move when no rule fits")
register_decoder("rules", _decode_rules)
