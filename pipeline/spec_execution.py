"""The spec's `[execution]` section: where and how a run evaluates, never what it computes.
Kept apart from spec.py."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["DEFAULT_IN_FLIGHT", "ENGINES", "Engine", "Execution", "FIXED_IN_FLIGHT", "recorded_in_flight"]

Engine = Literal["auto", "ray", "processes", "in-process"]  # `engines.chosen_engine` says what each means
ENGINES: tuple[str, ...] = get_args(Engine)


# `[execution] in_flight`'s default: chosen from the measured evaluation time and the workers
# (`evolution.async_loop.auto_in_flight`), never fewer than FIXED_IN_FLIGHT
DEFAULT_IN_FLIGHT = "auto"
# the bound before "auto": what a run.json recorded without the key resumes with (`recorded_in_flight`)
FIXED_IN_FLIGHT = 2


def recorded_in_flight(spec: dict[str, Any]) -> dict[str, Any]:
    """A resolved spec (run.json) of a run made before `in_flight` existed keeps the bound it ran
    with, FIXED_IN_FLIGHT, not today's default: a resumed run goes on as it began."""
    execution = spec.get("execution")
    if not isinstance(execution, dict) or "in_flight" in execution:
        return spec
    return {**spec, "execution": {**execution, "in_flight": FIXED_IN_FLIGHT}}


class Execution(BaseModel):
    """Where and how a run evaluates; never changes what it computes."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as every spec section

    workers: int | str = Field(2, description='evaluation workers (processes or Ray actors, as '
                                  'engine says); 0: in-process; "auto": one per CPU')
    address: str | None = Field(None, description="an existing Ray cluster: host:port, 'auto' or ray://host:10001")
    connect_timeout: float = Field(30.0, gt=0, le=3600, description="seconds to join a cluster before giving up")
    chunk_size: int | None = Field(None, ge=1, description="genomes per call to an actor (default: each worker "
                                   "one chunk per batch)")
    output: str | None = Field(None, description="the run directory (default runs/<name> under the current folder)")
    code_dir: str | None = Field(None, description="folder the spec's own modules are imported from "
                                 "(default: the spec's folder)")
    wait_for_workers: bool = Field(False, description="generation 0 waits until every actor is ready "
                                   "(default: work starts on the first ready actor, the rest join as they come)")
    steal: bool = Field(False, description="accepted for old specs, no longer used: islands on Ray send "
                        "their chunks to actors of their own")
    in_flight: Annotated[int, Field(ge=1, le=1000)] | Literal["auto"] = Field(
        DEFAULT_IN_FLIGHT, description="asynchronous algorithms on Ray or processes: children in flight at most, in "
        "generations (`offspring` arrivals, of all islands); more lets larger batches through where evaluations "
        "are short and workers many, for staler parents; auto: from the measured evaluation time and the "
        "workers, 2 to 16 (2 where evaluations are long)")
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

    @field_validator("in_flight", mode="before")
    @classmethod
    def _in_flight_count_or_auto(cls, value: Any) -> int | str:
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1000):
            return value
        if isinstance(value, str) and value.isdigit() and 1 <= int(value) <= 1000:
            return int(value)  # from the command line
        raise ValueError('must be "auto" or an integer from 1 to 1000')
