"""What the log costs at scale (issue 42): write cost per row, growth, reads, resume, files.

A zero-cost fitness (`benchmarks/sleepy` at 0 ms, 64-bit genomes), in-process
(`workers = 0`), population = offspring = `--size`, run to `--rows` logged
individuals, once with the log and once with it switched off (the recorder
builds no table and writes nothing; the generation's row is still made),
alternating for `--rounds` rounds. Each run is a fresh process; its CPU time
(user + system, all threads, and the log's writer process, its child) over the
rows is the cost per row, which other jobs on a shared machine inflate less
than wall time; the driver process's own CPU is printed apart.
The loop's wall time (generation 0's end to the last's) with and without the log,
over the rows, is the driver time the log takes from the run's throughput.

Then, on the logged run: late/early generation time (wall seconds of the last
1,000 generations (a tenth if fewer) over generations 100-1,099 (the same
share)), each reader (`generations()`, `population()`, `best()`,
`individuals(columns=["id"])`) in a fresh process (wall seconds and peak RSS
from `resource.getrusage`; `baseline` is the same process importing pipeline
and opening the run, reading nothing), `evo resume` to its first new
generation, and the files in the run directory. `--parts`: one more logged run, timing the log's
parts by their own thread's CPU (less sensitive to a busy machine than the difference of two
runs' totals; the writer process's parts it writes to a file at close for the driver to print).

    .venv/bin/python benchmarks/bench_log_scale.py --rows 100000 --rounds 2
    git worktree add /tmp/before <older commit>   # the figures before, same command:
    .venv/bin/python benchmarks/bench_log_scale.py --rows 100000 --checkout /tmp/before
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLEEPY = ROOT / "benchmarks" / "sleepy"

# The child that runs a spec, with or without the log, and prints its CPU seconds and
# each generation's wall seconds (from the on_generation callback's clock).
RUN = """
import json, resource, sys, time
import pipeline
from pipeline.records import recorder, schema
if sys.argv[3] == "off" and hasattr(recorder.Recorder, "_commit"):  # code before the batch writer
    import pyarrow
    EMPTY = pyarrow.table({})
    schema.Schema.individuals = lambda self, *args, **kwargs: EMPTY
    recorder.Recorder._commit = lambda self, state, table: None
elif sys.argv[3] == "off":  # the log switched off: no rows taken, no record, nothing sent or written
    schema.Schema.fields = staticmethod(lambda members: schema.Fields(*[[]] * len(schema.Fields._fields)))
    recorder.Recorder.checkpoint = lambda self, *args: {}
    recorder.Recorder.best = lambda self, state: {}
    recorder.Recorder._hall_changed = lambda self, hall: None
    try:  # the writer process (issue 42's fourth pass), or the writer thread before it
        from pipeline.records import writer_process
        writer_process.LogWriterProcess.put = lambda self, item, rows: None
    except ImportError:
        from pipeline.records import writer
        writer.BatchWriter.put = lambda self, item, rows: None
stamps = [time.perf_counter()]
pipeline.run(json.loads(sys.argv[1]), out=sys.argv[2], force=True,
             on_generation=lambda row: stamps.append(time.perf_counter()))
own = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the writer process, ended by now
print(json.dumps({"cpu": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
                  "driver": own.ru_utime + own.ru_stime,
                  "generations": [b - a for a, b in zip(stamps, stamps[1:])]}))
"""

# The child that runs a spec with the log and prints the thread CPU seconds of each of the
# log's parts (time.thread_time around them, so waiting and other processes do not count):
# the loop's (record, less the generation's row, which the log-off run makes too; of it, the
# fields, the checkpoint, the send) and the writer's (the tables, appends, compactions,
# checkpoint.json and best.json), which its process writes to a file at close.
PARTS = """
import collections, functools, json, resource, sys, time
import pipeline
from pipeline.records import recorder, rundir, schema
try:
    from pipeline.records import log_files, writer_process
except ImportError:  # the code before the writer process
    log_files = writer_process = None
spent = collections.Counter()
def timed(owner, name, label):
    real = getattr(owner, name, None) if owner is not None else None
    if real is None:  # not in this checkout's code
        return
    static = isinstance(owner.__dict__.get(name), staticmethod)
    @functools.wraps(real)
    def wrapper(*args, **kwargs):
        start = time.thread_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - start
    setattr(owner, name, staticmethod(wrapper) if static else wrapper)
LoopWriter = getattr(writer_process, "LogWriterProcess", None)
Files = getattr(log_files, "LogFiles", None)
for owner, name, label in [(recorder.Recorder, "record", "loop"), (schema.Schema, "generation_row", "row"),
                           (schema.Schema, "fields", "fields (loop)"), (schema.Fields, "packed", "pack (loop)"),
                           (recorder.Recorder, "checkpoint", "checkpoint (loop)"), (LoopWriter, "put", "send (loop)"),
                           (schema.Schema, "tables", "tables (writer)"), (rundir.RunDir, "write_individuals", "append"),
                           (recorder.Recorder, "_write", "writer (all of it)"), (Files, "write", "writer (all of it)"),
                           (recorder, "compact", "compaction"), (log_files, "compact", "compaction"),
                           (rundir.RunDir, "write_checkpoint", "derived"), (rundir.RunDir, "write_best", "derived")]:
    timed(owner, name, label)
