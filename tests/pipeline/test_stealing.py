"""Work stealing: a chunk's slices and the parts taken from it tile it exactly, whenever the
steals come, and a chunk split across actors scores exactly what one process scores."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evaluation.stealing import SLICE_SECONDS, Slices


class _Stealer:
    """A task that, before its k-th slice, steals from the chunk it is evaluating, as another
    thread would between two slices."""

    def __init__(self, slices: Slices, ticket: int, start: int, stop: int, steals_at: dict[int, int],
                 seconds: float = 0.0) -> None:
        self.slices, self.ticket, self.start, self.stop, self.seconds = slices, ticket, start, stop, seconds
        self.steals_at = steals_at  # call number -> how many steals before it
        self.calls = 0
        self.taken: list[tuple[int, int]] = []  # what the steals took

    def evaluate(self, genomes: list, seeds: list) -> dict:
        for _ in range(self.steals_at.get(self.calls, 0)):
            cut = self.slices.steal(self.ticket, self.start, self.stop)
            if cut < self.stop:
                self.taken.append((cut, self.stop))
                self.stop = cut
        self.calls += 1
        time.sleep(self.seconds * len(genomes))
        return {"seed": list(seeds), "genome": list(genomes)}


@settings(max_examples=200, deadline=None)
@given(start=st.integers(0, 20), size=st.integers(1, 60), before=st.integers(0, 3),
       steals_at=st.dictionaries(st.integers(0, 30), st.integers(1, 3), max_size=5))
def test_slices_and_steals_tile_the_chunk_and_each_genome_keeps_its_seed(start, size, before, steals_at):
    slices, stop = Slices(), start + size
    task = _Stealer(slices, 7, start, stop, steals_at)
    for _ in range(before):  # steals that reach the actor before the chunk begins
        cut = slices.steal(7, start, task.stop)
        if cut < task.stop:
            task.taken.append((cut, task.stop))
            task.stop = cut
    genomes = [f"g{i}" for i in range(stop)]
    done = slices.evaluate(task, 7, genomes, list(range(100, 100 + stop)), start, stop)
    ranges = sorted([(a, b) for _, _, a, b in done] + task.taken)
    assert [a for a, _ in ranges] == [start] + [b for _, b in ranges[:-1]] and ranges[-1][1] == stop
    for columns, seconds, a, b in done:
        as_lists = {name: list(values) for name, values in columns.items()}  # arrays: checked where they ran
        assert as_lists == {"seed": list(range(100 + a, 100 + b)), "genome": genomes[a:b]} and seconds >= 0
    assert slices.steal(7, start, stop) == stop  # finished: a late steal takes nothing
    if before:
        assert done == [] and task.taken[0] == (start, stop)  # not begun: taken whole


def test_a_running_chunk_loses_half_its_unstarted_genomes_and_never_the_slice_it_runs():
    slices = Slices()  # genomes slower than a slice: one a slice
    task = _Stealer(slices, 1, 0, 10, {1: 1}, seconds=1.5 * SLICE_SECONDS)
    done = slices.evaluate(task, 1, list(range(10)), list(range(10)), 0, 10)
    assert task.taken == [(6, 10)]  # genomes 0 and 1 had begun; half of the 8 others taken
    assert [(a, b) for _, _, a, b in done] == [(i, i + 1) for i in range(6)]


@pytest.mark.timeout(300)
def test_islands_with_stealing_write_the_log_of_an_in_process_run(tmp_path, ray_session):
    from tests.golden.digest import run_digests
    from tests.pipeline.test_islands import SETCOVER, _run

    expected = run_digests(_run(tmp_path, SETCOVER, "local", workers=0).path)
    stolen = _run(tmp_path, SETCOVER, "stolen", workers=2, chunk_size=7, execution__steal=True)
    assert run_digests(stolen.path) == expected
