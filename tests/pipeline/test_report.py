"""Reports: every figure names its run, generations are whole numbers, rates stay in [0, 1],
the summary shows one individual's own figures, report.html is self-contained and renders
in a real headless browser, and `--compare` overlays runs."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.cli import main
from pipeline.report import report_figures, write_comparison, write_report
from pipeline.reporting.common import RunLogs, band, is_rate
from pipeline.reporting.compare import comparison_figure, run_labels
from pipeline.reporting.summary import fmt, to_html
from pipeline.runner import start_run
from pipeline.spec import load_spec

from .test_runs import NIM_SPEC, SETCOVER_SPEC


def _run(root: Path, text: str, name: str, **changes) -> Path:
    spec_path = root / f"{name}.toml"
    spec_path.write_text(text)
    return start_run(load_spec(spec_path, {"execution.output": str(root / name), **changes}))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Tiny runs: 3 generations (0-2), the length that used to get 0.5 ticks."""
    root = tmp_path_factory.mktemp("report-runs")
    return {
        "table": _run(root, NIM_SPEC.format(generations=2, kind="table", games=10), "table"),
        "table-seed-2": _run(root, NIM_SPEC.format(generations=2, kind="table", games=10), "table2", seed=2),
        "rules": _run(root, NIM_SPEC.format(generations=2, kind="rules", games=10), "rules"),
        "setcover": _run(root, SETCOVER_SPEC, "setcover"),
    }


def _axes(fig):
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


@pytest.mark.parametrize("kind", ["table", "rules", "setcover"])
def test_every_figure_names_its_run_with_whole_generations_and_rates_in_0_1(runs, kind):
    meta = json.loads((runs[kind] / "run.json").read_text())
    figures = report_figures(runs[kind])
    expected = {"objectives", "diversity"} | {"table": {"best_table"}, "rules": {"parameters"}}.get(kind, set())
    assert set(figures) == expected
    try:
        for stem, fig in figures.items():
            title = fig._suptitle.get_text()
            assert meta["run_id"] in title and meta["spec"]["name"] in title and f"seed {meta['seed']}" in title, stem
            for ax in _axes(fig):
                if ax.get_xlabel() == "generation":
                    low, high = ax.get_xlim()
                    ticks = [t for t in ax.get_xticks() if low <= t <= high]
                    assert ticks and all(float(t).is_integer() for t in ticks), (stem, ticks)
                if is_rate(ax.get_ylabel()):
                    low, high = ax.get_ylim()
                    assert 0 <= low < high <= 1, (stem, ax.get_ylabel(), low, high)
                    for collection in ax.collections:  # the mean ± std band
                        for path in collection.get_paths():
                            assert (path.vertices[:, 1] >= 0).all() and (path.vertices[:, 1] <= 1).all()
    finally:
        plt.close("all")


def test_parameters_draw_the_last_generation_as_wide_as_the_others(runs):
    fig = report_figures(runs["rules"])["parameters"]
    try:
        for ax in _axes(fig):
            steps = [p for p in ax.patches if hasattr(p, "get_data")]
            assert steps
            edges = steps[0].get_data().edges
            assert np.allclose(np.diff(edges), 1.0)  # generations 0, 1, 2: three steps of width 1
            assert len(edges) == 4 and ax.get_xlim()[1] >= edges[-1]
    finally:
        plt.close("all")


def test_a_constant_objective_is_named_not_drawn(runs):
    gens = pd.read_parquet(runs["setcover"] / "generations")
    assert gens["best_covered"].nunique() == 1  # every cover is complete after repair
    fig = report_figures(runs["setcover"])["objectives"]
    try:
        assert [ax.get_ylabel() for ax in _axes(fig)] == ["cost"]
        assert "covered = 100" in fig._suptitle.get_text()
    finally:
        plt.close("all")
    write_report(runs["setcover"])
    assert "covered = 100" in (runs["setcover"] / "report" / "summary.md").read_text()


