"""Memory of an idle evaluation actor and of the embedded Ray itself: the figures behind
`pipeline.evaluation.capacity` (how many actors an embedded Ray may start here).

    RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 .venv/bin/python benchmarks/bench_actor_memory.py runs/setcover-1000.toml

Starts an embedded Ray with 2 actors holding the spec's task, waits until they are idle,
then prints resident (RSS), proportional (PSS) and private (USS) MiB of every process
this driver started, from /proc/PID/smaps_rollup (Linux).
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def memory(pid: int) -> dict[str, int] | None:
    """RSS, PSS and USS of a process in MiB (None if it is gone)."""
    fields: dict[str, float] = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                key, _, value = line.partition(":")
                if key in ("Rss", "Pss", "Private_Clean", "Private_Dirty"):
                    fields[key] = int(value.split()[0]) / 1024
    except OSError:
        return None
    fields["Uss"] = fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)
    return {key: round(fields.get(key, 0)) for key in ("Rss", "Pss", "Uss")}


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == pid:
                found.append(int(entry))
    return found


def show(pid: int, depth: int = 0) -> None:
    try:
        with open(f"/proc/{pid}/cmdline") as cmdline:
            name = cmdline.read().replace("\0", " ").strip()
    except OSError:
        name = "?"
    label = name.split()[0].rsplit("/", 1)[-1] if name.startswith("/") else name[:40]
    print(f"{'  ' * depth}{pid:>8} {memory(pid)} {label[:60]}")
    for child in children(pid):
        show(child, depth + 1)


def main(spec_path: str) -> None:
    from pipeline.evaluation import make_evaluator
    from pipeline.spec import load_spec

    spec = load_spec(spec_path, {"execution.workers": 2})
    evaluator = make_evaluator(spec.task_spec(), workers=2, wait_for_all=True)
    try:
        time.sleep(5)  # the actors idle, their task built
        show(os.getpid())
    finally:
        evaluator.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "runs/setcover-1000.toml")
