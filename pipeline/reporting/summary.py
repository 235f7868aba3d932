"""A run's summary as plain blocks (paragraphs, lists, tables), rendered to Markdown or HTML.

'Best individual' is one individual's own figures (best.json's first hall-of-fame
entry: for sampled fitness the fresh re-scoring with its 95% intervals); the
population columns say plainly that they are per-column extremes of the last
generation, which may come from different individuals.
"""

from __future__ import annotations

import html
import numbers
from typing import Any

from ..evolution.async_loop import auto_in_flight
from ..spec_execution import FIXED_IN_FLIGHT
from .common import DIVERSITY, DIVERSITY_SCALE, USER_KIND_DIVERSITY, RunLogs, constant_objectives
from .archive import archive_blocks
from .pareto import front_blocks
from .workers import WorkerUse

__all__ = ["summary_blocks", "to_markdown", "to_html", "best_expression", "fmt"]

Block = tuple  # ("p", text) | ("ul", [text]) | ("table", header, rows) | ("code", text) | ("h2", text)


def fmt(value: Any) -> str:
    """One way per number, whatever its type: whole numbers with thousands separators (an
    int from best.json and the same float from generations.parquet read alike), large
    fractions to one decimal, small ones to four significant digits."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        value = float(value)
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.1f}" if abs(value) >= 1000 else f"{value:.4g}"
    return str(value)


def best_expression(best: dict) -> str | None:
    """The first hall-of-fame expression, simplified (None for other genome kinds)."""
    if best["kind"] != "expression":
        return None
    from fitness.nim.expression import parse, simplify, to_string

    return to_string(simplify(parse(best["hall_of_fame"][0]["genome"])))


def _best_table(run: RunLogs) -> list[Block]:
    top = run.best["hall_of_fame"][0]
    last = run.generations.iloc[-1]
    own, intervals = top.get("objectives", {}), top.get("intervals", {})
    seen = top.get("selection_objectives")
    verdict = run.best.get("verdict")
    header = ["objective", "best individual"]
    if intervals:
        header.append("95% interval")
    if seen:
        header.append("seen by selection")
    header += ["population best, last gen ¹", "population mean, last gen"]
    rows = []
    for name in run.objectives:
        value = _objective(top, name)
        row = [name, fmt(value) if value is not None else "–"]
        if intervals:
            row.append(" – ".join(fmt(v) for v in intervals[name]) if name in intervals else "")
        if seen:
            row.append(fmt(seen[name]) if name in seen else "")
        row += [fmt(float(last[f"best_{name}"])), fmt(float(last[f"mean_{name}"]))]
        rows.append(row)
    blocks: list[Block] = [("h2", f"Best individual: id {top['id']}, born in generation {top['generation']}")]
    if verdict:
        blocks.append(("p", f"Its win rates are a fresh evaluation on {verdict['games']:,} games per sampled "
                            f"opponent ({', '.join(verdict['sampled'])}), not the noisy figures selection saw."))
    counts = [f"{name[len('wins_'):]}: {own[name]:,} of {own['games_' + name[len('wins_'):]]:,} games"
              for name in own if name.startswith("wins_") and f"games_{name[len('wins_'):]}" in own]
    if counts:
        blocks.append(("p", "Games won: " + "; ".join(counts) + "."))
    blocks.append(("table", header, rows))
    blocks.append(("p", "¹ Each objective's best value over the last generation's population, column by column: "
                        "the figures may come from different individuals."))
    return blocks


HALL_OF_FAME_ROWS = 5


def _objective(entry: dict, name: str) -> Any:
    """An entry's own figure for an objective column (`fitness` is its first fitness value)."""
    own = entry.get("objectives", {})
    return own.get(name, entry.get("fitness", [None])[0] if name == "fitness" else None)


def _hall_of_fame(run: RunLogs) -> list[Block]:
    """The hall of fame, each genome once (identical genomes under other ids counted)."""
    from ..hall_of_fame import distinct_entries

    hall = run.best["hall_of_fame"]
    entries = distinct_entries(hall)
    header = ["rank", "id", "born", *run.objectives, "identical copies"]
    rows = []
    for rank, (entry, copies) in enumerate(entries[:HALL_OF_FAME_ROWS]):
        value = [_objective(entry, name) for name in run.objectives]
        rows.append([str(rank), str(entry["id"]), str(entry["generation"]),
                     *(fmt(v) if v is not None else "–" for v in value),
                     f"{len(copies)} (ids {', '.join(map(str, copies))})" if copies else "–"])
    shown = f"; the first {HALL_OF_FAME_ROWS} shown" if len(entries) > HALL_OF_FAME_ROWS else ""
    return [("h2", "Hall of fame"),
            ("p", f"best.json holds {len(hall)} entries: {len(entries)} distinct "
                  f"genome{'' if len(entries) == 1 else 's'}{shown}. An identical "
                  "genome made again under another id is listed once, its copies counted."),
            ("table", header, rows)]


