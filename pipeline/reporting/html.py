"""One self-contained HTML file: figures embedded as data URIs, no network, no scripts.

It opens the same from a mail attachment, a notebook's file browser or a
closed network, and prints as it shows.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from .summary import Summary

__all__ = ["page", "summary_html", "figure_html"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5rem 0; }
code { background: #f4f4f4; padding: 0 0.2rem; }
"""


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def figure_html(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<figure><img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}"></figure>'


def _note(text: str) -> str:
    # `code` spans (the simplified expression) keep their look; everything else is escaped.
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def summary_html(summary: Summary) -> str:
    facts = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>" for k, v in summary.facts)
    notes = "".join(f"<li>{_note(n)}</li>" for n in summary.notes)
    return (f"<ul>{facts}</ul>"
            f"<h2>Best individual (best.json)</h2>{_table(summary.best_header, summary.best_rows)}"
            "<h2>Population after the last generation</h2>"
            "<p>Per objective, over the members alive then (the best of each column may be a different member):</p>"
            f"{_table(['objective', 'population best', 'population mean'], summary.population_rows)}"
            f"<p><b>Diversity</b>: {html.escape(summary.diversity)}.</p>"
            + (f"<ul>{notes}</ul>" if notes else ""))


def page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n")
