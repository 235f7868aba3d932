"""Every core of one machine (issue 45): in-process against the default on W local workers.

Each case runs `evo run SPEC` as separate processes, one after another within a
round: `--workers 0`, the default `--workers W` (a local process pool) and
`--workers W --engine ray` (the embedded Ray and its hand-over, the default
before issue 45), optionally `--engine ray --no-handover`. It reports process
wall time, CPU seconds (the run and its children), the ratio to `--workers 0`
within the round (the machine is shared and noisy: only same-round ratios mean
anything) and whether the log equals the in-process one (`tests/golden/digest`:
every column but timing and worker). Then Ray's own start on this machine
(`ray.init`, W actors ready, shutdown) and a second `pipeline.run` in one
Python process (its workers' readiness), on the default pool and on the
embedded Ray, which the second run finds warm (`ray_embedded`).

    .venv/bin/python benchmarks/bench_local_cores.py --rounds 2 --workers 2 [--specs all] [--no-handover]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.golden.digest import run_digests  # noqa: E402 - after the path

TWELVE_K = "benchmarks/specs/nim-rules-12k.toml"  # runs/nim-rules.toml with 4,000 games per opponent
CASES = ["runs/nim-rules.toml", "runs/setcover-1000.toml", TWELVE_K]
ALL_CASES = ["runs/nim-rules.toml", "runs/nim-table.toml", "runs/nim-misere-k3.toml", "runs/nim-table-sampled.toml",
             "runs/nim-gp.toml", "runs/setcover-1000.toml", TWELVE_K]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(spec: str, flags: list[str], out: Path) -> tuple[float, float, dict]:
    """(wall s, CPU s, run.json's worker_seconds) of one `evo run` process."""
    cpu, start = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline.cli", "run", spec, *flags, "--out", str(out), "--force"],
                   cwd=ROOT, check=True, capture_output=True)
    wall = time.perf_counter() - start
    seconds = json.loads((out / "run.json").read_text()).get("worker_seconds") or {}
    return wall, children_cpu() - cpu, seconds


def ray_start(workers: int) -> str:
    """ray.init, `workers` actors holding the 12,000-game task, and shutdown, in seconds."""
    code = ("import time, tomllib\n"
            "t0 = time.perf_counter()\n"
            "from pipeline.evaluation.ray_connect import start_local_ray\n"
            f"start_local_ray({workers}); t1 = time.perf_counter()\n"
            "from pipeline.spec import load_spec\n"
            "from pipeline.evaluation.ray_pool import RayEvaluator\n"
            f"task = load_spec({TWELVE_K!r}).task_spec(); t2 = time.perf_counter()\n"
            f"pool = RayEvaluator(task, {workers}, wait_for_all=True); t3 = time.perf_counter()\n"
            "pool.close(); import ray; ray.shutdown(); t4 = time.perf_counter()\n"
            "print(f'ray.init {t1 - t0:.1f} s, {pool.workers} actors ready {t3 - t2:.1f} s, shutdown {t4 - t3:.1f} s')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def second_run(workers: int, tmp: Path, engine: str = "auto", root: Path = ROOT) -> str:
    """Two `pipeline.run`s of runs/nim-rules.toml in one process (`engine`; "ray": the embedded
    Ray, no hand-over): each one's first evaluation and workers ready (from the run's start, and
    from the pool's), and the wall time to the end of the second."""
    flags = "" if engine == "auto" else f"execution__engine={engine!r}, execution__handover=False, "
    code = ("import json, time, pipeline\n"
            "start = time.perf_counter()\n"
            "for n in (1, 2):\n"
            f"    path = pipeline.run('runs/nim-rules.toml', workers={workers}, generations=2, {flags}"
            f"out='{tmp}/again' + str(n), force=True).path\n"
            "    seconds = json.load(open(path / 'run.json'))['worker_seconds']\n"
            "    print(seconds['first_evaluation'], seconds['workers_ready'], end=' ')\n"
            "print(time.perf_counter() - start)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=root, check=True, capture_output=True, text=True)
    first, ready, again, ready_again, wall = map(float, done.stdout.split())
    return (f"{engine}: first evaluation / workers ready: first run {first:.2f} / {ready:.2f} s, "
            f"second run {again:.2f} / {ready_again:.2f} s (both runs {wall:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--specs", choices=["default", "all"], default="default")
    parser.add_argument("--no-handover", action="store_true", help="also --engine ray --no-handover")
    parser.add_argument("--match", default="", help="only specs whose path contains this")
    args = parser.parse_args()
    w = str(args.workers)
    variants = {"default": ["--workers", w], "ray": ["--workers", w, "--engine", "ray"]}
    if args.no_handover:
        variants["ray, no handover"] = ["--workers", w, "--engine", "ray", "--no-handover"]
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs, W = {w}", flush=True)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for spec in (ALL_CASES if args.specs == "all" else CASES):
            if args.match not in spec:
                continue
            for r in range(args.rounds):
                local, local_cpu, _ = run(spec, ["--workers", "0"], tmp / "local")
                digests = run_digests(tmp / "local")
                parts = [f"--workers 0 {local:.1f} s (CPU {local_cpu:.1f} s)"]
                for label, flags in variants.items():
                    wall, cpu, seconds = run(spec, flags, tmp / label.replace(" ", ""))
                    same = "same log" if run_digests(tmp / label.replace(" ", "")) == digests else "LOG DIFFERS"
                    ready = seconds.get("workers_ready")
                    parts.append(f"{label} {wall:.1f} s (CPU {cpu:.1f} s, ratio {wall / local:.2f}, {same}"
                                 + (f", workers ready {ready:.1f} s" if ready is not None else "") + ")")
                print(f"{spec}: round {r + 1}, load {os.getloadavg()[0]:.1f}: " + "; ".join(parts), flush=True)
        print(ray_start(args.workers), flush=True)
        for engine in ("auto", "ray"):
            print(second_run(args.workers, tmp, engine), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
