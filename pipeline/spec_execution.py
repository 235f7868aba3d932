"""The spec's `[execution]` section: where and how a run evaluates, never what it computes.
Kept apart from spec.py."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["DEFAULT_IN_FLIGHT", "ENGINES", "Engine", "Execution"]

Engine = Literal["auto", "ray", "processes", "in-process"]  # `engines.chosen_engine` says what each means
ENGINES: tuple[str, ...] = get_args(Engine)


# `[execution] in_flight`'s default: the bound steady-state always had (old specs mean the same)
DEFAULT_IN_FLIGHT = 2


class Execution(BaseModel):
    """Where and how a run evaluates; never changes what it computes."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as every spec section

    workers: int | str = Field(2, description='Ray actors; 0: in-process; "auto": one per CPU')
    address: str | None = Field(None, description="an existing Ray cluster: host:port, 'auto' or ray://host:10001")
    connect_timeout: float = Field(30.0, gt=0, le=3600, description="seconds to join a cluster before giving up")
    chunk_size: int | None = Field(None, ge=1, description="genomes per call to an actor (default: each worker "
                                   "one chunk per batch)")
    output: str | None = Field(None, description="the run directory (default runs/<name>)")
    code_dir: str | None = Field(None, description="folder the spec's own modules are imported from "
                                 "(default: the spec's folder)")
    wait_for_workers: bool = Field(False, description="generation 0 waits until every actor is ready "
                                   "(default: work starts on the first ready actor, the rest join as they come)")
    steal: bool = Field(False, description="accepted for old specs, no longer used: islands on Ray send "
                        "their chunks to actors of their own")
    in_flight: int = Field(DEFAULT_IN_FLIGHT, ge=1, le=1000, description="asynchronous algorithms on Ray: children in flight "
                           "at most, in generations (`offspring` arrivals, of all islands); more lets larger "
                           "batches through where evaluations are short and workers many, for staler parents")
    engine: Engine = Field(
        "auto", description="what evaluates: auto (a cluster, generational islands or a Ray already running: Ray; "
        "else on this machine a process pool), ray, processes (this machine's), in-process (as workers = 0)")
    handover: bool = Field(True, description="engine ray on one machine: evaluate in-process until the "
                           "embedded Ray pays for its start; false: start the actors at once")
    on_error: Literal["skip", "fail"] = Field("skip", description="a failed evaluation (raised, NaN, infinite "
                                              "in the improving direction, timed out): skip makes the individual "
                                              "not viable and goes on; fail ends the run")
    eval_timeout: float | None = Field(None, gt=0, le=86_400, description="seconds a genome's evaluation may "
                                       "take; a hung one fails (on Ray its actor is replaced)")

    @field_validator("workers", mode="before")
    @classmethod
    def _workers_count_or_auto(cls, value: Any) -> int | str:
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1024):
            return value
        if isinstance(value, str) and value.isdigit() and int(value) <= 1024:
            return int(value)  # from the command line
        raise ValueError('must be "auto" or an integer from 0 to 1024')
