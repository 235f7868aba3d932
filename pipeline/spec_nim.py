"""The spec's `[nim]` section, kept apart from spec.py: the board, k, the rule, the
opponents, and the extra boards an expression is trained on."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["Nim", "nim_fingerprint_content"]


class Nim(BaseModel):
    """The Nim game a genome plays, and the opponents that score it."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as every spec section

    rows: list[int] | None = Field(None, description="the board: objects in each row (or give standard)")
    standard: int | None = Field(None, ge=1, le=64,
                                 description="the board 1, 3, 5, ... with this many rows (default 5)")
    k: int | None = Field(None, ge=1, description="at most this many objects removed per move (default: any number)")
    misere: bool = Field(False, description="misère play: who takes the last object loses")
    boards: list[list[int]] | None = Field(None, description=(
        "expression genomes: extra boards (same k and rule) every genome is also scored on, exactly"))
    canonical_boards: list[list[int]] | None = Field(None, description=(
        "expression genomes: extra boards scored on their distinct sorted positions only (one of each "
        "multiset of row sizes: large boards at a fraction of the cost)"))
    canonical_positions: int | None = Field(None, ge=1, le=10_000_000, description=(
        "with canonical_boards: at most this many winning positions of each (a fixed sample; default all)"))
    canonical_confirm: bool | None = Field(None, description=(
        "with canonical_positions: an expression perfect on every training board, samples included, is "
        "scored on all the winning canonical positions of the sampled boards instead (a sample can be overfit)"))
    opponents: dict[str, int | Literal["exact"]] = Field(
        default_factory=lambda: {"expert": 100, "random": 100, "minimax": 100}, description=(
            "agent name -> games per match, or \"exact\" (win probability computed, not sampled)"))

    @field_validator("opponents")
    @classmethod
    def _games_positive(cls, value: dict[str, int | str]) -> dict[str, int | str]:
        if not value:
            raise ValueError("at least one opponent is needed")
        for name, games in value.items():
            if games != "exact" and games < 1:
                raise ValueError(f"games against {name!r} must be >= 1 or \"exact\" (got {games})")
        return value

    @model_validator(mode="after")
    def _positions_need_boards(self) -> "Nim":
        if self.canonical_positions is not None and self.canonical_boards is None:
            raise ValueError("canonical_positions: applies only with canonical_boards")
        if self.canonical_confirm is not None and self.canonical_positions is None:
            raise ValueError("canonical_confirm: applies only with canonical_positions (a sample to confirm)")
        return self

    def training_boards(self) -> dict[str, Any]:
        """The task spec's extra training boards (none given: no key, as before they existed)."""
        task: dict[str, Any] = {}
        if self.boards is not None:
            task["boards"] = [list(b) for b in self.boards]
        if self.canonical_boards is not None:
            task["canonical_boards"] = [list(b) for b in self.canonical_boards]
            task["canonical_positions"] = self.canonical_positions
            if self.canonical_confirm is not None:
                task["canonical_confirm"] = self.canonical_confirm
        return task

    def sampled(self) -> bool:
        return any(games != "exact" for games in self.opponents.values())

    def board(self) -> tuple[int, ...]:
        if self.rows is not None:
            return tuple(self.rows)
        return tuple(2 * i + 1 for i in range(self.standard or 5))


def nim_fingerprint_content(content: dict[str, Any]) -> None:
    """Drop the keys added after runs were made while unused (those runs keep their ids)."""
    for key in ("boards", "canonical_boards", "canonical_positions", "canonical_confirm"):
        if content[key] is None:
            del content[key]
