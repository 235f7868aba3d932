"""`evo report`: plots and a short markdown summary of a run, from its logs alone."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no screen needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .rundir import RunDir  # noqa: E402

__all__ = ["write_report"]


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _objective_names(generations: pd.DataFrame) -> list[str]:
    return [c[len("best_"):] for c in generations.columns if c.startswith("best_")]


def _plot_objectives(generations: pd.DataFrame, out: Path) -> Path:
    names = _objective_names(generations)
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.6 * len(names)), sharex=True, squeeze=False)
    x = generations["generation"]
    for ax, name in zip(axes[:, 0], names):
        mean, std = generations[f"mean_{name}"], generations[f"std_{name}"]
        ax.fill_between(x, mean - std, mean + std, alpha=0.25, label="mean ± std")
        ax.plot(x, mean, label="mean")
        ax.plot(x, generations[f"best_{name}"], label="best", linewidth=2)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="best", fontsize=8)
    axes[-1, 0].set_xlabel("generation")
    fig.suptitle("Objectives per generation (population)")
    return _save(fig, out / "objectives.png")


def _plot_diversity(generations: pd.DataFrame, out: Path) -> Path:
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.plot(generations["generation"], generations["diversity"])
    ax.set_xlabel("generation")
    ax.set_ylabel("diversity")
    ax.grid(alpha=0.3)
    return _save(fig, out / "diversity.png")


def _plot_table(best: dict, out: Path) -> Path:
    genome = np.asarray(best["hall_of_fame"][0]["genome"], dtype=float)
    columns = best["task"]["genome"].get("columns", [str(i) for i in range(genome.shape[1])])
    fig, ax = plt.subplots(figsize=(1.5 + 1.2 * genome.shape[1], 1 + 0.35 * genome.shape[0]))
    image = ax.imshow(genome, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(genome.shape[1]), columns, rotation=30, ha="right")
    ax.set_yticks(range(genome.shape[0]))
    ax.set_ylabel(f"feature: {best['task']['genome'].get('feature', '')}")
    fig.colorbar(image, ax=ax, label="probability")
    ax.set_title("Best strategy table")
    return _save(fig, out / "best_table.png")


def _plot_parameters(individuals: pd.DataFrame, primary: str, out: Path) -> Path:
    """Trajectory of each parameter of the best individual of every generation."""
    key = primary if primary in individuals.columns else "fitness"
    best_rows = (individuals.sort_values(["generation", key], ascending=[True, False])
                 .groupby("generation").head(1))
    params = pd.DataFrame(list(best_rows["genome"]), index=best_rows["generation"])
    numeric = [c for c in params.columns if pd.api.types.is_numeric_dtype(params[c])]
    fig, axes = plt.subplots(len(numeric), 1, figsize=(8, 1.6 * max(len(numeric), 1)), sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], numeric):
        ax.step(params.index, params[name], where="post")
        ax.set_ylabel(name, rotation=0, ha="right", fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("generation")
    fig.suptitle("Parameters of each generation's best individual")
    return _save(fig, out / "parameters.png")


def write_report(run_dir: str | Path) -> list[Path]:
    """Write report/*.png and report/summary.md; returns the files written."""
    rundir = RunDir(run_dir)
    meta = rundir.read_run()
    generations = pd.DataFrame(rundir.read_generations())
    if generations.empty:
        raise ValueError(f"{rundir.path}: no complete generation to report on yet")
    best = rundir.read_best()
    out = rundir.report_dir
    out.mkdir(exist_ok=True)
    files = [_plot_objectives(generations, out), _plot_diversity(generations, out)]
    kind = best["kind"]
    if kind == "table":
        files.append(_plot_table(best, out))
    elif kind == "rules":
        files.append(_plot_parameters(rundir.read_individuals(), best["primary"], out))
    files.append(_summary(meta, generations, best, out, files))
    return files


def best_expression(best: dict) -> str | None:
    """The first hall-of-fame expression, simplified (None for other genome kinds)."""
    if best["kind"] != "expression":
        return None
    from fitness.nim.expression import parse, simplify, to_string

    return to_string(simplify(parse(best["hall_of_fame"][0]["genome"])))


def _summary(meta: dict, generations: pd.DataFrame, best: dict, out: Path, plots: list[Path]) -> Path:
    last = generations.iloc[-1]
    top = best["hall_of_fame"][0]
    lines = [
        f"# Run {meta['run_id']}",
        "",
        f"- status: {meta.get('status')} ({meta.get('stop_reason', '-')})",
        f"- problem: {meta['spec'].get('problem')}, genome: {best['kind']}, seed {meta['seed']}",
        f"- generations: {int(last['generation'])}, evaluations: {int(last['evaluations']):,}, "
        f"elapsed {last['elapsed_seconds']:.1f} s",
        f"- best individual: id {top['id']} (generation {top['generation']}), "
        + ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}" for k, v in top["objectives"].items()),
        "",
        "| objective | best (last gen) | mean (last gen) |",
        "|---|---|---|",
    ]
    for name in _objective_names(generations):
        lines.append(f"| {name} | {last[f'best_{name}']:.4g} | {last[f'mean_{name}']:.4g} |")
    expression = best_expression(best)
    if expression is not None:
        lines += ["", f"Best expression, simplified: `{expression}`"]
    lines += ["", *[f"![{p.stem}]({p.name})" for p in plots], ""]
    path = out / "summary.md"
    path.write_text("\n".join(lines))
    return path
