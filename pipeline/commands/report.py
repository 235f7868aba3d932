"""`evo report RUN_DIR`: figures (PNG), summary.md and a self-contained report.html under RUN_DIR/report;
`evo report --compare RUN RUN …`: several runs overlaid, written to --out (default: here)."""

from __future__ import annotations

from ..cli import UserError
from ..display import console


def add_parser(sub) -> None:
    p = sub.add_parser(
        "report", help="plot a run's logs and summarise it, or compare runs",
        description="Write figures (PNG), summary.md and a self-contained report.html of a run under "
        "RUN_DIR/report; with --compare, overlay several runs (best and mean of each shared objective "
        "per generation and per evaluation) into compare.png, compare_evaluations.png and compare.html.")
    p.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="the run to report on")
    p.add_argument("--compare", nargs="+", metavar="RUN", default=None,
                   help="two or more run directories to overlay (e.g. sampled vs exact fitness, two seeds)")
    p.add_argument("--out", default=".", metavar="DIR",
                   help="with --compare: where to write compare.png and compare.html (default: the current directory)")
    p.add_argument("--x", choices=("generation", "evaluations"), default="generation",
                   help="with --compare: the x axis of compare.png (default generation)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from ..report import best_expression, write_comparison, write_report

    if args.compare is not None:
        if args.run_dir is not None:
            raise UserError("give either RUN_DIR or --compare RUN RUN ..., not both")
        if len(args.compare) < 2:
            raise UserError(f"--compare needs at least two run directories, got {len(args.compare)}")
        for path in write_comparison(args.compare, args.out, x=args.x):
            console.print(f"wrote {path}")
        return 0
    if args.run_dir is None:
        raise UserError("give a run directory (evo report RUN_DIR) or --compare RUN RUN ...")
    from ..reporting import load_run

    run = load_run(args.run_dir)
    for path in write_report(run):
        console.print(f"wrote {path}")
    expression = best_expression(run.best)
    if expression is not None:
        console.print(f"best expression, simplified: {expression}", highlight=False)
    return 0
