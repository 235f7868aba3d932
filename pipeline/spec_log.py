"""The spec's `[log]` section: experiment trackers that hear each generation's row
(pipeline/trackers). Kept apart from spec.py; tracking never changes a run's
trajectory, so the section is left out of the spec's fingerprint."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Log"]


class Log(BaseModel):
    """Where each generation's statistics (its generations.parquet row) are sent besides the
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
