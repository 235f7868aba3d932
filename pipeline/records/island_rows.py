"""An island generation's log rows as the island driver hands them to the log's writer.

The islands build their rows where they run (`islands.epochs.Rows`); the driver
adds only what it alone knows: who is alive after the generation's migration
(`selected`) and the migrants placed. Joining them is the writer's work, off
the driver's path; the islands' tables travel to the writer process packed as
the islands made them (`ipc.py`: the driver never reads them), the alive ids
as one array and the migrants as their fields.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .ipc import PackedTable, unpack_table
from .schema import Fields, Schema

__all__ = ["IslandRows"]


@dataclass
class IslandRows:
    tables: list[PackedTable]  # each island's rows of the generation (`selected` still unset)
    alive: np.ndarray  # the ids alive after the generation's migration (int64)
    migrants: Fields | None  # the migrants placed after it, None for none

    @property
    def rows(self) -> int:
        return sum(table.rows for table in self.tables) + (len(self.migrants.rows) if self.migrants else 0)

    def table(self, schema: Schema, generation: int) -> pa.Table:
        """The generation's individuals rows: every island's, then the migrants placed; a scored
        member is `selected` if alive after the migration. Without `schema.viability` (a run older
        than those columns) `viable` and `error` only if an evaluation failed, as `Schema.table`."""
        scored = pa.concat_tables(list(map(unpack_table, self.tables)), promote_options="default")
        selected = pc.is_in(scored["id"], value_set=pa.array(self.alive, pa.int64()))
        scored = scored.set_column(scored.schema.get_field_index("selected"), "selected", selected)
        if self.migrants:
            placed = Schema(schema.run_id, schema.kind, schema.objectives, True).table(generation, self.migrants, True)
            scored = pa.concat_tables([scored, placed], promote_options="default")
        if not schema.viability and scored["error"].null_count == len(scored):
            scored = scored.drop_columns(["viable", "error"])
        return scored
