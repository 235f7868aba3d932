"""The lockstep loop and its three callers against slow references that play one
game at a time: same winners, same lengths, same transitions."""

from contextlib import nullcontext
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent, play
from fitness.nim import engine as engine_module
from fitness.nim.agents.mixture import MixtureAgent, feature_size, stack_mixtures
from fitness.nim.engine import Side
from fitness.nim.lockstep import Seat, lockstep
from fitness.nim.population import GameStreams, play_population
from fitness.nim.rl import CanonicalSpace, QTable, Rewards
from fitness.nim.rl.episodes import play_batch
from fitness.nim.space import StateSpace

DETERMINISTIC = ("expert", "gabriele", "silly", "longest", "single-row", "even-odd", "rule-expert", "minimax")


# -- the loop itself, on toy games ---------------------------------------------
def toy_drop(board, game, seat):
    """How much seat `seat` takes from a toy game's counter (deterministic, >= 1)."""
    return np.minimum(board, 1 + (board * 7 + game * 3 + seat) % 3)


@st.composite
def toy_games(draw):
    n_seats = draw(st.integers(1, 3))
    n = draw(st.integers(0, 25))
    starts = draw(st.lists(st.integers(1, 12), min_size=n, max_size=n))
    openers = draw(st.lists(st.integers(0, n_seats - 1), min_size=n, max_size=n))
    # route[s][g]: who moves game g after seat s; a seat may route to itself
    route = [draw(st.lists(st.integers(0, n_seats - 1), min_size=n, max_size=n)) for _ in range(n_seats)]
    fixed = draw(st.lists(st.booleans(), min_size=n_seats, max_size=n_seats))  # `then` as one int
    for s in range(n_seats):
        if fixed[s]:
            route[s] = [route[s][0] if n else 0] * n
    return np.array(starts, dtype=np.int64), np.array(openers, dtype=np.int64), np.array(route).reshape(n_seats, n), fixed


def play_toy_alone(start, game, opener, route, same_round):
    """The schedule spelled out for one game: (round, seat) of each of its moves."""
    board, seat, rounds, moves = int(start), int(opener), 0, []
    while board:
        moves.append((rounds, seat))
        board -= int(toy_drop(np.array([board]), np.array([game]), seat)[0])
        nxt = int(route[seat, game])
        if not (same_round and nxt > seat):
            rounds += 1
        seat = nxt
    return moves


@settings(max_examples=150, deadline=None)
@given(toy=toy_games(), same_round=st.booleans(), two_d=st.booleans())
def test_every_game_moves_as_it_would_alone(toy, same_round, two_d):
    starts, openers, route, fixed = toy
    n_seats, n = route.shape[0], len(starts)
    seen: list[tuple[int, int]] = []  # (game, seat) of every move the loop makes

    def seat(s):
        def move(boards, games):
            assert np.all(np.diff(games) > 0), "a seat gets its games once each, in ascending order"
            codes = boards.sum(axis=1) if two_d else boards
            for g in games.tolist():
                seen.append((g, s))
            after = codes - toy_drop(codes, games, s)
            return np.stack([after, np.zeros_like(after)], axis=1) if two_d else after

        then = int(route[s, 0]) if fixed[s] and n else (lambda games: route[s, games])
        return Seat(move, then)

    boards = np.stack([starts, np.zeros_like(starts)], axis=1) if two_d else starts
    ids = np.arange(n)
    ended = lockstep([seat(s) for s in range(n_seats)],
                     [(boards[openers == s], ids[openers == s]) for s in range(n_seats)], same_round=same_round)

    alone = [play_toy_alone(starts[g], g, openers[g], route, same_round) for g in range(n)]
    assert sorted(g for _, _, games in ended for g in games.tolist()) == list(range(n))
    for rounds, s, games in ended:
        for g in games.tolist():
            assert alone[g][-1] == (rounds, s)
    for g in range(n):
        assert [s for h, s in seen if h == g] == [s for _, s in alone[g]]
    if not same_round:  # one ply per round: a game that ended in round r lasted r + 1 plies
        for rounds, _, games in ended:
            assert all(len(alone[g]) == rounds + 1 for g in games.tolist())


def test_seats_and_waiting_batches_must_match():
    with pytest.raises(ValueError, match="2 seats but 1"):
        lockstep([Seat(lambda b, g: b - 1, 1), Seat(lambda b, g: b - 1, 0)], [(np.ones(1), np.zeros(1, int))])


# -- play(): deterministic agents, one game at a time ----------------------------
@st.composite
def boards(draw):
    rows = draw(st.lists(st.integers(0, 6), min_size=1, max_size=4).filter(lambda r: sum(r) > 0))
    k = draw(st.one_of(st.none(), st.integers(1, 4)))
    return Rules(tuple(rows), k=k, misere=draw(st.booleans()))


def play_alone(a, b, rules, games):
    """(wins_a, wins_a_first, plies) with a Python loop per game."""
    n_first = (games + 1) // 2
    wins = wins_first = plies = 0
    for g in range(games):
        pos = np.array([rules.rows], dtype=np.int64)
        mover = 0 if g < n_first else 1
        while pos.any():
            rows, takes = (a, b)[mover].act(pos, np.random.default_rng(0))
            pos[0, rows[0]] -= takes[0]
            plies += 1
            mover = 1 - mover
        a_won = (1 - mover == 0) != rules.misere  # `1 - mover` emptied the board
        wins += a_won
        wins_first += a_won and g < n_first
    return wins, wins_first, plies


@settings(max_examples=60, deadline=None)
@given(rules=boards(), names=st.tuples(st.sampled_from(DETERMINISTIC), st.sampled_from(DETERMINISTIC)),
       games=st.integers(0, 9), on_positions=st.booleans())
