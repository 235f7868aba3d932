"""`evo report`: a run's figures, summary.md and one self-contained report.html, from its logs alone.

The parts live in `pipeline.reporting` (figures, summary, html, compare);
this module puts one run's report together.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fitness.atomic import atomic_write_text

from .kinds import diversity_definition
from .reporting import figures
from .reporting.compare import write_comparison
from .reporting.html import figure_html, page, summary_html
from .reporting.summary import best_expression, summarise, to_markdown
from .rundir import RunDir

__all__ = ["best_expression", "write_comparison", "write_report"]


def _title(meta: dict) -> str:
    return f"{meta['run_id']} ({meta['spec'].get('name', 'run')}, seed {meta['seed']})"


def _best_per_generation(run_dir: Path) -> pd.DataFrame:
    """Rank 0 of every generation's population, with its genome."""
    from .api import open_run

    members = open_run(run_dir).populations()
    return members[members["rank"] == 0].sort_values("generation")


def write_report(run_dir: str | Path) -> list[Path]:
    """Write report/*.png, report/summary.md and report/report.html; returns the files written."""
    rundir = RunDir(run_dir)
    meta = rundir.read_run()
    generations = pd.DataFrame(rundir.read_generations())
    if generations.empty:
        raise ValueError(f"{rundir.path}: no complete generation to report on yet")
    best = rundir.read_best()
    out = rundir.report_dir
    out.mkdir(exist_ok=True)
    title = _title(meta)
    definition = diversity_definition(best["kind"])
    plots = [figures.save(figures.objectives_figure(generations, title), out / "objectives.png"),
             figures.save(figures.diversity_figure(generations, title, definition), out / "diversity.png")]
    if best["kind"] == "table":
        genome = np.asarray(best["hall_of_fame"][0]["genome"], dtype=float)
        config = best["task"]["genome"]
        columns = config.get("columns", [str(i) for i in range(genome.shape[1])])
        plots.append(figures.save(figures.table_figure(genome, columns, config.get("feature", ""), title),
                                  out / "best_table.png"))
    elif best["kind"] == "rules":
        plots.append(figures.save(figures.parameters_figure(_best_per_generation(rundir.path), title),
                                  out / "parameters.png"))
    summary = summarise(meta, generations, best, definition)
    markdown = out / "summary.md"
    atomic_write_text(markdown, to_markdown(summary, [p.name for p in plots]))
    document = out / "report.html"
    atomic_write_text(document, page(summary.title, summary_html(summary) + "<h2>Figures</h2>"
                                     + "".join(figure_html(p) for p in plots)))
    return [*plots, markdown, document]
