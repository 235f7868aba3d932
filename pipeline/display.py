"""Terminal output shared by the commands: tables and progress (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

__all__ = ["console", "print_table"]

# soft_wrap: a long line (a path) is never broken by rich; piped output has no
# width, and rich would otherwise wrap it at 80 columns mid-path.
console = Console(highlight=False, soft_wrap=True)


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    console.print(title)
    table = Table()
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    console.print(table)