if Files is not None:  # the writer process's own parts, written where the loop can read them
    real_close = Files.close
    def close(self):
        real_close(self)
        with open(sys.argv[2] + ".writer.json", "w") as out:
            json.dump(spent, out)
    Files.close = close
pipeline.run(json.loads(sys.argv[1]), out=sys.argv[2], force=True)
if Files is not None:
    with open(sys.argv[2] + ".writer.json") as written:
        writer_spent = json.load(written)
    spent.update({k: v for k, v in writer_spent.items() if "loop" not in k and k not in ("loop", "row")})
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent["writer process (all of it)"] = children.ru_utime + children.ru_stime
spent["loop"] -= spent.pop("row")
print(json.dumps(spent))
"""

# The child that times one reader in a fresh process: seconds and peak RSS.
READ = """
import json, resource, sys, time
import pipeline
run = pipeline.open_run(sys.argv[1])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
frame = eval(sys.argv[2])
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "rows": len(frame), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "baseline_mb": base / 1024}))
"""

# The child that resumes a run for one more generation: seconds to its first new one.
RESUME = """
import json, sys, time
start = time.perf_counter()
import pipeline
first = []
def on_generation(row):
    first.append(time.perf_counter() - start)
    return True
pipeline.resume(sys.argv[1], generations=int(sys.argv[2]), on_generation=on_generation)
print(json.dumps({"seconds": first[0]}))
"""

READERS = {"generations()": "run.generations()", "population()": "run.population()", "best()": "run.best()",
           "population(g/2)": "run.population(int(run.generations()['generation'].max()) // 2)",
           "individuals(id)": "run.individuals(columns=['id'])"}


def _spec(size: int, generations: int, offspring: int | None = None, algorithm: str = "mu+lambda") -> dict:
    return {"name": "log-scale", "problem": "sleepy:Sleepy", "seed": 1, "generations": generations,
            "problem_options": {"ms": 0.0, "bits": 64}, "genome": {"kind": "sleepy:Bits"},
            "population": {"size": size, "offspring": offspring or size, "tournament": 2, "algorithm": algorithm},
            "execution": {"code_dir": str(SLEEPY), "workers": 0}}


CHECKOUT = ROOT  # --checkout: the code the children run (a reference worktree, for the figures before)


def _child(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=CHECKOUT, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _late_over_early(seconds: list[float]) -> float:
    """Mean of the last `span` generations over generations 100.. (the same span)."""
    span = min(1000, len(seconds) // 10)
    early = seconds[100:100 + span] if len(seconds) > 100 + 2 * span else seconds[span:2 * span]
    return statistics.mean(seconds[-span:]) / statistics.mean(early)


def _alternate(spec: str, run_dir: Path, tmp: Path, rounds: int,
               no_baseline: bool) -> tuple[dict, dict, dict, list]:
    """Runs with the log (into `run_dir`) and without, alternating: each's CPU (all processes,
    and the driver's own), the loop's wall time (generation 0's end to the last's), and the
    logged runs' late/early."""
    cpu: dict[str, list[float]] = {"on": [], "off": []}
    driver: dict[str, list[float]] = {"on": [], "off": []}
    wall: dict[str, list[float]] = {"on": [], "off": []}
    late: list[float] = []
    for round_ in range(rounds):
        for mode in (("on", "off") if round_ % 2 == 0 else ("off", "on")):
            if mode == "off" and no_baseline:
                continue
            result = _child(RUN, spec, str(run_dir if mode == "on" else tmp / "off"), mode)
            cpu[mode].append(result["cpu"])
            driver[mode].append(result.get("driver", result["cpu"]))
            wall[mode].append(sum(result["generations"][1:]))
            if mode == "on":
                late.append(_late_over_early(result["generations"]))
    return cpu, driver, wall, late


def _print_costs(cpu: dict, driver: dict, wall: dict, rows: int, timed_rows: int) -> None:
    """With the log minus without, per logged row: all processes' CPU, the driver's, the loop's
    wall time (over `timed_rows`: generation 0 is not timed)."""
    on, driver_on = statistics.median(cpu["on"]), statistics.median(driver["on"])
    if not cpu["off"]:
        print(f"CPU with the log {on:.1f} s (no run without it)")
        return
    off = statistics.median(cpu["off"])
    print(f"CPU with the log {on:.1f} s, without {off:.1f} s: {(on - off) / rows * 1e6:.2f} µs per logged row "
          f"({on / off:.2f}x; all processes)")
    driver_off = statistics.median(driver["off"])
    print(f"the driver process's CPU with the log {driver_on:.1f} s, without {driver_off:.1f} s: "
          f"{(driver_on - driver_off) / rows * 1e6:.2f} µs per logged row ({driver_on / driver_off:.2f}x)")
    on_wall, off_wall = statistics.median(wall["on"]), statistics.median(wall["off"])
    print(f"the loop's wall time with the log {on_wall:.1f} s, without {off_wall:.1f} s: "
          f"{(on_wall - off_wall) / timed_rows * 1e6:.2f} µs per logged row ({on_wall / off_wall:.2f}x)")
    print("round by round (each round's pair, the runs side by side: less of the machine's swings): "
          f"the driver's CPU {_paired(driver, rows)}, the loop's wall time {_paired(wall, timed_rows)}")
    print("the least disturbed run of each (fastest with the log - fastest without, as timeit takes the "
          f"minimum): the driver's CPU {_fastest(driver, rows)}, the loop's wall time {_fastest(wall, timed_rows)}")


