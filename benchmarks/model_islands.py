"""What the island barrier alone allows: a discrete-event model of islands on one shared queue.

The island model's generation is a barrier per island: an island breeds its
next children only when the last chunk of its generation is back. With
jitter, the actors that finish early idle unless another island has a chunk
waiting. This model has no CPU cost at all (a fixed hop per chunk and a fixed
breeding time per island generation) and W actors taking chunks from one
queue as `island_dispatch.Dispatcher` does (least loaded actor first, at most
`lanes` chunks on one, run one after the other), so its efficiency is the
most any implementation of generational islands can reach at that chunk
size, on any machine. Smaller chunks shorten the tail but cost Ray calls:
what bounds them is the CPU (`bench_scale_out.py`).

    .venv/bin/python benchmarks/model_islands.py --workers 64 --chunks 1 2 4 8 16 --sigmas 0 1
"""

from __future__ import annotations

import argparse
import heapq
import itertools
from collections import deque

import numpy as np


def efficiency(workers: int, islands: int, children: int, chunk: int, sigma: float, *, lanes: int = 2,
               ms: float = 20.0, generations: int = 10, breed: float = 0.01, hop: float = 0.002,
               seed: int = 0) -> float:
    """Sum of the sleeps / W over the time the last island needs for `generations` generations."""
    rng = np.random.default_rng(seed)
    load = [0] * workers  # chunks on each actor
    running: list[deque] = [deque() for _ in range(workers)]  # (island, seconds) in execution order
    last_start = [0] * workers  # a counter: ties go to the actor idle longest
    queue: deque = deque()
    events: list[tuple[float, int, int]] = []  # (time, tiebreak, actor >= 0 | -1 - island to breed)
    left, done, slept, ticks = [0] * islands, [0] * islands, 0.0, itertools.count()

    def seconds(n: int) -> float:
        factors = np.ones(n) if sigma == 0 else np.exp(sigma * rng.standard_normal(n) - sigma ** 2 / 2)
        return float(ms / 1000 * factors.sum())

    def submit(island: int) -> None:
        nonlocal slept
        sizes = [chunk] * (children // chunk) + ([children % chunk] if children % chunk else [])
        left[island] = len(sizes)
        for size in sizes:
            queue.append((island, seconds(size)))
            slept += queue[-1][1]

    def dispatch(now: float) -> None:
        while queue:
            actor = min(range(workers), key=lambda a: (load[a], last_start[a]))
            if load[actor] >= lanes:
                return
            load[actor] += 1
            last_start[actor] = next(ticks)
            running[actor].append(queue.popleft())
            if len(running[actor]) == 1:
                heapq.heappush(events, (now + hop + running[actor][0][1], next(ticks), actor))

    for island in range(islands):
        submit(island)
    dispatch(0.0)
    end = 0.0
    while events:
        now, _, who = heapq.heappop(events)
        if who < 0:  # an island has bred its next generation
            submit(-1 - who)
        else:
            island, _ = running[who].popleft()
            load[who] -= 1
            if running[who]:  # the chunk beside it starts at once
                heapq.heappush(events, (now + running[who][0][1], next(ticks), who))
            left[island] -= 1
            if left[island] == 0:
                done[island] += 1
                end = max(end, now)
                if done[island] < generations:
                    heapq.heappush(events, (now + breed + hop, next(ticks), -1 - island))
        dispatch(now + hop)
    return slept / workers / end


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--islands", type=int, default=8)
    parser.add_argument("--children", type=int, default=128, help="offspring per island and generation")
    parser.add_argument("--chunks", type=int, nargs="+", default=[1, 2, 4, 8, 16], help="genomes per chunk")
    parser.add_argument("--sigmas", type=float, nargs="+", default=[0.0, 1.0])
    parser.add_argument("--lanes", type=int, default=2)
    parser.add_argument("--ms", type=float, default=20.0)
    parser.add_argument("--seeds", type=int, default=4, help="jitter draws averaged")
    args = parser.parse_args()
    print(f"W = {args.workers}, {args.islands} islands of {args.children}, t = {args.ms:g} ms, {args.lanes} lanes")
    print("| genomes per chunk | chunks per generation | " + " | ".join(f"σ = {s:g}" for s in args.sigmas) + " |")
    print("|---|---|" + "---|" * len(args.sigmas))
    for chunk in args.chunks:
        cells = [np.mean([efficiency(args.workers, args.islands, args.children, chunk, sigma, lanes=args.lanes,
                                     ms=args.ms, seed=seed) for seed in range(args.seeds)]) for sigma in args.sigmas]
        calls = args.islands * -(-args.children // chunk)
        print(f"| {chunk} | {calls} | " + " | ".join(f"{e:.2f}" for e in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
