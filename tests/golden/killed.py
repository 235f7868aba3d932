"""Run directories that an older evo left half-done (SIGKILL mid-run), kept as fixtures.

Resuming one with today's code must write exactly the log the uninterrupted
run wrote (its digests are in golden.json under the same name), with one
deliberate exception: since generations.parquet's statistics are exactly rounded
sums (2026-11-27, issue 40), rows written after the resume carry those, while the
rows the older version committed keep the bits its numpy summed. golden.json holds
the digests of the resumed fixtures; individuals, population and best.json are
the uninterrupted run's.

    python -m tests.golden.killed        # remake the fixtures (with the code they pin!)
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from .cases import ROOT
from .digest import run_digests

HERE = Path(__file__).parent
FIXTURES = HERE / "killed"

# name -> (spec, overrides, the generation after whose callback the process SIGKILLs itself)
KILLED: dict[str, tuple[str, dict, int]] = {
    "nim-table-sampled-killed": ("runs/nim-table-sampled.toml", {"generations": 8}, 4),
    "setcover-killed": ("runs/setcover-1000.toml", {"generations": 6, "population__size": 40,
                                                    "population__offspring": 60}, 3),
    "nim-gp-killed": ("tests/golden/specs/nim-gp-v1.toml", {"generations": 4, "population__size": 60,
                                           "population__offspring": 120}, 2),
}


def _run(name: str, out: Path, kill_at: int | None) -> None:
    import pipeline

    spec, overrides, _ = KILLED[name]

    def on_generation(row: dict) -> None:
        if row["generation"] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    pipeline.run(ROOT / spec, workers=0, out=str(out), force=True, on_generation=on_generation, **overrides)


def main() -> None:
    golden_path = HERE / "golden.json"
    golden = json.loads(golden_path.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        for name, (_, _, kill_at) in KILLED.items():
            whole, killed = Path(tmp) / f"{name}-whole", Path(tmp) / name
            _run(name, whole, None)
            golden[name] = run_digests(whole)
            code = f"from tests.golden.killed import _run; _run({name!r}, __import__('pathlib').Path({str(killed)!r}), {kill_at})"
            done = subprocess.run([sys.executable, "-c", code], cwd=ROOT)
            assert done.returncode == -signal.SIGKILL, done.returncode
            shutil.rmtree(FIXTURES / name, ignore_errors=True)
            shutil.copytree(killed, FIXTURES / name)
            print(name, sorted(p.name for p in (FIXTURES / name / "individuals").iterdir()))
    golden_path.write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
