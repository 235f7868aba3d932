"""CMA-ES (`population.algorithm = "cma-es"`), with IPOP restarts (`[cma_es] restarts`).

Each generation samples `offspring` (lambda) points from N(mean, sigma^2 C)
with the generation's rng, scores them, and moves the distribution towards
the best `size` (mu) of them (`cma_strategy`). The population after a
generation is those mu best. The whole distribution (mean, sigma, C and its
eigenbasis, paths, restart count, recent best values) is the state's
`extra["cma"]`, lists of floats that every checkpoint holds exactly, so a
resumed run goes on bit for bit, and it is computed in the driver only, so
the log is the same on any number of workers.

Genomes and the continuous space: a float-vector kind (`record_type` is
`list<double>`) is its own space, and its `init` gives the starting mean. A
`table` (rows of probabilities) is the point of R^(rows x columns) read row
by row: a sampled point plays the table its `repair` makes of it (negative
entries count as 0, each row rescaled to sum to 1, a row with nothing
positive uniform), and the starting mean is an `init` table, which is its
own repair. So pure rows, such as the expert column everywhere, are reached
exactly, not only in the limit.

Convergence (pycma's defaults): the best values of the last 10 + 30 n /
lambda generations and this one's all within 1e-11 (tolfun), sigma times
the widest axis below 1e-11 (tolx), C's condition above 1e14, the mean
unchanged by a tenth of a standard deviation along an axis (noeffectaxis)
or by a fifth along a coordinate (noeffectcoord), or all of a generation's
values equal (flat fitness). With restarts left, the next generation starts
afresh from a new `init` genome with lambda and mu doubled (IPOP); with
none left, the distribution stays where it converged and the spec's stop
rules end the run.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa

from operators import selection
from operators import table as table_genomes

from ..spec_cma import CmaEs as CmaEsSettings
from .algorithms import Context, register
from .cma_strategy import Distribution, Parameters
from .members import Member, viable
from .state import State

__all__ = ["CmaEs"]

TOLERANCE = 1e-11  # pycma's tolfun and tolx
MAX_CONDITION = 1e14  # pycma's tolconditioncov
FLOAT_VECTOR = pa.list_(pa.float64())


@register("cma-es")
class CmaEs:
    """CMA-ES over a float-vector or table genome kind; settings in the spec's `[cma_es]`."""

    def __init__(self, context: Context) -> None:
        spec, kind = context.spec, context.kind
        if kind.name != "table" and kind.record_type != FLOAT_VECTOR:
            raise ValueError(f"population.algorithm: cma-es needs genomes that are float vectors (a kind whose "
                             f"record_type is list<double>) or the 'table' kind; genome.kind {kind.name!r} is neither")
        ops, default = spec.operators, type(spec.operators)()
        if (ops.crossover, ops.mutation, ops.crossover_rate, ops.mutation_rate) != \
                (default.crossover, default.mutation, default.crossover_rate, default.mutation_rate):
            raise ValueError("operators: cma-es samples its own children (no crossover or mutation); remove "
                             "operators.crossover, mutation, crossover_rate and mutation_rate")
        if context.reevaluate:
            raise ValueError("population.algorithm 'cma-es' scores each sample once: set "
                             "sampling.reevaluate = false (or use exact opponents)")
        self.context = context
        self.settings = spec.cma_es or CmaEsSettings()
        # a table's shape, from a table drawn with a generator of its own (no draw of the run's)
        self.table_shape = kind.init(1, np.random.default_rng(0))[0].shape if kind.name == "table" else None
        self._points: dict[int, np.ndarray] = {}  # id -> its point, from ask to tell
        self._asked: Distribution | None = None  # the distribution `ask` sampled from

    def sizes(self, restarts: int) -> tuple[int, int]:
        """(lambda, mu) after `restarts` IPOP restarts."""
        population = self.context.spec.population
        return population.offspring << restarts, population.size << restarts

    def ask(self, state: State, rng: np.random.Generator) -> list[Member]:
        saved = state.extra.get("cma", {})
        restarts = int(saved.get("restarts", 0))
        if saved.get("distribution") is None:  # the first generation, or the one after a restart
            start = self.context.kind.init(1, rng)[0]
            self._asked = Distribution.start(self._point(start), self.settings.sigma)
        else:
            self._asked = Distribution.from_json(saved["distribution"])
        generation, (count, _) = state.generation + 1, self.sizes(restarts)
        origin = "init" if state.generation < 0 else "restart" if saved.get("distribution") is None else "sample"
        points = self._asked.sample(count, rng)
        members = [Member(state.next_id + i, generation, self._genome(x), [], origin, {})
                   for i, x in enumerate(points)]
        self._points = {m.id: x for m, x in zip(members, points)}
        return members

    def tell(self, state: State, scored: list[Member]) -> State:
        saved = state.extra.get("cma", {})
        restarts, fresh = int(saved.get("restarts", 0)), saved.get("distribution") is None
        frozen = not fresh and saved.get("converged") is not None  # converged with no restarts left
        distribution, history = self._asked, [] if fresh else list(saved["best"])
        ranked = selection.best_first(scored)  # failed evaluations last
        count, parents = self.sizes(restarts)
        values = [m.fitness.wvalues[0] for m in viable(ranked)]
        if not frozen:
            params = Parameters.of(len(distribution.mean), count, parents)
            distribution.update(params, np.stack([self._points[m.id] for m in ranked]))
        history = (history + values[:1])[-self._window(len(distribution.mean), count):]
        converged = saved["converged"] if frozen else \
            self._converged(distribution, values, history, count, state.generation + 1)
        record: dict[str, Any] = {"restarts": restarts, "distribution": distribution.to_json(), "best": history,
                                  "converged": converged}
        if converged is not None and not frozen and restarts < self.settings.restarts:
            record = {"restarts": restarts + 1, "distribution": None, "best": [], "converged": None,
                      "restarted_after": converged}
        self._points, self._asked = {}, None
        population = (viable(ranked) or ranked)[:parents]
        return replace(state, generation=state.generation + 1, populations=[population],
                       next_id=state.next_id + len(scored), extra={**state.extra, "cma": record})

    @staticmethod
    def _window(dim: int, count: int) -> int:
        return 10 + math.ceil(30 * dim / count)

    def _converged(self, d: Distribution, values: list[float], history: list[float], count: int,
                   generation: int) -> str | None:
        """The name of the first convergence criterion `d` meets (None: it goes on)."""
        if len(values) > 1 and values[0] == values[-1]:
            return "flat fitness"
        window = self._window(len(d.mean), count)
        if len(history) >= window and max(history + values) - min(history + values) < TOLERANCE:
            return "tolfun"
        if d.sigma * max(float(np.max(np.abs(d.pc))), float(np.sqrt(np.max(np.diag(d.C))))) < TOLERANCE:
            return "tolx"
        if d.condition() > MAX_CONDITION:
            return "conditioncov"
        axis = generation % len(d.mean)
        if np.all(d.mean == d.mean + 0.1 * d.sigma * d.D[axis] * d.B[:, axis]):
            return "noeffectaxis"
        if np.any(d.mean == d.mean + 0.2 * d.sigma * np.sqrt(np.diag(d.C))):
            return "noeffectcoord"
        return None

    def _point(self, genome: Any) -> np.ndarray:
        """A genome's point of the continuous space."""
        return np.asarray(genome, dtype=np.float64).ravel().copy()

    def _genome(self, point: np.ndarray) -> Any:
        """The genome a point of the continuous space plays."""
        if self.table_shape is not None:
            return table_genomes.repair(point.reshape(self.table_shape))
        return point.copy()
