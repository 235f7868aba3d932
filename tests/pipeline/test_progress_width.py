"""The live progress bar fits its terminal: at 80 columns generation, elapsed and ETA stay whole
(issue 44: rich shrank every column and they read `0:0…`); the best figure's label, the rate
and the bar's width give way first, and a wide terminal shows everything."""

import re

import pytest
from rich.console import Console

from pipeline.progress import RunProgress

TIME = r"\d+:\d\d:\d\d|-:--:--"


def _row(generation: int, evaluations: int) -> dict:
    return {"generation": generation, "evaluations": evaluations, "wall_seconds": 0.002,
            "best_optimal_move_rate": 0.949312, "mean_optimal_move_rate": 0.1021234}


def frames(width: int, failures: int = 0) -> list[str]:
    """The bar as rich draws it on a terminal `width` columns wide, after each of three
    generations: printed to a recording console and read back as text."""
    output = Console(width=width, record=True, force_terminal=True, color_system=None)
    progress = RunProgress(live=True, output=output)
    progress.on_start(1500, 0, "optimal_move_rate")
    for generation, evaluations in ((0, 400), (712, 300_000_000), (1499, 600_000_000)):
        progress.on_generation(dict(_row(generation, evaluations), worker_failures=failures))
        output.print(progress._progress.get_renderable())
    lines = output.export_text().splitlines()
    assert len(lines) == 3, lines  # a line each, never wrapped
    return lines


@pytest.mark.parametrize("failures", [0, 3])
def test_at_80_columns_generation_elapsed_and_eta_stay_whole(failures):
    for line in frames(80, failures):
        assert len(line) <= 80
        assert re.match(r"gen +\d+/1500 ", line), line
        assert re.search(rf"(?:^| )({TIME}) ETA ({TIME})$", line), line  # neither cut to `0:0…`
        assert "best 0.9493" in line  # the figure stays, its metric's name gives way
        assert bool(re.search(r"\b\d+ failed\b", line)) == bool(failures)  # worker failures, shortened


def test_a_wide_terminal_shows_every_field_and_the_widest_bar():
    line = frames(200, failures=3)[1]
    assert "best optimal_move_rate 0.9493 · mean 0.1021" in line and "evals/s" in line
    assert "worker failures 6" in line  # 3 in each of two generations
    assert re.match(r"gen  712/1500 [━╸ ]{40} \d", line)  # a bar 40 wide
    assert re.search(rf"({TIME}) ETA ({TIME})$", line)


@pytest.mark.parametrize("width", [60, 70, 80, 90, 100, 120])
def test_no_width_from_60_columns_cuts_the_times(width):
    for line in frames(width, failures=12):
        assert len(line) < width and re.search(rf" ({TIME}) ETA ({TIME})$", line), (width, line)
