"""`evo report`: plots, a markdown summary and a self-contained HTML page of a run, from its logs
alone; `write_comparison` overlays several runs. The parts live in `pipeline.reporting`."""

from __future__ import annotations

from .reporting import best_expression, report_figures, write_comparison, write_report

__all__ = ["write_report", "write_comparison", "best_expression", "report_figures"]
