"""Reports: figures titled with their run and honest axes, the best individual's own figures,
a self-contained HTML report that a real headless browser renders, and comparisons."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

import pipeline
from pipeline.cli import main
from pipeline.kinds import diversity_definition
from pipeline.reporting import figures
from pipeline.reporting.compare import comparison_figure
from pipeline.rundir import RunDir
from tests.pipeline.test_runs import NIM_SPEC, SETCOVER_SPEC

SHORT = NIM_SPEC.format(generations=3, kind="rules", games=20)


def _run(tmp_path: Path, text: str, name: str, **overrides) -> pipeline.Run:
    spec = tmp_path / f"{name}.toml"
    spec.write_text(text)
    return pipeline.run(spec, out=str(tmp_path / name), **overrides)


@pytest.fixture(scope="module")
def nim_run(tmp_path_factory) -> pipeline.Run:
    return _run(tmp_path_factory.mktemp("report"), SHORT, "nim")


def test_objective_axes_are_titled_with_integer_generations_and_shares_within_0_1(nim_run):
    generations = nim_run.generations()
    fig = figures.objectives_figure(generations, "RUN-TITLE")
    assert "RUN-TITLE" in fig._suptitle.get_text()
    fig.canvas.draw()
    for ax in fig.axes:
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert all(float(t).is_integer() for t in ticks), ticks  # no generation 0.5
        name = ax.get_ylabel()
        if figures.is_share(name):
            low, high = ax.get_ylim()
            assert -0.05 <= low and high <= 1.05
            band = ax.collections[0].get_paths()[0].vertices[:, 1]
            assert band.min() >= 0.0 and band.max() <= 1.0  # mean ± std is clipped to what a rate can be
    plt.close(fig)


def test_flat_objectives_get_no_panel_but_a_note(tmp_path):
    run = _run(tmp_path, SETCOVER_SPEC, "cover")
    generations = run.generations()
    assert "covered" in figures.constant_objectives(generations)
    fig = figures.objectives_figure(generations, "t")
    assert [ax.get_ylabel() for ax in fig.axes] == ["cost"]
    plt.close(fig)
    files = run.report()
    summary = next(f for f in files if f.name == "summary.md").read_text()
    assert "covered was 100 for every member of every generation" in summary


def test_the_last_generation_of_a_parameter_trajectory_has_width(nim_run):
    members = nim_run.populations()
    best = members[members["rank"] == 0]
    fig = figures.parameters_figure(best, "t")
    last = int(best["generation"].max())
    for ax in fig.axes:
        for line in ax.get_lines():
            assert line.get_xdata().max() == last + 1
    plt.close(fig)


def test_summary_shows_the_best_individual_own_figures_and_defines_diversity(nim_run):
    files = nim_run.report()
    assert {f.name for f in files} == {"objectives.png", "diversity.png", "parameters.png", "summary.md",
                                       "report.html"}
    summary = (nim_run.path / "report" / "summary.md").read_text()
    top = nim_run.best(1).iloc[0]
    best_section = summary.split("## Best individual")[1].split("##")[0]
    for name in ("win_rate_expert", "win_rate_random", "win_rate_minimax"):
        value = float(top[name])
        shown = re.search(rf"\| {name} \| ([0-9.,]+) \|", best_section).group(1)
        assert float(shown.replace(",", "")) == pytest.approx(value, abs=5e-4)
        low, high = top[f"{name}_low"], top[f"{name}_high"]  # the verdict's interval is shown beside it
        assert f"{low:.4f} - {high:.4f}" in best_section
    assert diversity_definition("rules") in summary
    assert "may be a different member" in summary


def test_the_html_report_is_self_contained(nim_run):
    nim_run.report()
    document = (nim_run.path / "report" / "report.html").read_text()
    assert nim_run.run_id in document
    assert document.count('src="data:image/png;base64,') == 3
    assert not re.search(r'(src|href)="(?!data:)', document)  # nothing fetched from anywhere


def _browser() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def test_a_headless_browser_renders_the_html_report(nim_run, tmp_path):
    browser = _browser()
    if browser is None:
        if os.environ.get("EVO_REQUIRE_BROWSER"):
            pytest.fail("EVO_REQUIRE_BROWSER is set but no chromium is installed (apt-get install chromium)")
        pytest.skip("no chromium here; .ci/run installs it and sets EVO_REQUIRE_BROWSER")
    nim_run.report()
    shot = tmp_path / "shot.png"
    profile = tempfile.mkdtemp(prefix="evo-chromium-")
    try:
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1000,1600",
                        (nim_run.path / "report" / "report.html").as_uri()],
                       capture_output=True, timeout=90, check=True)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    pixels = plt.imread(shot)[..., :3]
    assert pixels.shape[:2] == (1600, 1000)
    dark = (pixels.mean(axis=2) < 0.5).mean()  # text, axes and lines
    coloured = (pixels.std(axis=2) > 0.15).mean()  # the plotted lines and bands
    assert dark > 0.003 and coloured > 0.001, (dark, coloured)


def test_compare_overlays_each_run_best_and_mean(tmp_path):
    first = _run(tmp_path, SHORT, "a")
    second = _run(tmp_path, SHORT, "b", seed=12)
    exact = _run(tmp_path, SHORT.replace("expert = 20, random = 20, minimax = 20",
                                         'expert = "exact", random = "exact", minimax = "exact"'), "c")
    runs = [(r.run_id, r.generations()) for r in (first, second, exact)]
    fig = comparison_figure(runs)
    for ax in fig.axes:
        labels = [line.get_label() for line in ax.get_lines()]
        assert labels == [f"{r.run_id} {what}" for r in (first, second, exact) for what in ("best", "mean")]
    plt.close(fig)
    assert main(["report", "--compare", str(first.path), str(second.path), str(exact.path),
                 "--out", str(tmp_path / "cmp")]) == 0
    document = (tmp_path / "cmp" / "compare.html").read_text()
    assert all(r.run_id in document for r in (first, second, exact))
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 10_000


def test_compare_refuses_in_one_line(tmp_path, capsys):
    run = _run(tmp_path, SHORT, "a")
    assert main(["report", "--compare", str(run.path), str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such run directory" in err[0]
    assert main(["report", "--compare", str(run.path)]) == 2
    assert "at least two run directories" in capsys.readouterr().err
    cover = _run(tmp_path, SETCOVER_SPEC, "cover")
    assert main(["report", "--compare", str(run.path), str(cover.path)]) == 2
    assert "share no objective" in capsys.readouterr().err


def test_a_report_of_a_run_in_progress_reads_its_committed_generations(tmp_path):
    run = _run(tmp_path, SHORT, "live")
    RunDir(run.path).update_run(status="running")
    assert pipeline.open_run(run.path).report()
    assert "status: running" in (run.path / "report" / "summary.md").read_text()
