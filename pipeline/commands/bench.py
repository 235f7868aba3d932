"""`evo bench [NAME ...]`: run the benchmark scripts of benchmarks/ (from a checkout)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from ..cli import UserError

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def available() -> list[str]:
    return sorted(p.stem[len("bench_"):] for p in BENCH_DIR.glob("bench_*.py"))


def add_parser(sub) -> None:
    p = sub.add_parser("bench", help="run benchmarks (default: nim_engine)",
                       description="Run benchmarks/bench_NAME.py; figures go to stdout.")
    p.add_argument("names", nargs="*", metavar="NAME", default=["nim_engine"])
    p.set_defaults(handler=run)


def run(args) -> int:
    names = available()
    if not names:
        raise UserError(f"no benchmarks found in {BENCH_DIR} (evo bench runs from a source checkout)")
    for name in args.names:
        if name not in names:
            raise UserError(f"unknown benchmark {name!r}; available: {', '.join(names)}")
    for name in args.names:
        print(f"== {name} ==", flush=True)
        saved = sys.argv
        sys.argv = [str(BENCH_DIR / f"bench_{name}.py")]
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        finally:
            sys.argv = saved
    return 0
