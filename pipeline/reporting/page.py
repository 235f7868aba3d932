"""One self-contained HTML page: the summary and the figures embedded (PNG as data: URIs).

Nothing spills past the page at 1280 px: a cell of prose (a converged run's
hall-of-fame copies, "9 (ids 3251, 3256, …)") wraps inside its cell, figures
shrink to the column, and a table with more columns than fit scrolls in its
own box (`summary.to_html` marks the cells and wraps the tables).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

__all__ = ["html_page"]

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 980px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.table { overflow-x: auto; margin: 0.8em 0; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td { white-space: nowrap; }
td.text { white-space: normal; overflow-wrap: anywhere; min-width: 12em; text-align: left; }
th:first-child, td:first-child { text-align: left; }
thead { background: #f0f0f0; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #555; }
code { background: #f4f4f4; padding: 0.1em 0.3em; overflow-wrap: anywhere; }
"""


def html_page(title: str, body: str, images: list[tuple[str, Path]]) -> str:
    """A complete HTML document; `images` are (caption, PNG path), embedded, not linked."""
    figures = []
    for caption, path in images:
        data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
        figures.append(f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                       f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
            f"<h1>{html.escape(title)}</h1>\n{body}\n<h2>Figures</h2>\n" + "\n".join(figures)
            + "\n</body></html>\n")
