"""The spec's `[cma_es]` section: CMA-ES's settings (`population.algorithm = "cma-es"`).

Kept apart from spec.py, as [islands], [nim] and [log] are. The section is
absent from a spec that does not use it, and then left out of the
fingerprint, so older specs keep their run ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from .spec import RunSpec

__all__ = ["CmaEs", "check_cma_es"]


class CmaEs(BaseModel):
    """CMA-ES: population.offspring is lambda (samples a generation), population.size is mu
    (the best samples that move the mean)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as every spec section

    sigma: float = Field(0.3, gt=0.0, le=1e100, description=(
        "the initial step size, in the genome's own units (a table's: probabilities); about a quarter "
        "of the range where the optimum may lie"))
    restarts: int = Field(0, ge=0, le=20, description=(
        "IPOP restarts: when the distribution has converged (or fitness is flat), start afresh from a new "
        "init genome with twice the population (lambda and mu), at most this many times; 0: no restarts"))


def check_cma_es(spec: RunSpec) -> None:
    """What the section cannot check alone (ValueError: RunSpec's validator makes it one line)."""
    population = spec.population
    if population.algorithm != "cma-es":
        if spec.cma_es is not None:
            raise ValueError(f"cma_es: the section applies to population.algorithm = 'cma-es', "
                             f"not {population.algorithm!r}")
        return
    if population.size > population.offspring:
        raise ValueError(f"population.size: cma-es updates its mean from the best size (mu) of the offspring "
                         f"(lambda) samples, so size <= offspring (got {population.size} > {population.offspring})")
