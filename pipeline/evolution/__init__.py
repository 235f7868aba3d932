"""The evolution core, by role: an algorithm asks for individuals and is told their
scores, a scorer evaluates them, a tracker keeps the books, a loop drives it all.
See `loop.py` for how the parts meet, and `algorithms.py` to add an algorithm."""

from . import cma_es, generational, map_elites, nsga3, steady_state  # noqa: F401  (the built-in algorithms register themselves)
from .algorithms import Algorithm, Context, make_algorithm, register
from .async_loop import AsyncLoop
from .loop import Hook, Loop
from .members import Member, Objectives
from .noise import NoiseControl
from .scoring import Scorer
from .state import State, variation_rng
from .tracking import Tracker

__all__ = ["Algorithm", "AsyncLoop", "Context", "Hook", "Loop", "Member", "NoiseControl", "Objectives", "Scorer", "State",
           "Tracker", "make_algorithm", "register", "variation_rng"]
