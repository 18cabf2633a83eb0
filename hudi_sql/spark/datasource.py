"""A Python data source named ``hudi``: what lets Spark's catalog hold ``USING hudi`` tables.

Spark refuses ``CREATE TABLE ... USING hudi`` unless a data source of that name exists, so
hudi-sql registers this one in every session it sets up. It is deliberately not a reader:

* a catalog table ``USING hudi`` hands a Python data source no options at all when it is read
  (not its path, not its properties; checked on Spark 4.3), so the source cannot know which
  table it stands for;
* base files must go to Spark's native Parquet reader and writes must control their own
  shuffle and commit, which the data source API does not allow.

Queries on catalog Hudi tables therefore go through :func:`hudi_sql.connect` (whose runner
binds each table reference to a fresh snapshot), and path reads through
``spark.read.format("hudi").load(path)`` (see :mod:`hudi_sql.spark.format_hook`). If Spark
ever does call this source, it fails with a :class:`~hudi_sql.errors.HudiError` saying so.
"""

from __future__ import annotations

__all__ = ["USE_INSTEAD", "HudiDataSource", "register_datasource"]

from typing import TYPE_CHECKING

from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceWriter

from hudi_sql.errors import HudiError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

USE_INSTEAD = (
    "query Hudi tables through hudi-sql: hudi_sql.connect(spark).sql('SELECT ... FROM t'), the hudi-sql "
    "shell, or spark.read.format('hudi').load('/table/path')"
)


def _refuse(what: str) -> HudiError:
    return HudiError(
        f"Spark tried to {what} a Hudi table through its data source API, which hudi-sql does not serve "
        "(Spark passes catalog tables no path or options).",
        help=USE_INSTEAD,
    )


class HudiDataSource(DataSource):
    """The ``hudi`` provider name for Spark's catalog; reading or writing through it fails."""

    @classmethod
    def name(cls) -> str:
        return "hudi"

    def schema(self) -> StructType | str:
        # Spark asks only when no schema was declared, e.g. spark.read.format("hudi") without
        # hudi-sql's format hook installed.
        raise _refuse("read the schema of")

    def reader(self, schema: StructType) -> DataSourceReader:
        raise _refuse("read")

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        raise _refuse("write")


_registered: set[int] = set()


def register_datasource(spark: SparkSession) -> None:
    """Register :class:`HudiDataSource` on *spark* (once per session)."""
    key = id(spark._jsparkSession)
    if key in _registered:
        return
    spark.dataSource.register(HudiDataSource)
    _registered.add(key)