def test_play_agrees_with_games_played_one_at_a_time(rules, names, games, on_positions):
    a, b = agent(names[0], rules), agent(names[1], rules)
    with mock.patch.object(engine_module.StateSpace, "of", return_value=None) if on_positions else nullcontext():
        result = play(a, b, rules, games, seed=1)
    assert (result.wins_a, result.wins_a_first, result.plies) == play_alone(a, b, rules, games)


# -- play_population(): each game draws from its own stream ---------------------
def population_alone(players, opponent, rules, games, seeds):
    """Per player (wins, wins when it opened, plies), every game on its own with its own stream."""
    space = StateSpace(rules.rows)
    streams = GameStreams.for_seeds(seeds, games)
    sides = [Side(p, space) for p in players]
    against = Side(opponent, space)
    n_first = (games + 1) // 2
    out = []
    for p, side in enumerate(sides):
        wins = wins_first = plies = 0
        for i in range(games):
            gid = np.array([p * games + i])
            code, mover = np.array([space.start]), 0 if i < n_first else 1
            while code[0]:
                code = code - (side, against)[mover].step_codes(code, streams.for_games(gid))
                plies += 1
                mover = 1 - mover
            won = (1 - mover == 0) != rules.misere
            wins += won
            wins_first += won and i < n_first
        out.append((wins, wins_first, plies))
    return out


@settings(max_examples=30, deadline=None)
@given(rules=boards(), seed=st.integers(0, 2**31), games=st.integers(0, 12), n=st.integers(1, 4),
       opponent=st.sampled_from(["random", "sloppy:0.4", "expert"]), stacked=st.booleans())
def test_play_population_agrees_with_games_played_one_at_a_time(rules, seed, games, n, opponent, stacked):
    rng = np.random.default_rng(seed)
    columns = ("expert", "random", "longest")
    rows = feature_size("nimsum", rules)
    players = [MixtureAgent(f"t{i}", rules, rng.dirichlet(np.ones(3), size=rows), columns, feature="nimsum")
               for i in range(n)]
    seeds = [seed + i for i in range(n)]
    act = stack_mixtures(players, StateSpace(rules.rows)) if stacked else None
    results = play_population(players, agent(opponent, rules), rules, games, seeds, stacked=act)
    assert [(r.wins_a, r.wins_a_first, r.plies) for r in results] == \
        population_alone(players, agent(opponent, rules), rules, games, seeds)


# -- play_batch(): the transitions of each game, in the order of its decisions ----
def batch_alone(table, rules, rewards, start, opponent, learner_first):
    """One game of a greedy learner, alone: its transitions and whether the learner won.

    As in `play_batch`, a game the opponent opens and ends at once closes the
    learner's "decision" -1 (there was none)."""
    space = table.space
    pos = np.array([start], dtype=np.int64)
    out, pending, learner = [], (-1, 0.0), learner_first or opponent is None
    while True:
        if learner:
            state = space.index(pos)
            if pending[0] >= 0:
                out.append((*pending, int(state[0]), 1.0))
            action = int(table.greedy(state)[0])
            pos[0, space.raw_rows(pos, space.sizes[[action]])[0]] -= space.takes[action]
            reward = float(rewards.ply(pos, rules.misere)[0])
            over = not pos.any()
            if opponent is None:
                out.append((action, reward, int(space.index(pos)[0]), 0.0 if over else -1.0))
            elif over:
                out.append((action, reward, 0, 0.0))
            else:
                pending = (action, reward)
            if over:
                return out, (not rules.misere) if opponent is not None else None
        else:
            rows, takes = opponent(pos, None)
            pos[0, rows[0]] -= takes[0]
            pending = (pending[0], pending[1] - float(rewards.ply(pos, rules.misere)[0]))
            if not pos.any():
                out.append((*pending, 0, 0.0))
                return out, rules.misere
        if opponent is not None:
            learner = not learner


@settings(max_examples=40, deadline=None)
@given(rules=boards(), seed=st.integers(0, 2**31), n=st.integers(1, 30),
       names=st.lists(st.sampled_from(DETERMINISTIC), min_size=0, max_size=3))
def test_play_batch_agrees_with_games_played_one_at_a_time(rules, seed, n, names):
    rng = np.random.default_rng(seed)
    space = CanonicalSpace(rules)
    table = QTable(space)
    table.q[:] = rng.normal(size=len(table.q))  # a fixed greedy policy: nothing is learned
    starts = space.raw_positions(rng.integers(1, space.n_states, n))
    opponents = [agent(name, rules) for name in names]
    opponent_of_game = rng.integers(-1, len(opponents), n)
    learner_first = rng.random(n) < 0.5
    got: dict[int, list] = {g: [] for g in range(n)}

    def observe(t):
        assert len(set(t.game.tolist())) == len(t.game), "a delivered batch holds a game at most once"
        for row in zip(t.game.tolist(), t.action.tolist(), t.reward.tolist(), t.next_state.tolist(), t.sign.tolist()):
            got[row[0]].append(row[1:])

    outcome = play_batch(table, rules, Rewards.shaped(), starts, np.zeros(n, bool), opponents, opponent_of_game,
                         learner_first, 0.0, rng, observe)
    wins = losses = 0
    for g in range(n):
        o = int(opponent_of_game[g])
        want, won = batch_alone(table, rules, Rewards.shaped(), starts[g], opponents[o] if o >= 0 else None,
                                bool(learner_first[g]))
        assert got[g] == want
        wins += won is True
        losses += won is False
    assert (outcome.wins, outcome.losses) == (wins, losses)