def _paired(seconds: dict[str, list[float]], rows: int) -> str:
    """The median and range over rounds of (with the log - without) per row, in µs, and from 6
    rounds the median's 95% interval (order statistics: no assumption about the VM's swings)."""
    per_row = sorted((on - off) / rows * 1e6 for on, off in zip(seconds["on"], seconds["off"]))
    text = f"{statistics.median(per_row):.2f} µs per logged row ({per_row[0]:.2f} to {per_row[-1]:.2f}"
    low = _median_interval(len(per_row))
    if low is not None:
        text += f"; 95% interval of the median {per_row[low]:.2f} to {per_row[-1 - low]:.2f}"
    return text + ")"


def _median_interval(n: int) -> int | None:
    """The index k of the sorted sample whose (k, n-1-k) bound its median with >= 95% confidence
    (the binomial sign interval); None where n is too small for one."""
    below, k = 0.0, 0
    while True:  # P(Binomial(n, 1/2) <= k), grown until the two tails together pass 5%
        below += math.comb(n, k) / 2**n
        if 2 * below > 0.05:
            return k - 1 if k > 0 else None
        k += 1


def _fastest(seconds: dict[str, list[float]], rows: int) -> str:
    return f"{(min(seconds['on']) - min(seconds['off'])) / rows * 1e6:.2f} µs per logged row"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="logged individuals (10^5 on a busy machine)")
    parser.add_argument("--size", type=int, default=100, help="population = offspring")
    parser.add_argument("--offspring", type=int, default=None, help="offspring a generation (default: --size)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--algorithm", default="mu+lambda", choices=["mu+lambda", "steady-state"],
                        help="population.algorithm (steady-state: a generation is `offspring` arrivals)")
    parser.add_argument("--no-baseline", action="store_true", help="no run without the log (10^7 rows: the reads)")
    parser.add_argument("--parts", action="store_true", help="also a run timing the log's parts (thread CPU)")
    parser.add_argument("--out", type=Path, default=None, help="keep the logged run here")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="run this checkout's code (default: this one)")
    args = parser.parse_args()
    global CHECKOUT
    CHECKOUT = args.checkout.resolve()
    offspring = args.offspring or args.size
    generations = (args.rows - args.size) // offspring  # generation 0 is the population, then `offspring` each
    spec = json.dumps(_spec(args.size, generations, offspring, args.algorithm))
    rows = args.size + offspring * generations
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.out or Path(tmp) / "on"
        cpu, driver, wall, late = _alternate(spec, run_dir, Path(tmp), args.rounds, args.no_baseline)
        print(f"{rows:,} rows ({args.algorithm}, population {args.size}, {generations:,} generations of {offspring}), "
              f"{args.rounds} round(s)")
        _print_costs(cpu, driver, wall, rows, rows - args.size)
        print(f"late/early generation time {', '.join(f'{r:.2f}' for r in late)}")
        if args.parts:
            parts = _child(PARTS, spec, str(Path(tmp) / "parts"))
            print("thread CPU per logged row: " + ", ".join(f"{name} {seconds / rows * 1e6:.2f} µs"
                                                           for name, seconds in parts.items()))
        files = [f for f in run_dir.rglob("*") if f.is_file()]
        size_mb = sum(f.stat().st_size for f in files) / 2**20
        print(f"files in the closed run: {len(files)} ({size_mb:.1f} MB)")
        for name, expression in READERS.items():
            read = _child(READ, str(run_dir), expression)
            if "error" in read:
                print(f"{name:18s} failed: {read['error']}")
                continue
            print(f"{name:18s} {read['seconds']:7.2f} s  peak {read['peak_mb']:7.0f} MB "
                  f"(baseline {read['baseline_mb']:.0f} MB)  {read['rows']:,} rows")
        start = time.perf_counter()
        resumed = _child(RESUME, str(run_dir), str(generations + 1))
        if "error" in resumed:
            print(f"evo resume failed: {resumed['error']}")
            return
        print(f"evo resume to its first new generation: {resumed['seconds']:.2f} s "
              f"(process {time.perf_counter() - start:.2f} s)")


if __name__ == "__main__":
    main()
