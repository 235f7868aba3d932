"""Reports of runs: figures (PNG), summary.md and a self-contained report.html per run,
and comparisons of several runs. `pipeline.report` re-exports the entry points."""

from __future__ import annotations

from pathlib import Path

from fitness.atomic import atomic_write_text

from .common import RunLogs, load_run
from .compare import write_comparison
from .figures import run_figures, save
from .page import html_page
from .summary import best_expression, summary_blocks, to_html, to_markdown
from .workers import worker_use_of

__all__ = ["write_report", "write_comparison", "best_expression", "report_figures", "load_run", "RunLogs"]


def report_figures(run_dir: str | Path) -> dict:
    """The report's matplotlib figures by file stem (not saved; close them when done)."""
    run = load_run(run_dir)
    return run_figures(run, individuals=run.individuals)


def write_report(run_dir: str | Path | RunLogs) -> list[Path]:
    """Write report/*.png, report/summary.md and report/report.html; returns the files written.
    Every part comes from one snapshot of the logs (`load_run`), even while the run goes on."""
    run = run_dir if isinstance(run_dir, RunLogs) else load_run(run_dir)
    out = run.path / "report"
    out.mkdir(exist_ok=True)
    images = []
    for stem, fig in run_figures(run, individuals=run.individuals).items():
        caption = fig._suptitle.get_text().replace("\n", " — ")
        images.append((caption, save(fig, out / f"{stem}.png")))
    title, blocks = summary_blocks(run, worker_use_of(run.path, run.generations))
    summary = out / "summary.md"
    atomic_write_text(summary, to_markdown(title, blocks, [p.stem for _, p in images]))
    page = out / "report.html"
    atomic_write_text(page, html_page(title, to_html(blocks), images))
    return [path for _, path in images] + [summary, page]
