"""The golden logs and pinned results on a machine without pytest (another CPU, another Python):

    python -m tests.golden.elsewhere [PROCESSES]

runs every golden case and killed-run resume in parallel, and the pinned lockstep
and RL results, and says which differ from golden.json / the pinned values. How the
16-core machine (Intel Xeon, AVX-512, Python 3.12, numpy 2.5) was checked, with and
without NPY_DISABLE_CPU_FEATURES.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).parent


def _case(name: str) -> tuple[str, dict]:
    from .cases import run_case
    from .digest import run_digests

    with tempfile.TemporaryDirectory() as tmp:
        return name, run_digests(run_case(name, Path(tmp) / name))


def _killed(name: str) -> tuple[str, dict]:
    import pipeline

    from .digest import run_digests
    from .killed import FIXTURES

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(FIXTURES / name, Path(tmp) / name)
        pipeline.resume(Path(tmp) / name, workers=0)
        return name, run_digests(Path(tmp) / name)


def _pinned() -> int:
    """The pinned lockstep and RL results (pytest's decorators stubbed where it is missing)."""
    stub = types.ModuleType("pytest")
    stub.mark = types.SimpleNamespace(parametrize=lambda *a, **k: (lambda f: f))
    sys.modules.setdefault("pytest", stub)
    from tests.fitness.test_nim_lockstep_pinned import PINNED, play_cases, population_cases, rl_cases

    bad = 0
    for kind, make in (("play", play_cases), ("population", population_cases), ("rl", rl_cases)):
        for name, value in json.loads(json.dumps(make())).items():
            bad += value != PINNED[kind][name]
            print("ok  " if value == PINNED[kind][name] else "FAIL", kind, name, flush=True)
    return bad


def main(processes: int) -> int:
    from .cases import CASES
    from .killed import KILLED

    print("NPY_DISABLE_CPU_FEATURES =", os.environ.get("NPY_DISABLE_CPU_FEATURES"), flush=True)
    golden = json.loads((HERE / "golden.json").read_text())
    bad = _pinned()
    with ProcessPoolExecutor(processes) as pool:
        futures = [pool.submit(_case, n) for n in CASES] + [pool.submit(_killed, n) for n in KILLED]
        for future in futures:
            name, got = future.result()
            differ = sorted(part for part in got if got[part] != golden[name][part])
            bad += bool(differ)
            print("FAIL" if differ else "ok  ", name, ", ".join(differ), flush=True)
    print(f"{bad} differ" if bad else "everything equal")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else os.cpu_count() or 1))
