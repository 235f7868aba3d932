"""Named primitive sets: which primitives, terminals and constants a GP search may use.

The evaluator understands every name of `language.py`; a primitive set only
says what the search may *build*. A spec picks one by name
(`[genome] primitives`), and a name never changes meaning: `v1` is the set
every GP run used before sets had names.
"""

from __future__ import annotations

from dataclasses import dataclass

from .language import PRIMITIVES

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Language"]


@dataclass(frozen=True)
class Language:
    """A primitive set: primitives and named terminals (in the order DEAP is given them),
    fixed integer constants, and an optional range of ephemeral random constants."""

    name: str
    primitives: tuple[str, ...]
    terminals: tuple[str, ...]
    constants: tuple[int, ...] = ()
    ephemeral: tuple[int, int] | None = None  # inclusive bounds of a fresh constant's value

    def describe(self) -> str:
        parts = [" ".join(self.primitives), "terminals " + " ".join(self.terminals)]
        if self.constants:
            parts.append("constants " + " ".join(map(str, self.constants)))
        if self.ephemeral:
            parts.append(f"random constants {self.ephemeral[0]}..{self.ephemeral[1]}")
        return "; ".join(parts)


_V1 = tuple(name for name in PRIMITIVES if name != "let")
_ALL = tuple(PRIMITIVES)
LANGUAGES: dict[str, Language] = {
    "v1": Language("v1", _V1, ("rows", "take", "before", "n", "k"), (0, 1, 2, 3)),
    # experiments (kept only if measured useful)
    "k1": Language("k1", _V1, ("rows", "take", "before", "n", "k", "k1"), (0, 1, 2, 3)),
    "erc": Language("erc", _V1, ("rows", "take", "before", "n", "k"), (), (0, 15)),
    "erc7": Language("erc7", _V1, ("rows", "take", "before", "n", "k"), (), (0, 7)),
    "k1-no-n": Language("k1-no-n", _V1, ("rows", "take", "before", "k", "k1"), (0, 1, 2, 3)),
    "k1-let": Language("k1-let", _ALL, ("rows", "take", "before", "n", "k", "k1"), (0, 1, 2, 3)),
    "v2": Language("v2", _ALL, ("rows", "take", "before", "k", "k1"), (0, 1, 2, 3)),
}
DEFAULT_LANGUAGE = "v1"
