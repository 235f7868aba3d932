"""Named primitive sets: which primitives, terminals and constants a GP search may use.

The evaluator understands every name of `language.py`; a primitive set only
says what the search may *build*. A spec picks one by name
(`[genome] primitives`), and a name never changes meaning: `v1` is the set
every GP run used before sets had names.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Language"]


@dataclass(frozen=True)
class Language:
    """A primitive set: primitives and named terminals (in the order DEAP is given them)
    and integer constants."""

    name: str
    primitives: tuple[str, ...]
    terminals: tuple[str, ...]
    constants: tuple[int, ...] = ()


# Spelled out, in order (the order fixes DEAP's random draws): a new primitive in
# language.py changes no existing set.
_V1 = ("add", "sub", "mul", "mod", "xor", "and_", "or_", "lt", "gt", "eq", "if_",
       "vmod", "vand", "veq", "vgt", "xor_all", "sum_all", "max_all", "count")
LANGUAGES: dict[str, Language] = {
    "v1": Language("v1", _V1, ("rows", "take", "before", "n", "k"), (0, 1, 2, 3)),
    # issue 20: `let` (rows bound to a vector expression), `k1` (k + 1), and no `n`: the
    # number of rows let an expression fit its training board and fail on others
    "v2": Language("v2", (*_V1, "let"), ("rows", "take", "before", "k", "k1"), (0, 1, 2, 3)),
}
DEFAULT_LANGUAGE = "v1"
