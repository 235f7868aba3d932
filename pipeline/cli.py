"""The `evo` command: one entry point, one module per subcommand.

Each module in `pipeline.commands` exposes `add_parser(subparsers)`, which
registers its arguments and sets `handler`. Heavy imports (Ray, pandas) stay
inside the handlers so `evo match` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

__all__ = ["main", "UserError"]

COMMAND_MODULES = ("run", "resume", "spec", "report", "match", "play", "bench", "train_rl")


class UserError(Exception):
    """A problem the user can fix (bad option, missing file): printed as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not usage + traceback
        self.exit(2, f"{self.prog}: error: {message}\n")


HINT = "Run `evo COMMAND --help` for a command's options, e.g. `evo run --help`."


def version() -> str:
    """The installed package's version (importlib.metadata), or 'unknown' from a bare checkout."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("evo-pipeline")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="evo", description="Distributed evolutionary computation on DEAP and Ray: "
                     "evolve Nim agents and set covers, logged to Parquet.", epilog=HINT)
    parser.add_argument("--version", action="version", version=f"evo {version()}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND", title="commands")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"pipeline.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"pipeline.commands.{name}":
                continue  # a command not built yet
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `evo`: what there is to do, not just "COMMAND is required"
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except (UserError, ValueError, FileNotFoundError, ConnectionError) as exc:
        print(f"evo {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # disk full, read-only, permissions: the path and the cause
        from .records import describe_os_error

        print(f"evo {args.command}: error: {describe_os_error(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # a run's says how to resume it (commands.run.Interrupted); SIGTERM: 143
        print(f"evo {args.command}: {getattr(exc, 'what', 'interrupted')}{getattr(exc, 'hint', '')}", file=sys.stderr)
        return getattr(exc, "exit_code", 130)
    except SystemExit as exc:  # a command never exits 0 this way: something stopped it (runner.RunStopped)
        if exc.code not in (0, None):
            raise
        print(f"evo {args.command}: error: stopped by SystemExit: {exc.code}", file=sys.stderr)
        return 1
    except Exception as exc:  # anything else: still one line; EVO_DEBUG=1 shows the traceback
        if os.environ.get("EVO_DEBUG"):
            raise
        from .runner import RunStopped, failure_reason

        said = str(exc) if isinstance(exc, RunStopped) else f"error: {failure_reason(exc)} (EVO_DEBUG=1 for the traceback)"
        print(f"evo {args.command}: {said}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
