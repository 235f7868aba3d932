"""`evo report RUN_DIR`: plots (PNG) and a markdown summary under RUN_DIR/report."""

from __future__ import annotations

from ..display import console


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="plot a run's logs and summarise it")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.set_defaults(handler=run)


def run(args) -> int:
    import json
    from pathlib import Path

    from ..report import best_expression, write_report

    for path in write_report(args.run_dir):
        console.print(f"wrote {path}")
    expression = best_expression(json.loads((Path(args.run_dir) / "best.json").read_text()))
    if expression is not None:
        console.print(f"best expression, simplified: {expression}", soft_wrap=True, highlight=False)
    return 0
