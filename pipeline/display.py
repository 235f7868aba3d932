"""Terminal output shared by the commands: tables and progress (rich).

When stdout is not a terminal (piped, redirected, captured), lines are never
wrapped at rich's default 80 columns: a path stays one piece to copy. Console
markup is off unless a call asks for it (`markup=True`, its own values escaped):
a path, a spec name or a note with `[word]` in it is printed as written.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["console", "print_table"]


class _Console(Console):
    def print(self, *objects: Any, **kwargs: Any) -> None:
        if not self.is_terminal:
            kwargs.setdefault("soft_wrap", True)
        super().print(*objects, **kwargs)


console = _Console(highlight=False, markup=False)


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    console.print(title)
    table = Table()
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    console.print(table)
