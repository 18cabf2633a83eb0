"""hudi-sql through SQL: each batch is a ``MERGE INTO`` from the batch's Parquet file.

The initial load is the same bulk insert as ``hudi_cow_bloom`` (through ``hudi_sql.write``);
the table is then registered with ``CREATE TABLE ... USING hudi LOCATION`` and every batch runs
``MERGE INTO drones USING (SELECT * FROM parquet.`<batch>`) ON <key and day> ... UPDATE SET * /
INSERT *``. The ``ON`` names the partition column as Hudi users write it, so a row is matched in
its own day; hudi-sql then runs the statement as an upsert of the source, as Apache Hudi does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.systems._hudi import HudiSystem
from bench.systems.base import SystemUnavailable
from bench.workload import KEY, PARTITION

if TYPE_CHECKING:
    from hudi_sql.sql.session import HudiSession


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class HudiSqlMerge(HudiSystem):
    name = "hudi_sql_merge"
    description = "hudi-sql COW, MERGE INTO from the batch (SQL), BLOOM index"

    _db: HudiSession | None = None

    def open(self) -> None:
        import hudi_sql

        if not hasattr(hudi_sql, "connect"):
            raise SystemUnavailable("hudi_sql.connect (the SQL session) is not in this checkout")
        super().open()

    @property
    def db(self) -> HudiSession:
        assert self._db is not None
        return self._db

    def load(self, files: list[Path]) -> dict[str, Any] | None:
        import hudi_sql

        stats = super().load(files)
        self._db = hudi_sql.connect(self.spark)
        self.db.sql(f"CREATE TABLE drones USING hudi LOCATION {_quote(str(self.path))}")
        for key, value in self.options().items():
            if not key.startswith(("hoodie.table.", "hoodie.datasource.write.")):  # the table has those
                self.db.sql(f"SET {key}={value}")
        return stats

    def upsert(self, batch: Path) -> dict[str, Any] | None:
        source = f"parquet.`{batch}`"
        rows = self.db.sql(
            f"MERGE INTO drones AS t USING (SELECT * FROM {source}) AS s "
            f"ON t.{KEY} = s.{KEY} AND t.{PARTITION} = s.{PARTITION} "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        ).collect()
        return rows[0].asDict() if rows else None


SYSTEM = HudiSqlMerge
