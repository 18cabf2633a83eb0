"""Systems that run on Spark: one local session per process, made by hudi-sql's own helper."""

from __future__ import annotations

__all__ = ["SparkSystem", "noop_scan", "spark_schema"]

from typing import TYPE_CHECKING, Any

from bench.memory import process_peak_mb, reset_peak
from bench.systems.base import System
from bench.workload import SCHEMA

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


def noop_scan(df: DataFrame) -> None:
    """Materialise every column of every row, and keep none of it."""
    df.write.format("noop").mode("overwrite").save()


def spark_schema() -> StructType:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(SCHEMA)


class SparkSystem(System):
    _spark: SparkSession | None = None

    @property
    def spark(self) -> SparkSession:
        assert self._spark is not None, "open() first"
        return self._spark

    def open(self) -> None:
        import hudi_sql

        s = self.settings
        conf: dict[str, Any] = {
            "spark.driver.memory": s.driver_memory,
            "spark.ui.showConsoleProgress": "false",
        }
        if s.shuffle_partitions:
            conf["spark.sql.shuffle.partitions"] = s.shuffle_partitions
        self._spark = hudi_sql.spark_session(
            master=s.master, state_dir=self.context.state_dir, app_name=f"bench-{self.name}", conf=conf
        )

    def close(self) -> None:
        if self._spark is not None:
            self._spark.stop()
            self._spark = None

    def read_input(self, *files: object) -> DataFrame:
        return self.spark.read.parquet(*(str(f) for f in files))

    def memory(self) -> dict[str, float | None]:
        result = super().memory()
        gateway = getattr(self._spark.sparkContext, "_gateway", None) if self._spark else None
        proc = getattr(gateway, "proc", None)
        result["jvm_peak_mb"] = process_peak_mb(proc.pid) if proc is not None else None
        return result

    def reset_memory_peaks(self) -> None:
        super().reset_memory_peaks()
        gateway = getattr(self._spark.sparkContext, "_gateway", None) if self._spark else None
        proc = getattr(gateway, "proc", None)
        if proc is not None:
            reset_peak(proc.pid)

    def describe(self) -> dict[str, Any]:
        import pyspark

        return {
            "pyspark": pyspark.__version__,
            "spark_conf": {
                k: v
                for k, v in self.spark.sparkContext.getConf().getAll()
                if k in ("spark.master", "spark.driver.memory", "spark.sql.shuffle.partitions")
            },
        }
