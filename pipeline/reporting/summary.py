"""What a run's report says in words: the facts as plain data, then markdown.

The best individual's figures come from best.json (for sampled fitness: the
verdict, re-scored on fresh games, with its 95% intervals), never from
per-column maxima of the population, which may belong to different members.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .figures import constant_objectives, objective_names

__all__ = ["Summary", "best_expression", "summarise", "to_markdown"]


@dataclass
class Summary:
    title: str
    facts: list[tuple[str, str]]  # (label, value)
    best_header: list[str]
    best_rows: list[list[str]]
    population_rows: list[list[str]]  # objective, population best, population mean
    diversity: str
    notes: list[str] = field(default_factory=list)


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{int(value):,}" if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def best_expression(best: dict) -> str | None:
    """The first hall-of-fame expression, simplified (None for other genome kinds)."""
    if best["kind"] != "expression":
        return None
    from fitness.nim.expression import parse, simplify, to_string

    return to_string(simplify(parse(best["hall_of_fame"][0]["genome"])))


def summarise(meta: dict, generations: pd.DataFrame, best: dict, diversity: str) -> Summary:
    last = generations.iloc[-1]
    spec = meta["spec"]
    top = best["hall_of_fame"][0]
    facts = [
        ("run", meta["run_id"]),
        ("status", f"{meta.get('status')} ({meta.get('stop_reason', '-')})"),
        ("problem", f"{spec.get('problem')}, genome {best['kind']}, seed {meta['seed']}"),
        ("generations", f"0-{int(last['generation'])} (generation 0 is the first population)"),
        ("evaluations", f"{int(last['evaluations']):,} in {last['elapsed_seconds']:.1f} s"),
        ("best individual", f"id {top['id']}, born in generation {top['generation']}"),
    ]
    intervals = top.get("intervals") or {}
    selection = top.get("selection_objectives") or {}
    header = ["objective", "best individual"] + (["95% interval"] if intervals else []) \
        + (["as selection saw it"] if selection else [])
    rows = []
    for name, value in top["objectives"].items():
        row = [name, _number(value)]
        if intervals:
            low_high = intervals.get(name)
            row.append(f"{low_high[0]:.4f} - {low_high[1]:.4f}" if low_high else "")
        if selection:
            row.append(_number(selection.get(name, "")))
        rows.append(row)
    population = [[name, _number(float(last[f"best_{name}"])), _number(float(last[f"mean_{name}"]))]
                  for name in objective_names(generations)]
    notes = []
    verdict = best.get("verdict")
    if verdict:
        notes.append(f"The best individual's figures were measured again at the end of the run on "
                     f"{verdict['games']:,} fresh games per sampled opponent ({', '.join(verdict['sampled'])}); "
                     "'as selection saw it' are the figures it was selected on.")
    for name, value in constant_objectives(generations).items():
        notes.append(f"{name} was {_number(value)} for every member of every generation (no panel drawn).")
    expression = best_expression(best)
    if expression is not None:
        notes.append(f"Best expression, simplified: `{expression}`")
    return Summary(f"Run {meta['run_id']}", facts, header, rows, population, diversity, notes)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *["| " + " | ".join(row) + " |" for row in rows]]


def to_markdown(summary: Summary, figures: list[str]) -> str:
    lines = [f"# {summary.title}", "", *[f"- {label}: {value}" for label, value in summary.facts], "",
             "## Best individual (best.json)", "", *_table(summary.best_header, summary.best_rows), "",
             "## Population after the last generation", "",
             "Per objective, over the members alive then (the best of each column may be a different member):", "",
             *_table(["objective", "population best", "population mean"], summary.population_rows), "",
             f"Diversity: {summary.diversity}.", ""]
    if summary.notes:
        lines += [*[f"- {note}" for note in summary.notes], ""]
    lines += [f"![{name}]({name})" for name in figures] + [""]
    return "\n".join(lines)
