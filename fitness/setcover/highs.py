"""The exact optimum of a set-cover instance by HiGHS, an open-source MIP solver (optional: `pip install highspy`).

Used as the oracle of tests and the reference of benchmarks; the GA never
calls it.  ``highspy`` is imported only when a solve is asked for, so the
package works without it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .instance import Instance

__all__ = ["ExactCover", "solve_exactly"]


@dataclass(frozen=True)
class ExactCover:
    """HiGHS's answer: its best cover and cost (None: no cover found in time), the lower bound, and whether
    the cost is proven optimal."""

    cover: np.ndarray
    cost: int | None
    bound: float
    proven: bool
    status: str


def solve_exactly(instance: Instance, *, time_limit: float | None = None, threads: int = 1) -> ExactCover:
    """min c x subject to every coverable element covered, x binary, on ``threads`` threads within ``time_limit`` s."""
    import highspy

    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", threads)
    if time_limit is not None:
        highs.setOptionValue("time_limit", float(time_limit))
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = instance.n_lists, instance.N
    model.col_cost_ = instance.list_costs.astype(np.float64)
    model.col_lower_, model.col_upper_ = np.zeros(instance.n_lists), np.ones(instance.n_lists)
    model.row_lower_ = np.where(instance.coverable, 1.0, 0.0)  # an element no list holds asks nothing
    model.row_upper_ = np.full(instance.N, highspy.kHighsInf)
    _, elements = instance.entries  # ordered by list: column-wise storage as it stands
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = instance.entry_offsets.astype(np.int32)
    model.a_matrix_.index_ = elements.astype(np.int32)
    model.a_matrix_.value_ = np.ones(len(elements))
    model.integrality_ = [highspy.HighsVarType.kInteger] * instance.n_lists
    highs.passModel(model)
    highs.run()
    status = highs.modelStatusToString(highs.getModelStatus())
    solution = highs.getSolution()
    cover = np.asarray(solution.col_value) > 0.5 if solution.value_valid else np.zeros(instance.n_lists, dtype=bool)
    info = highs.getInfo()
    cost = int(instance.list_costs[cover].sum()) if solution.value_valid else None
    return ExactCover(cover, cost, float(info.mip_dual_bound), status == "Optimal", status)
