"""hudi-sql through SQL, with a partial update: ``MERGE INTO ... WHEN MATCHED THEN UPDATE SET
col = s.col, ...`` naming the columns a correction changes.

The same table and batches as ``hudi_sql_merge``; only the ``UPDATE`` clause differs. It leaves
``drone_id`` and ``mission_id`` out (a correction never changes them), so the statement is no
longer an upsert of the source's whole rows: hudi-sql runs it as a join of the source with the
target, reading the target partitions the source's days fall in. The final table is the same as
every other system's, so the checksum check holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.systems.hudi_sql_merge import HudiSqlMerge
from bench.workload import KEY, PARTITION, SCHEMA

#: The columns a correction rewrites (every column but the key, the day and the two ids).
_UPDATED = [f.name for f in SCHEMA if f.name not in (KEY, PARTITION, "drone_id", "mission_id")]


class HudiSqlMergePartial(HudiSqlMerge):
    name = "hudi_sql_merge_partial"
    description = "hudi-sql COW, MERGE INTO with UPDATE SET col = s.col (partial update), BLOOM index"

    def upsert(self, batch: Path) -> dict[str, Any] | None:
        assignments = ", ".join(f"{c} = s.{c}" for c in _UPDATED)
        rows = self.db.sql(
            f"MERGE INTO drones AS t USING (SELECT * FROM parquet.`{batch}`) AS s "
            f"ON t.{KEY} = s.{KEY} AND t.{PARTITION} = s.{PARTITION} "
            f"WHEN MATCHED THEN UPDATE SET {assignments} WHEN NOT MATCHED THEN INSERT *"
        ).collect()
        return rows[0].asDict() if rows else None


SYSTEM = HudiSqlMergePartial
