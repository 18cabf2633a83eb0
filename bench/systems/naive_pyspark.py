"""The naive peer: plain Parquet, partitioned by day, upserted by rewriting the partitions a batch touches.

Per batch: read the affected partitions, union the batch, keep the latest row per key
(``row_number`` over ``event_ts``), and overwrite those partitions (Spark's dynamic partition
overwrite). No index, no timeline: what a PySpark user writes without a table format.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.checksum import Checksum, spark_checksum
from bench.systems._spark import SparkSystem, noop_scan, spark_schema
from bench.workload import KEY, ORDERING, PARTITION

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import DataFrame


class NaivePySpark(SparkSystem):
    name = "naive_pyspark"
    description = "PySpark: rewrite the affected partitions (latest row per key, dynamic partition overwrite)"

    def _save(self, df: DataFrame) -> None:
        writer = df.write.mode("overwrite").partitionBy(PARTITION).option("partitionOverwriteMode", "dynamic")
        if self.settings.parquet_codec:
            writer = writer.option("compression", self.settings.parquet_codec)
        writer.parquet(str(self.path))

    def snapshot(self) -> DataFrame:
        return self.spark.read.schema(spark_schema()).parquet(str(self.path))

    def load(self, files: list[Path]) -> dict[str, Any] | None:
        self._save(self.read_input(*files))
        return None

    def upsert(self, batch: Path) -> dict[str, Any] | None:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        rows = self.read_input(batch)
        days = [r[0] for r in rows.select(PARTITION).distinct().collect()]
        existing = self.snapshot().where(F.col(PARTITION).isin(days))
        latest = Window.partitionBy(KEY).orderBy(F.col(ORDERING).desc())
        merged = (
            existing.unionByName(rows.select(*existing.columns))
            .withColumn("__rn", F.row_number().over(latest))
            .where("__rn = 1")
            .drop("__rn")
        )
        self._save(merged)
        return {"partitions": len(days)}

    def count(self) -> int:
        return self.snapshot().count()

    def checksum(self) -> Checksum:
        return spark_checksum(self.snapshot())

    def scans(self) -> dict[str, Callable[[], None]]:
        return {"snapshot": lambda: noop_scan(self.snapshot())}


SYSTEM = NaivePySpark
