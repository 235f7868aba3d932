"""What the island barrier alone allows: a discrete-event model of islands on one shared queue.

The island model's generation is a barrier per island: an island breeds its
next children only when the last genome of its generation is back. With
jitter, the actors that finish early idle unless another island has a chunk
waiting. This model has no CPU cost at all (a fixed hop per call and a fixed
breeding time per island generation) and W actors taking chunks from one
queue as the islands' former shared dispatcher did (least loaded actor first,
at most `lanes` chunks on one, run one after the other; islands now drive
actors of their own, `pipeline/islands/actors.py`, which this bounds from
above), so its efficiency is the most generational islands can reach at that
chunk size, on any machine. Smaller chunks shorten the tail but cost Ray calls:
what bounds them is the CPU (`bench_scale_out.py`). With `--steal`, an actor
left idle with nothing queued takes, after one hop, a queued chunk whole or
the unstarted half of a running one (as the former island dispatcher's stealing did), the one with the most
genomes first; the calls column counts those too.

    .venv/bin/python benchmarks/model_islands.py --workers 64 --chunks 1 2 4 8 16 --sigmas 0 1 --steal
"""

from __future__ import annotations

import argparse
import heapq
import itertools
from collections import deque
from dataclasses import dataclass, field

import numpy as np


@dataclass
class _Model:
    workers: int
    lanes: int
    hop: float
    pieces: list[deque] = field(init=False)  # per actor: [island, deque of genome seconds], running first
    ticks: itertools.count = field(default_factory=itertools.count)
    events: list = field(default_factory=list)  # (time, tiebreak, kind, who)
    queue: deque = field(default_factory=deque)
    calls: int = 0

    def __post_init__(self) -> None:
        self.pieces = [deque() for _ in range(self.workers)]
        self.last = [0] * self.workers  # when each actor last got a piece: ties go to the one idle longest

    def give(self, actor: int, piece: list, now: float) -> None:
        self.calls += 1
        self.pieces[actor].append(piece)
        self.last[actor] = next(self.ticks)
        if len(self.pieces[actor]) == 1:
            self.at(now + self.hop, "genome", actor)

    def at(self, when: float, kind: str, who: int) -> None:
        heapq.heappush(self.events, (when, next(self.ticks), kind, who))

    def dispatch(self, now: float, steal: bool) -> None:
        while self.queue:
            actor = min(range(self.workers), key=lambda a: (len(self.pieces[a]), self.last[a]))
            if len(self.pieces[actor]) >= self.lanes:
                return
            self.give(actor, self.queue.popleft(), now)
        for thief in range(self.workers) if steal else ():
            if not self.pieces[thief] and not self._steal(thief, now):
                return

    def _steal(self, thief: int, now: float) -> bool:
        best = max(((len(p[1]) - (i == 0), i, a) for a in range(self.workers)
                    for i, p in enumerate(self.pieces[a])), default=(0, 0, 0))
        unstarted, index, victim = best
        if unstarted < (1 if index else 2):
            return False
        if index:  # queued: taken whole
            piece = self.pieces[victim].pop()
        else:  # running: the unstarted half
            running = self.pieces[victim][0]
            piece = [running[0], deque(running[1].pop() for _ in range(unstarted // 2))]
            piece[1].reverse()
        self.give(thief, piece, now + self.hop)
        return True


def efficiency(workers: int, islands: int, children: int, chunk: int, sigma: float, *, lanes: int = 2,
               ms: float = 20.0, generations: int = 10, breed: float = 0.01, hop: float = 0.002,
               seed: int = 0, steal: bool = False) -> tuple[float, float]:
    """(sum of the sleeps / W over the time the last island needs for `generations` generations,
    calls per island generation)."""
    rng = np.random.default_rng(seed)
    model = _Model(workers, lanes, hop)
    left, done, slept, end = [0] * islands, [0] * islands, 0.0, 0.0

    def submit(island: int) -> None:
        nonlocal slept
        factors = np.ones(children) if sigma == 0 else np.exp(sigma * rng.standard_normal(children) - sigma ** 2 / 2)
        seconds = list(ms / 1000 * factors)
        slept += sum(seconds)
        left[island] = children
        model.queue.extend([island, deque(seconds[a:a + chunk])] for a in range(0, children, chunk))

    for island in range(islands):
        submit(island)
    model.dispatch(0.0, steal)
    while model.events:
        now, _, kind, who = heapq.heappop(model.events)
        if kind == "breed":
            submit(who)
        elif kind == "genome":  # actor `who` starts the next genome of its running piece
            model.at(now + model.pieces[who][0][1][0], "done", who)
            continue
        else:
            running = model.pieces[who][0]
            running[1].popleft()
            left[running[0]] -= 1
            if left[running[0]] == 0:
                done[running[0]] += 1
                end = max(end, now)
                if done[running[0]] < generations:
                    model.at(now + breed + hop, "breed", running[0])
            if not running[1]:
                model.pieces[who].popleft()
            if model.pieces[who]:  # the next genome, or the piece beside it, starts at once
                model.at(now, "genome", who)
        model.dispatch(now + hop, steal)
    return slept / workers / end, model.calls / (islands * generations)


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
    parser.add_argument("--steal", action="store_true", help="also model idle actors stealing")
    args = parser.parse_args()
    print(f"W = {args.workers}, {args.islands} islands of {args.children}, t = {args.ms:g} ms, {args.lanes} lanes")
    print("| genomes per chunk | stealing | " + " | ".join(f"σ = {s:g} (calls)" for s in args.sigmas) + " |")
    print("|---|---|" + "---|" * len(args.sigmas))
    for chunk in args.chunks:
        for steal in [False, True] if args.steal else [False]:
            cells = []
            for sigma in args.sigmas:
                runs = [efficiency(args.workers, args.islands, args.children, chunk, sigma, lanes=args.lanes,
                                   ms=args.ms, seed=seed, steal=steal) for seed in range(args.seeds)]
                cells.append("%.2f (%.0f)" % tuple(np.mean(runs, axis=0)))
            print(f"| {chunk} | {'yes' if steal else 'no'} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
