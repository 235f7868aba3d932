"""How an island's populations travel between runners and the driver: as what changed
since the one before, the new members packed (`evolution/packed_members.py`). Most of a
population stays from one generation to the next (after the first few, 95% of a sleepy
island's): the driver holds those already, so only the others travel (`Changes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..evolution.members import Member
from ..evolution.packed_members import pack_members, unpack_members

__all__ = ["Changes"]


@dataclass
class Changes:
    """An island's population as it travels after its first: `held` says, place by place, the
    id of a member of the population before it (which the receiver holds: `against`), or None
    for the next of the `fresh` members (packed)."""

    held: list[int | None]
    fresh: list

    @classmethod
    def of(cls, population: Sequence[Member], before: Sequence[Member]) -> Changes:
        """`population` for a receiver holding `before`: a member of it (the same object) goes as
        its id. A member changed in place would not: no island changes a member it has scored."""
        kept = {id(m) for m in before}
        return cls([m.id if id(m) in kept else None for m in population],
                   pack_members([m for m in population if id(m) not in kept]))

    def against(self, before: Sequence[Member], fitness_class: type) -> list[Member]:
        """The population, from the receiver's own `before` (the same members, by id)."""
        by_id = {m.id: m for m in before}
        fresh = iter(unpack_members(self.fresh, fitness_class))
        return [next(fresh) if held is None else by_id[held] for held in self.held]
