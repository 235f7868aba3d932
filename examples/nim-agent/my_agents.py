"""A Nim agent of your own, used as an opponent in a spec and in `evo match`.

An agent subclasses `fitness.nim.Agent` and implements `act(positions, rng)`:
`positions` is an int array (games, rows) of boards still in play, and it
returns two int arrays, the row and the number of objects taken in each game
(batched: one call plays a move in thousands of games). A `deterministic`
agent ignores `rng`; evo then tabulates it once per board, which also lets
it be an `"exact"` opponent (win probabilities computed, not sampled).
"""

from __future__ import annotations

import numpy as np

from fitness.nim import Agent


class OneFromLargest(Agent):
    """Takes a single object from the largest row: never loses quickly, never wins on purpose."""

    deterministic = True

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        rows = positions.argmax(axis=1)
        return rows, np.ones(len(rows), dtype=np.int64)


def patient(rules) -> Agent:
    """A factory works too: `my_agents:patient` builds the agent for the spec's board."""
    return OneFromLargest("patient", rules)