def _markdown_tables(markdown: str) -> list[pd.DataFrame]:
    tables, lines = [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            lines.append(line)
        elif lines:
            header = [c.strip() for c in lines[0].strip("|").split("|")]
            tables.append(pd.DataFrame([[c.strip() for c in row.strip("|").split("|")] for row in lines[2:]],
                                       columns=header))
            lines = []
    return tables


def _summary_table(markdown: str) -> pd.DataFrame:
    return _markdown_tables(markdown)[0].set_index("objective")


@pytest.mark.parametrize("kind", ["table", "setcover"])
def test_summary_shows_the_best_individuals_own_figures(runs, kind):
    write_report(runs[kind])
    text = (runs[kind] / "report" / "summary.md").read_text()
    top = json.loads((runs[kind] / "best.json").read_text())["hall_of_fame"][0]
    table = _summary_table(text)
    for name, value in top["objectives"].items():
        if name in table.index:
            assert table.loc[name, "best individual"] == fmt(value)
    if "intervals" in top:  # sampled fitness: the fresh figures come with their intervals
        assert "95% interval" in table.columns
        for name, (low, high) in top["intervals"].items():
            assert table.loc[name, "95% interval"] == f"{fmt(low)} – {fmt(high)}"
    assert any("population best, last gen" in c for c in table.columns)
    assert "may come from different individuals" in text
    assert "`diversity`" in text and "0: every member identical" in text


def test_report_html_is_self_contained_and_names_its_run(runs):
    files = write_report(runs["table"])
    assert {p.name for p in files} == {"objectives.png", "diversity.png", "best_table.png", "summary.md",
                                       "report.html"}
    page = (runs["table"] / "report" / "report.html").read_text()
    run_id = json.loads((runs["table"] / "run.json").read_text())["run_id"]
    assert page.count("data:image/png;base64,") == 3
    assert not re.search(r'(src|href)="(?!data:)', page)  # nothing to fetch
    assert page.count(run_id) >= 4  # the title and every figure's caption
    assert "total-variation distance" in page  # what diversity means for tables


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _headless(tmp_path: Path, page: Path, *flags: str) -> str:
    """Open `page` in headless chromium with `flags` (skipped without one, failed where CI needs one); its stdout."""
    browser = _browser()
    if browser is None:
        if os.environ.get("EVO_REQUIRE_BROWSER"):
            pytest.fail("EVO_REQUIRE_BROWSER is set but no chromium is installed (.ci/run installs it)")
        pytest.skip("no chromium on this machine (apt-get install -y chromium); CI requires it")
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", *flags, page.resolve().as_uri()],
        check=True, timeout=120, capture_output=True, text=True).stdout


def test_report_html_renders_in_a_headless_browser(runs, tmp_path):
    write_report(runs["table"])
    page = runs["table"] / "report" / "report.html"
    shot = tmp_path / "shot.png"
    _headless(tmp_path, page, f"--screenshot={shot}", "--window-size=1200,2000")
    image = matplotlib.image.imread(shot)[..., :3]
    assert image.shape[:2] == (2000, 1200)
    ink = (image < 0.9).any(axis=2)  # anything not (near) white: text, table rules, plots
    assert ink.mean() > 0.02, f"the rendered page is nearly blank ({ink.mean():.2%} ink)"
    assert image.std() > 0.05
    colourful = (image.max(axis=2) - image.min(axis=2)) > 0.3  # the plots' coloured lines and heat map
    assert colourful.mean() > 0.002


# Run in the page once it has laid out: what reaches past the body's right edge (outside a box
# that scrolls), which table boxes scroll, and the page's own widths.
_OVERFLOW_CHECK = """<script>
window.addEventListener("load", () => {
  const root = document.documentElement, right = document.body.getBoundingClientRect().right;
  const boxed = el => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
                          if (getComputedStyle(a).overflowX !== "visible") return true; return false; };
  const over = [...document.body.querySelectorAll("*")].filter(el => !boxed(el))
    .filter(el => el.getBoundingClientRect().right > right + 0.5).map(el => el.tagName);
  const scrolled = [...document.querySelectorAll("div.table")].filter(d => d.scrollWidth > d.clientWidth)
    .map(d => d.textContent.slice(0, 60));
  const out = document.createElement("pre");
  out.id = "overflow";
  out.textContent = JSON.stringify({page: root.scrollWidth, window: root.clientWidth, over, scrolled});
  document.body.appendChild(out);
});
</script>"""


def test_a_converged_runs_hall_of_fame_fits_a_1280_px_window(runs, tmp_path):
    """Issue 44: a converged run's hall-of-fame row (1 distinct genome, its copies listed) ran
    off the page at 1280 px. The copies are made here as selection makes them, the same
    genome under new ids, in a copy of the rules run (the widest table: every win rate)."""
    run = tmp_path / "converged"
    shutil.copytree(runs["rules"], run)
    best = json.loads((run / "best.json").read_text())
    top = best["hall_of_fame"][0]
    best["hall_of_fame"] = [top] + [dict(top, id=1_000_000 + 7 * i) for i in range(30)]
    (run / "best.json").write_text(json.dumps(best))
    write_report(run)
    page = (run / "report" / "report.html").read_text()
    assert "30 (ids 1000000, 1000007," in page and "1 distinct genome" in page
    checked = run / "report" / "checked.html"
    checked.write_text(page.replace("</body>", _OVERFLOW_CHECK + "</body>"))
    dom = _headless(tmp_path, checked, "--window-size=1280,900", "--virtual-time-budget=5000", "--dump-dom")
    found = re.search(r'<pre id="overflow">(.*?)</pre>', dom)
    assert found, "the check did not run"
    widths = json.loads(html.unescape(found.group(1)))
    assert widths["page"] <= widths["window"], widths  # no sideways scrolling of the page
    assert widths["over"] == [] and widths["scrolled"] == [], widths  # every table fits, none scrolls


