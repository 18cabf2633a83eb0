"""Apache Hudi 0.15 itself as a peer: the same table, options and batches, written by its Spark bundle.

Apache Hudi 0.15 runs on Spark 3.5 and hudi-sql on Spark 4, so these systems run in the
interpreter ``tools/oracle/setup.sh`` prepares (PySpark 3.5, the Hudi bundle jar, and numpy,
pandas and pyarrow for the checksum); ``bench.run`` starts their worker with it. The session
gets what Apache Hudi's quick start asks for (Kryo with Hudi's registrar, its SQL extension
and catalog) and the same master, driver memory and shuffle partitions as our systems.

Apache Hudi keeps its own defaults otherwise, as its users get them: the metadata table is on,
markers go through the embedded timeline server. Our systems' extra ``--option`` keys are not
passed (they tune hudi-sql); the Parquet codec, when the run sets one, is.
"""

from __future__ import annotations

__all__ = ["ApacheHudiSystem", "oracle_home", "oracle_python"]

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.systems._hudi import HudiSystem
from bench.systems.base import SystemUnavailable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def oracle_home() -> Path:
    """Where ``tools/oracle/setup.sh`` keeps the Apache Hudi interpreter and bundle."""
    override = os.environ.get("HUDI_ORACLE_DIR")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hudi-sql" / "oracle"


def _ready() -> dict[str, str]:
    home = oracle_home()
    if (home / "UNAVAILABLE").exists():
        raise SystemUnavailable(f"Apache Hudi unavailable: {(home / 'UNAVAILABLE').read_text().strip()}")
    if not (home / "READY").exists():
        raise SystemUnavailable(f"Apache Hudi is not set up in {home}: run tools/oracle/setup.sh")
    return dict(line.split("=", 1) for line in (home / "READY").read_text().split())


def oracle_python() -> Path:
    """The interpreter Apache Hudi's systems run in; :class:`SystemUnavailable` when not set up."""
    _ready()
    return oracle_home() / "venv" / "bin" / "python"


class ApacheHudiSystem(HudiSystem):
    """A :class:`HudiSystem` (same options, operations and reads) written by Apache Hudi's datasource."""

    def open(self) -> None:
        from pyspark.sql import SparkSession

        s = self.settings
        self.index_used = self.index_type
        state = self.context.state_dir
        conf = {
            "spark.jars": _ready()["jar"],
            "spark.driver.memory": s.driver_memory,
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
            "spark.kryo.registrator": "org.apache.spark.HoodieSparkKryoRegistrar",
            "spark.sql.extensions": "org.apache.spark.sql.hudi.HoodieSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.hudi.catalog.HoodieCatalog",
            "spark.sql.shuffle.partitions": str(s.shuffle_partitions or 4),  # hudi-sql's session default
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.warehouse.dir": str(state / "warehouse"),
            "spark.local.dir": str(state / "tmp"),
        }
        os.environ["PYSPARK_PYTHON"] = sys.executable  # PySpark 3.5 takes its workers' Python from here
        builder = SparkSession.builder.master(s.master).appName(f"bench-{self.name}")
        for key, value in conf.items():
            builder = builder.config(key, value)
        self._spark = builder.getOrCreate()
        self._spark.sparkContext.setLogLevel("ERROR")

    def options(self) -> dict[str, str]:
        options = super().options()
        for key in self.settings.extra:  # hudi-sql's tuning knobs, not Apache Hudi's
            options.pop(key, None)
        return options

    def _write(self, df: DataFrame, operation: str) -> dict[str, Any]:
        options = {**self.options(), "hoodie.datasource.write.operation": operation}
        df.write.format("hudi").options(**options).mode("append").save(str(self.path))
        return {"operation": operation}

    def _read(self, options: dict[str, str] | None = None) -> DataFrame:
        return self.spark.read.format("hudi").options(**(options or {})).load(str(self.path))

    def snapshot(self) -> DataFrame:
        return self._read()

    def describe(self) -> dict[str, Any]:
        import pyspark

        return {
            "pyspark": pyspark.__version__,
            "apache_hudi": _ready().get("hudi", ""),
            "options": self.options(),
            "initial_operation": self.initial_operation,
        }
