"""The run loop: ask → evaluate → tell → record, until a stop rule says enough.

Each part is replaceable on its own: the algorithm (what to score next and
what survives), the scorer (where scoring runs), the tracker (bookkeeping and
stop rules), the recorder (what is written), and hooks that hear each
generation's row (the progress bar, a user's callback; True stops the run).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Protocol

from .algorithms import Algorithm
from .members import Member
from .scoring import Scorer
from .state import State, variation_rng
from .tracking import Tracker

__all__ = ["Hook", "Loop", "Recording"]

Hook = Callable[[dict[str, Any]], "bool | None"]


class Recording(Protocol):
    def record(self, state: State, scored: list[Member], failures: int, started: float) -> State:
        """Commit the generation; the returned state carries its row (`state.rows[-1]`)."""


class Loop:
    def __init__(self, algorithm: Algorithm, scorer: Scorer, tracker: Tracker, recorder: Recording, seed: int,
                 hooks: list[Hook] | None = None) -> None:
        self.algorithm = algorithm
        self.scorer = scorer
        self.tracker = tracker
        self.recorder = recorder
        self.seed = seed
        self.hooks = list(hooks or [])

    def run(self, state: State) -> tuple[State, str]:
        """Generations until a stop rule fires; the final state and the rule's name."""
        reason = self.tracker.stop_reason(state)
        while reason is None:
            state = self.step(state)
            reason = self.tracker.stop_reason(state)
        return state, reason

    def step(self, state: State) -> State:
        started = time.perf_counter()
        generation = state.generation + 1
        batch = self.algorithm.ask(state, variation_rng(self.seed, generation))
        failures = self.scorer.score(generation, batch)
        state = self.tracker.update(self.algorithm.tell(state, batch), batch)
        state = self.recorder.record(state, batch, failures, started)
        self.announce(state)
        return state

    def announce(self, state: State) -> None:
        announce(self.hooks, self.tracker, state)


def announce(hooks: list[Hook], tracker: Tracker, state: State) -> None:
    """Hooks hear the generation's row; any that answers True stops the run after it."""
    for hook in hooks:
        if hook(dict(state.rows[-1])) is True:
            tracker.stop_requested = True
