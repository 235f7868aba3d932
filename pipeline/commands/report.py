"""`evo report RUN_DIR`: figures, summary.md and report.html under RUN_DIR/report;
`evo report --compare RUN RUN ...`: runs overlaid in compare.png and compare.html."""

from __future__ import annotations

from ..cli import UserError
from ..display import console


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="plot a run's logs and summarise it, or compare runs",
                       description="Write a run's figures (PNG), summary.md and a self-contained report.html "
                       "into RUN_DIR/report, from the logs alone (a running run too). With --compare, overlay "
                       "two or more runs per generation instead (e.g. sampled against exact fitness, or seeds).")
    p.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="a run directory, e.g. runs/nim-table")
    p.add_argument("--compare", nargs="+", metavar="RUN", default=None, help="run directories to overlay")
    p.add_argument("--out", default=".", help="folder for compare.png and compare.html (default: here)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from ..report import best_expression, write_comparison, write_report
    from ..rundir import RunDir

    if args.compare is not None:
        runs = ([args.run_dir] if args.run_dir else []) + args.compare
        for path in write_comparison(runs, args.out):
            console.print(f"wrote {path}")
        return 0
    if args.run_dir is None:
        raise UserError("give a run directory (evo report runs/NAME) or --compare RUN RUN ...")
    for path in write_report(args.run_dir):
        console.print(f"wrote {path}")
    expression = best_expression(RunDir(args.run_dir).read_best())
    if expression is not None:
        console.print(f"best expression, simplified: {expression}")
    return 0
