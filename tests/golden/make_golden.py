"""Regenerate golden.json: only when a spec's meaning is *meant* to change (never silently).

    python -m tests.golden.make_golden
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from .cases import CASES, run_case
from .digest import run_digests

HERE = Path(__file__).parent


def main(names: list[str]) -> None:
    path = HERE / "golden.json"
    golden = json.loads(path.read_text()) if path.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or list(CASES):
            started = time.perf_counter()
            golden[name] = run_digests(run_case(name, Path(tmp) / name))
            print(f"{name}: {time.perf_counter() - started:.1f} s", flush=True)
    path.write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
