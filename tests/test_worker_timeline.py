"""benchmarks/worker_timeline.py and the sleep plug-in's call log: the busy share and the time a
call takes beyond its sleeps are read back exactly from what the actors logged."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
sys.path.insert(0, str(BENCHMARKS / "sleepy"))

from sleepy import Sleepy  # noqa: E402
from worker_timeline import WARM_UP, describe, summarise, window_shares  # noqa: E402

# a worker's calls, back to back from 0: (idle before, in the call, share of it asleep)
calls_strategy = st.lists(st.tuples(st.floats(0.0, 2.0), st.floats(0.01, 3.0), st.floats(0.0, 1.0)),
                          min_size=1, max_size=8)


def _rows(calls: list[tuple[float, float, float]]) -> np.ndarray:
    rows, clock = [], 0.0
    for idle, length, asleep in calls:
        rows.append((clock + idle, clock + idle + length, asleep * length))
        clock += idle + length
    return np.array(rows)


@settings(max_examples=200, deadline=None)
@given(workers=st.lists(calls_strategy, min_size=1, max_size=5))
def test_a_window_over_every_call_gives_the_busy_share_and_the_time_beyond_the_sleeps(workers):
    rows = [_rows(calls) for calls in workers]
    end = max(r[-1, 1] for r in rows)
    busy, overhead = window_shares(rows, 0.0, end, len(rows))
    in_calls = sum(float((r[:, 1] - r[:, 0]).sum()) for r in rows)
    slept = sum(float(r[:, 2].sum()) for r in rows)
    assert busy == pytest.approx(in_calls / (len(rows) * end))
    assert overhead == pytest.approx(1 - slept / in_calls, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(calls=calls_strategy, cut=st.floats(0.0, 1.0))
def test_windows_that_split_the_run_add_up_to_the_whole(calls, cut):
    rows = [_rows(calls)]
    end = rows[0][-1, 1]
    middle = cut * end
    whole, _ = window_shares(rows, 0.0, end, 1)
    if 0 < middle < end:
        first, _ = window_shares(rows, 0.0, middle, 1)
        second, _ = window_shares(rows, middle, end, 1)
        assert first * middle + second * (end - middle) == pytest.approx(whole * end)


def test_the_plug_in_logs_each_call_and_the_summary_reads_it(tmp_path):
    """Calls of the plug-in itself (1 ms sleeps), a generation timed around each: one line a call
    with its sleeps, each call at least as long as them, and shares within their bounds."""
    import time

    task = Sleepy({"ms": 1, "bits": 8, "calls_dir": str(tmp_path)})
    genomes = [np.zeros(8, dtype=bool)] * 3
    times = [time.time()]
    for _ in range(WARM_UP + 3):
        columns = task.evaluate(genomes, [1, 2, 3])
        times.append(time.time())
        assert columns["slept"].tolist() == [0.001] * 3
    (log,) = tmp_path.glob("*.txt")
    rows = np.loadtxt(log, ndmin=2)
    assert len(rows) == WARM_UP + 3 and np.allclose(rows[:, 2], 0.003)
    assert np.all(rows[:, 1] - rows[:, 0] >= 0.003)
    summary = summarise(tmp_path, times, workers=1)
    for phase in ("warm_up", "later"):  # a loaded machine may pause between calls: no lower bound on busy
        assert 0.0 < summary[f"{phase}_busy"] <= 1.0 + 1e-9 and -1e-9 <= summary[f"{phase}_overhead"] < 1.0
    assert summary["gap_median_ms"] >= 0
    assert describe(summary).startswith("busy ")
    assert describe({}) == f"busy - (generations 1-{WARM_UP}: -); gaps median / p90 -"


def _log(directory: Path, actor: int, rows: list[tuple[float, float, float]], cut: str = "") -> None:
    with open(directory / f"{actor}.txt", "w") as sink:
        sink.write("".join(f"{start} {end} {slept}\n" for start, end, slept in rows) + cut)


def test_the_summary_splits_warm_up_from_later_generations_and_leaves_out_the_unlogged_end(tmp_path):
    """Generations one second apart from t = 10. Actor 0 works without a pause from before
    generation 0 to t = 17.5, each call asleep for half of it (the call that straddles an edge
    is split between windows). Actor 1 sleeps all of its calls: 0.2 s each with 0.8 s waits
    before t = 13, 0.5 s each with 0.5 s waits after. Both stop logging at 17.5 (their last calls
    killed, one line cut short), so the later generations end at t = 17, the last edge both
    logged past; the waits counted are those between calls inside [13, 17]."""
    edges = [10.0 + g for g in range(10)]
    _log(tmp_path, 0, [(9.0, 11.5, 1.25), (11.5, 17.5, 3.0)])
    early = [(s + 0.8, s + 1.0, 0.2) for s in np.arange(9.0, 13.0)]
    late = [(s + 0.5, s + 1.0, 0.5) for s in np.arange(13.0, 17.0)]
    _log(tmp_path, 1, early + late + [(17.0, 17.5, 0.5)], cut="17.5 18")
    summary = summarise(tmp_path, edges, workers=2)
    # generations 1-3, [10, 13): actor 0 in a call 3 s, asleep 1.5; actor 1 0.6 s, all asleep
    assert summary["warm_up_busy"] == pytest.approx(3.6 / 6)
    assert summary["warm_up_overhead"] == pytest.approx(1 - 2.1 / 3.6)
    # later, [13, 17): actor 0 4 s, asleep 2; actor 1 2 s, all asleep
    assert summary["later_busy"] == pytest.approx(6.0 / 8)
    assert summary["later_overhead"] == pytest.approx(1 - 4.0 / 6.0)
    # actor 1's waits inside [13, 17]: four of 0.5 s and none before its call at 17 (not the 0.8 s ones)
    assert summary["gap_median_ms"] == pytest.approx(500.0)
    assert summary["gap_p90_ms"] == pytest.approx(500.0)


def test_a_summary_of_nothing_or_of_one_burst_is_empty_not_an_error(tmp_path):
    assert summarise(tmp_path, [1.0, 2.0, 3.0], workers=1) == {}
    _log(tmp_path, 0, [(0.0, 5.0, 5.0)])
    assert summarise(tmp_path, [1.0], workers=1) == {}
    burst = summarise(tmp_path, [1.0, 1.0, 1.0, 1.0, 1.0], workers=1)  # an epoch's generations at once
    assert "later_busy" not in burst and "warm_up_busy" not in burst
    assert describe(burst).startswith("busy - (")
