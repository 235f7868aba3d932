"""Running a shipped spec the way a user does, for the quality benchmarks."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def evolved(spec: str, seed: int, workers: int = 0) -> Iterator[tuple[Path, float, int, float]]:
    """`evo run SPEC --workers WORKERS --seed SEED` in a fresh process, into a temporary directory:
    yields (run directory, wall seconds end to end, last generation, CPU seconds).
    The CPU time is the steadier figure on a shared machine; with Ray workers it
    misses the actors' time (their processes are not the run's children)."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(ROOT / spec), "--workers", str(workers),
                        "--seed", str(seed), "--out", str(out)], check=True, env=env, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)
        yield out, wall, json.loads((out / "checkpoint.json").read_text())["generation"], cpu
