"""The spec's `[log]` section: experiment trackers that hear each generation's row
(pipeline/trackers), and which individuals the run directory keeps (`individuals`).
Kept apart from spec.py; neither changes a run's trajectory, so the section is
left out of the spec's fingerprint."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["Log", "thinning"]

_EVERY = re.compile(r"^every ([1-9][0-9]*)$")


def thinning(individuals: str) -> int | None:
    """`[log] individuals` as the generations whose every row is kept: every N-th (1 for "all"),
    None for "survivors" (no generation in full)."""
    if individuals == "all":
        return 1
    match = _EVERY.match(individuals)
    return int(match.group(1)) if match else None


class Log(BaseModel):
    """Where each generation's statistics (its row of the generations log) are sent besides the
    run directory, as metrics with step = generation."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as every spec section

    mlflow: bool = Field(False, description=(
        "send each generation's row to MLflow (pip install 'evo-pipeline[tracking]'): to "
        "MLFLOW_TRACKING_URI if set, else to a file store in the run directory (mlruns/); a resume "
        "continues the same MLflow run"))
    tensorboard: bool = Field(False, description=(
        "write each generation's row as TensorBoard scalars to the run directory's tensorboard/ "
        "(pip install 'evo-pipeline[tracking]')"))
    experiment: str | None = Field(None, min_length=1, description=(
        "the MLflow experiment the run is logged under (default: the spec's name)"))
    individuals: str = Field("all", description=(
        'which rows individuals/ keeps: "all" (every evaluation); "every N" (every evaluation of '
        "generations 0, N, 2N, ... and, of the others, the rows resume needs: the members alive after "
        'the generation and the hall of fame); "survivors" (only those rows, every generation). '
        "generations/, population/ and best.json are whole either way, and resume is exact"))

    @field_validator("individuals")
    @classmethod
    def _all_every_or_survivors(cls, value: Any) -> str:
        if value in ("all", "survivors") or _EVERY.match(value):
            return value
        raise ValueError('must be "all", "survivors" or "every N" (N a whole number from 1)')
