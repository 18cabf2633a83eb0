"""Our systems: hudi-sql writes through ``hudi_sql.write`` (and SQL, in ``hudi_sql_merge``)."""

from __future__ import annotations

__all__ = ["HudiSystem", "index_supported"]

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from bench.checksum import Checksum, spark_checksum
from bench.systems._spark import SparkSystem, noop_scan
from bench.systems.base import SystemUnavailable
from bench.workload import KEY, ORDERING, PARTITION

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import DataFrame

    from hudi_sql import WriteResult


def index_supported(index_type: str) -> bool:
    """Whether this checkout of hudi-sql has *index_type*: asks the engine's own index lookup."""
    from hudi_sql.config import IndexType
    from hudi_sql.errors import UnsupportedFeatureError
    from hudi_sql.index.base import IndexContext
    from hudi_sql.index.factory import index_for

    context = IndexContext(None, None, None, None, IndexType.parse(index_type))  # type: ignore[arg-type]
    try:
        index_for(context)
    except UnsupportedFeatureError:
        return False
    except Exception:  # noqa: BLE001 - found; it only wants a real table to construct
        return True
    return True


def write_stats(result: WriteResult) -> dict[str, Any]:
    return {
        "instant_time": result.instant_time,
        "num_inserted": result.num_inserted,
        "num_updated": result.num_updated,
        "total_write_bytes": sum(s.total_write_bytes for s in result.write_stats),
        "files": len(result.write_stats),
    }


class HudiSystem(SparkSystem):
    table_type: ClassVar[str] = "COPY_ON_WRITE"
    index_type: ClassVar[str] = "BLOOM"
    initial_operation: ClassVar[str] = "bulk_insert"

    index_used: str = ""

    def open(self) -> None:
        self.index_used = self._resolve_index()
        super().open()

    def _resolve_index(self) -> str:
        if index_supported(self.index_type):
            return self.index_type
        if self.index_type == "BLOOM" and self.settings.bloom_fallback:
            self.notes.append("hudi-sql has no BLOOM index in this checkout: ran with SIMPLE instead")
            return "SIMPLE"
        raise SystemUnavailable(f"hudi-sql has no hoodie.index.type={self.index_type} in this checkout")

    def options(self) -> dict[str, str]:
        s = self.settings
        options = {
            "hoodie.table.name": "drones",
            "hoodie.datasource.write.recordkey.field": KEY,
            "hoodie.datasource.write.partitionpath.field": PARTITION,
            "hoodie.datasource.write.precombine.field": ORDERING,
            "hoodie.datasource.write.table.type": self.table_type,
            "hoodie.index.type": self.index_used,
        }
        if self.index_used == "BLOOM":
            options["hoodie.bloom.index.prune.by.ranges"] = "true"
        if self.index_used == "BUCKET" and s.bucket_num:
            options["hoodie.bucket.index.num.buckets"] = str(s.bucket_num)
        if s.parquet_codec:
            options["hoodie.parquet.compression.codec"] = s.parquet_codec
        options.update(s.extra)
        return options

    def _write(self, df: DataFrame, operation: str) -> dict[str, Any]:
        import hudi_sql

        options = {**self.options(), "hoodie.datasource.write.operation": operation}
        return write_stats(hudi_sql.write(df, str(self.path), options))

    def load(self, files: list[Path]) -> dict[str, Any] | None:
        return self._write(self.read_input(*files), self.initial_operation)

    def upsert(self, batch: Path) -> dict[str, Any] | None:
        return self._write(self.read_input(batch), "upsert")

    def _read(self, options: dict[str, str] | None = None) -> DataFrame:
        import hudi_sql

        return hudi_sql.read(self.spark, str(self.path), options)

    def snapshot(self) -> DataFrame:
        return self._read()

    def count(self) -> int:
        return self.snapshot().count()

    def checksum(self) -> Checksum:
        return spark_checksum(self.snapshot())

    def scans(self) -> dict[str, Callable[[], None]]:
        scans = {"snapshot": lambda: noop_scan(self.snapshot())}
        if self.table_type == "COPY_ON_WRITE":
            # Spark's own Parquet scan of exactly the files the snapshot reads: the cost of Hudi's read path.
            files = self.snapshot().inputFiles()
            if files:
                scans["parquet_same_files"] = lambda: noop_scan(self.spark.read.parquet(*files))
        else:
            read_optimized = {"hoodie.datasource.query.type": "read_optimized"}
            scans["read_optimized"] = lambda: noop_scan(self._read(read_optimized))
        return scans

    def describe(self) -> dict[str, Any]:
        import hudi_sql

        return {
            **super().describe(),
            "hudi_sql": hudi_sql.__version__,
            "options": self.options(),
            "initial_operation": self.initial_operation,
        }
