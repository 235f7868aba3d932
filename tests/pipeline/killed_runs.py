"""A run SIGKILLed (as the OOM killer would) right after a given generation, in a child process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def killed_run(spec: Path, out: Path, kill_at: int, **overrides: Any) -> None:
    """Run `spec` in-process in a child, which kills itself once generation `kill_at` is logged."""
    code = (f"from tests.pipeline.killed_runs import _run_and_die; "
            f"_run_and_die({str(spec)!r}, {str(out)!r}, {kill_at}, {overrides!r})")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=600)
    assert done.returncode == -signal.SIGKILL


def _run_and_die(spec: str, out: str, kill_at: int, overrides: dict[str, Any]) -> None:
    import pipeline

    def on_generation(row: dict) -> None:
        if row["generation"] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    pipeline.run(spec, workers=0, out=out, force=True, on_generation=on_generation, **overrides)
