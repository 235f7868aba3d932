"""The spec's small sections ([stop], [sampling], [setcover], [objectives]) and the strict
base every section shares, kept apart from spec.py as [islands], [nim] and [log] are."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["Objectives", "Sampling", "SetCover", "Stop"]


class _Strict(BaseModel):
    # strict: no coercion ("10" is not 10, 1 is not true); a float field still takes an int
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Stop(_Strict):
    """When a run stops before `generations` (whichever rule fires first)."""

    target: float | None = Field(None, description="stop once the best fitness reaches this")
    stagnation: int | None = Field(None, ge=1, description="stop after this many generations without improvement")


class Sampling(_Strict):
    """How sampled fitness is kept honest (opponents given a number of games)."""

    common_random_numbers: bool = Field(True, description="a generation's individuals all meet the same games")
    reevaluate: bool = Field(True, description="survivors play again each generation; their counts accumulate")
    hall_of_fame_games: int = Field(20_000, ge=1, le=10_000_000,
                                    description="fresh games per sampled opponent behind best.json's figures")


class SetCover(_Strict):
    """The set-cover instance: the course generator (N, instance_seed) or a file (instance)."""

    N: int | None = Field(None, ge=1, description="size of the course generator's instance problem(N, seed)")
    instance_seed: int = Field(42, description="the course generator's seed")
    instance: str | None = Field(None, description=(
        "an OR-Library set-covering file, JSON (lists, optionally costs) or a boolean .npy; a relative "
        "path is read from the spec's folder"))

    @model_validator(mode="after")
    def _one_source(self) -> "SetCover":
        if (self.N is None) == (self.instance is None):
            raise ValueError("give either N (course generator) or instance (a file)")
        return self


class Objectives(_Strict):
    """How the task's objectives make a fitness."""

    mode: Literal["weighted", "lexicographic", "pareto"] = Field("weighted", description=(
        "weighted: the weighted sum; lexicographic: compared in the weights' key order; pareto: "
        "non-dominated sorting (with population.algorithm = nsga2 or nsga3)"))
    weights: dict[str, float] = Field(default_factory=dict, description=(
        "objective name -> weight (weighted; default the mean of all objectives); lexicographic and "
        "pareto: the keys pick and order the objectives"))