def _islands_note(spec: dict[str, Any]) -> list[str]:
    islands = spec.get("islands")
    if not islands:
        return []
    size, offspring = spec["population"]["size"], spec["population"]["offspring"]
    moves = (f"each sends copies of its best {islands['migrants']} every {islands['interval']} generations "
             f"({islands['topology']} topology), replacing the worst" if islands["count"] > 1 and islands["migrants"]
             else "no migration")
    steady = spec["population"].get("algorithm") == "steady-state"
    loops = ("; steady-state, each island its own loop" if islands.get("loop") == "own"
             else "; steady-state, all in the driver's loop" if steady else "")
    return [f"islands: {islands['count']} of {size} members and {offspring} children a generation each{loops}; "
            f"{moves}; the figures below are over all islands (Run.populations() has an island column)"]


# A steady-state run's share means something after this many times `in_flight` generations past 0:
# up to `in_flight` generations' children were in flight when generation 1 began, part-scored before it.
SETTLED_IN_FLIGHTS = 10


def _workers(use: WorkerUse | None, execution: dict[str, Any], algorithm: str | None) -> list[Block]:
    if use is None:
        return []
    actors = (f"{use.workers} Ray actor{'s' if use.workers != 1 else ''} "
              f"on {use.nodes} node{'s' if use.nodes != 1 else ''}")
    text = f"{actors} scored {use.evaluations:,} evaluations in {use.generations:,} generations after generation 0."
    in_flight = execution.get("in_flight", FIXED_IN_FLIGHT)  # run.json of before the key: the bound it had
    if in_flight == "auto":  # what the run's mean evaluation time chose, a generation its evaluations
        in_flight = auto_in_flight(use.seconds_per_evaluation, use.workers, use.evaluations // max(use.generations, 1))
    if algorithm == "steady-state" and use.generations < SETTLED_IN_FLIGHTS * in_flight:
        return [("h2", "Workers"), ("p", text + (
            f" The run is too short to say how busy they were: up to {in_flight} generations' children were in "
            "flight when generation 1 began, scored partly before it, and the log does not say how much. The "
            f"share means something after about {SETTLED_IN_FLIGHTS * in_flight} generations."))]
    text += (f" They spent about {min(use.busy, 1.0):.0%} of their time in evaluation calls: the seconds they "
             "logged, divided by the sum over generations of the actors present times the wall seconds.")
    if use.busy < 0.95:
        waited = "for the driver or Ray's calls" if algorithm == "steady-state" else \
            "for the driver, for Ray's calls, or for the slowest chunk of a generation"
        text += (f" The rest they waited: {waited}. docs/cluster.md, \"Did a run use its "
                 "workers?\", says what raises it.")
    if algorithm == "steady-state":  # arrivals recorded in a generation, scored partly before
        text += (f" With no generation barrier the share is a few hundredths off ({use.busy:.1%} here): what "
                 "was in flight when generation 1 began counts, what was in flight at the end does not.")
    elif use.busy > 1.0:
        text += (f" The share as measured is {use.busy:.1%}: some of the work counted was done in time the log "
                 "gives to generation 0.")
    return [("h2", "Workers"), ("p", text)]


def _cpu_per_evaluation(cpu: dict[str, Any] | None) -> list[Block]:
    """A run's CPU per evaluation by process (run.json, `evaluation/cpu.py`; runs on Ray): the one
    that would cap a bigger cluster."""
    if not cpu:
        return []
    actors = cpu["actors"]
    rows = [["driver", fmt(cpu["driver"])], *([f"island {i}", fmt(us)] for i, us in enumerate(cpu["islands"]))]
    if cpu.get("writer") is not None:  # (run.json of runs before the writer process had none)
        rows.append(["log writer", fmt(cpu["writer"])])
    if actors["count"]:
        rows += [[f"evaluation actors, max of {actors['count']}", fmt(actors["max"])],
                 ["evaluation actors, mean", fmt(actors["mean"])]]
    busiest = cpu["busiest"]
    if busiest["process"].startswith("actor-"):  # its share of the evaluations: more actors would split it
        cap = ": the evaluations themselves, which more actors would share."
    else:
        cap = (f": with a core of its own it caps a run like this one near {1e6 / busiest['us']:,.0f} evaluations "
               "a second." if busiest["us"] > 0 else ".")
    return [("p", f"CPU per evaluation of the run, by process ({cpu['evaluations']:,} evaluations of this session, "
                  "each process from when it was first heard of; the driver's every thread included). Busiest: "
                  f"{busiest['process']} at {fmt(busiest['us'])} µs{cap}"),
            ("table", ["process", "CPU µs per evaluation"], rows)]


def summary_blocks(run: RunLogs, workers: WorkerUse | None = None) -> tuple[str, list[Block]]:
    """(title, blocks) of a run's summary; `workers`: how busy its Ray workers were, if it had any."""
    meta, last = run.meta, run.generations.iloc[-1]
    first_gen, last_gen = int(run.generations["generation"].iloc[0]), int(last["generation"])
    blocks: list[Block] = [("ul", [
        f"spec: {run.name}, problem {meta['spec'].get('problem')}, genome {run.kind}, seed {run.seed}",
        f"status: {meta.get('status')} ({meta.get('stop_reason', '-')})",
        f"generations {first_gen}–{last_gen} (generation 0 is the initial population), "
        f"{int(last['evaluations']):,} evaluations, {float(last['elapsed_seconds']):.1f} s",
    ] + _islands_note(meta['spec']))]
    blocks += _best_table(run)
    blocks += front_blocks(run, fmt)
    blocks += archive_blocks(run, fmt)
    blocks += _hall_of_fame(run)
    spec = meta['spec']
    blocks += _workers(workers, spec.get('execution', {}), spec.get('population', {}).get('algorithm'))
    blocks += _cpu_per_evaluation(meta.get("cpu_per_evaluation"))
    constant = constant_objectives(run.generations)
    if constant:
        blocks.append(("p", "Constant over the whole run, every individual (not plotted): "
                            + ", ".join(f"{k} = {fmt(v)}" for k, v in constant.items()) + "."))
    blocks += [("h2", "Diversity"),
               ("p", f"`diversity` (last generation {fmt(float(last['diversity']))}) measures how different the "
                     f"members of a generation's population are. For {run.kind} genomes: "
                     f"{DIVERSITY.get(run.kind, USER_KIND_DIVERSITY)}; {DIVERSITY_SCALE}.")]
    expression = best_expression(run.best)
    if expression is not None:
        blocks += [("h2", "Best expression, simplified"), ("code", expression)]
    return f"Run {meta['run_id']} ({run.name}, seed {run.seed})", blocks


def to_markdown(title: str, blocks: list[Block], images: list[str] = ()) -> str:
    lines = [f"# {title}", ""]
    for block in blocks:
        kind = block[0]
        if kind == "h2":
            lines += [f"## {block[1]}", ""]
        elif kind == "p":
            lines += [block[1], ""]
        elif kind == "ul":
            lines += [f"- {item}" for item in block[1]] + [""]
        elif kind == "code":
            lines += [f"`{block[1]}`", ""]
        elif kind == "table":
            header, rows = block[1], block[2]
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(row) + " |" for row in rows] + [""]
    lines += [f"![{name}]({name}.png)" for name in images]
    return "\n".join(lines) + "\n"


def to_html(blocks: list[Block]) -> str:
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h2":
            out.append(f"<h2>{html.escape(block[1])}</h2>")
        elif kind == "p":
            out.append(f"<p>{html.escape(block[1]).replace('`', '')}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block[1]) + "</ul>")
        elif kind == "code":
            out.append(f"<p><code>{html.escape(block[1])}</code></p>")
        elif kind == "table":
            head = "".join(f"<th>{html.escape(h).replace('_', '_<wbr>')}</th>" for h in block[1])  # may break
            body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in block[2])
            out.append(f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')
    return "\n".join(out)


WRAP_AFTER = 24  # characters: a longer cell with spaces is prose (a hall-of-fame row's copies), wrapped


def _cell(text: str) -> str:
    """A table cell: numbers stay on one line, prose wraps inside its cell (page.py's `td.text`)."""
    wraps = len(text) > WRAP_AFTER and " " in text
    return f'<td class="text">{html.escape(text)}</td>' if wraps else f"<td>{html.escape(text)}</td>"