def test_long_cells_wrap_and_tables_scroll_in_their_own_box():
    page = to_html([("table", ["rank", "win_rate_expert", "identical copies"],
                     [["0", "0.9", "30 (ids 1000000, 1000007, 1000014, 1000021)"], ["1", "0.8", "–"]])])
    assert page.startswith('<div class="table"><table>') and page.endswith("</table></div>")
    assert '<td class="text">30 (ids 1000000,' in page and "<td>0.9</td>" in page and "<td>–</td>" in page
    assert "<th>win_<wbr>rate_<wbr>expert</th>" in page  # a long column name may break after _


def test_compare_overlays_every_run_with_a_legend_naming_each(runs, tmp_path, capsys):
    chosen = [runs["table"], runs["table-seed-2"]]
    out = tmp_path / "cmp"
    assert main(["report", "--compare", *map(str, chosen), "--out", str(out)]) == 0
    written = {p.name for p in out.iterdir()}
    assert {"compare.png", "compare_evaluations.png", "compare.html"} <= written
    assert str(out / "compare.html") in capsys.readouterr().out
    from pipeline.reporting.common import load_run

    logs = [load_run(p) for p in chosen]
    labels = run_labels(logs)
    assert labels == ["table · seed 11", "table2 · seed 2"]
    for x in ("generation", "evaluations"):
        fig = comparison_figure(logs, x)
        try:
            for ax in fig.axes:
                if ax.get_legend() is not None:
                    legend = [t.get_text() for t in ax.get_legend().get_texts()]
                    assert all(any(label in entry for entry in legend) for label in labels)
                assert len(ax.get_lines()) == 2 * len(chosen)  # best and mean of each run
                if is_rate(ax.get_ylabel()):
                    assert 0 <= ax.get_ylim()[0] and ax.get_ylim()[1] <= 1
            assert all(float(t).is_integer() for t in fig.axes[-1].get_xticks())
        finally:
            plt.close(fig)
    page = (out / "compare.html").read_text()
    assert all(label in page for label in labels)
    assert write_comparison(chosen, tmp_path / "api")[-1] == tmp_path / "api" / "compare.html"


@pytest.mark.parametrize("args, expected", [
    (["--compare", "{table}", "{missing}"], "no such run directory"),
    (["--compare", "{table}"], "at least two run directories"),
    (["--compare", "{table}", "{setcover}"], "share no objective"),
    ([], "give a run directory"),
    (["{table}", "--compare", "{table}", "{rules}"], "not both"),
])
def test_compare_refuses_in_one_line(runs, tmp_path, capsys, args, expected):
    names = {**{k: str(v) for k, v in runs.items()}, "missing": str(tmp_path / "nope")}
    assert main(["report", *[a.format(**names) for a in args], "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1


def _fake_run(name: str, seed: int, folder: str) -> RunLogs:
    return RunLogs(Path("/runs") / folder, {"spec": {"name": name}, "seed": seed, "run_id": f"{name}-s{seed}"},
                   pd.DataFrame(), {"kind": "table"})


@given(st.lists(st.tuples(st.sampled_from(["nim-table", "nim-table-sampled"]), st.integers(0, 3),
                          st.sampled_from(["a", "b", "c"])), min_size=2, max_size=6, unique_by=lambda t: t[2]))
def test_legend_labels_are_distinct_for_distinct_run_directories(triples):
    labels = run_labels([_fake_run(*t) for t in triples])
    assert len(set(labels)) == len(labels)
    for (name, seed, _), label in zip(triples, labels):
        assert label.startswith(f"{name} · seed {seed}")


@given(st.sampled_from(["win_rate_expert", "optimal_move_rate", "cost", "size"]), st.data())
def test_the_std_band_never_leaves_what_the_quantity_can_be(name, data):
    top = 1.0 if is_rate(name) else 500.0
    means = data.draw(st.lists(st.floats(0, top), min_size=1, max_size=20))
    stds = data.draw(st.lists(st.floats(0, top), min_size=len(means), max_size=len(means)))
    mean, std = pd.Series(means), pd.Series(stds)
    low, high = band(mean, std, name, mean.to_numpy())
    assert (low <= mean.to_numpy() + 1e-12).all() and (mean.to_numpy() <= high + 1e-12).all()
    assert (low >= 0).all()
    if is_rate(name):
        assert (high <= 1).all()
