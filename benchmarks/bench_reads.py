"""What reading a run costs through one open per file (issue 40), against `pq.read_table(path)`.

Writes one small set-cover run, then times, in alternating rounds, each reader
against the way it read before: a Parquet file opened once and parsed through
that handle (`records.reading.read_parquet`) against `pq.read_table(path)`
(which opens it twice: the race the issue hit), for every individuals file and
for generations.parquet. Prints milliseconds per read and the ratio new/old.

    .venv/bin/python benchmarks/bench_reads.py [GENERATIONS] [ROUNDS]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

import pipeline
from pipeline.records import RunDir
from pipeline.records.reading import read_parquet

SPEC = """
problem = "setcover"
seed = 5
[population]
size = 20
offspring = 20
[genome]
kind = "bitstring"
[setcover]
N = 100
[execution]
workers = 0
"""


def _seconds(read, files: list[Path]) -> float:
    start = time.perf_counter()
    for file in files:
        read(file).to_pandas()
    return time.perf_counter() - start


def main(generations: int = 60, rounds: int = 5) -> None:
    folder = Path(tempfile.mkdtemp())
    (folder / "spec.toml").write_text(SPEC)
    rundir = RunDir(pipeline.run(folder / "spec.toml", out=str(folder / "run"), generations=generations).path)
    cases = {"individuals file": list(rundir.generation_files().values()),
             "generations.parquet": [rundir.generations_file] * generations}
    print(f"{generations + 1} generations of 20 + 20, {rounds} alternating rounds; ms per read (best of rounds)")
    for name, files in cases.items():
        old, new = [], []
        for _ in range(rounds):
            old.append(_seconds(pq.read_table, files) / len(files))
            new.append(_seconds(read_parquet, files) / len(files))
        print(f"{name:20s} pq.read_table(path) {min(old) * 1e3:6.2f}  read_parquet {min(new) * 1e3:6.2f}  "
              f"ratio {min(new) / min(old):.2f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
