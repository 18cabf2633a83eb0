"""hudi-sql: Apache Hudi tables (table version 6) written and read from PySpark, driven by SQL.

Entry points:

* :func:`spark_session` - the embedded default SparkSession, with the ``hudi`` format registered;
* :func:`connect` - a SQL session: ``hudi_sql.connect().sql("SELECT ...")``;
* :func:`write` - write a DataFrame with Apache Hudi's datasource options;
* :func:`read` - query a table (snapshot, read-optimized, incremental, time travel);
* :func:`rollback` - roll back the latest completed commit.

``spark.read.format("hudi")`` and ``df.write.format("hudi")`` work in sessions hudi-sql set up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hudi_sql.commit.rollback import rollback_latest_commit
from hudi_sql.config import (
    HudiConfigs,
    HudiReadConfig,
    HudiTableConfig,
    HudiWriteConfig,
    QueryType,
    TableType,
)
from hudi_sql.config.resolve import Resolved
from hudi_sql.engine.read import read_table  # before `read` below: the subpackage would shadow it
from hudi_sql.engine.session import spark_session
from hudi_sql.engine.write import write
from hudi_sql.engine.write_client import WriteResult
from hudi_sql.errors import (
    CommitConflictError,
    CommitStateUnknownError,
    HudiConfigError,
    HudiError,
    HudiFileFormatError,
    HudiKeyError,
    HudiSchemaError,
    HudiSqlError,
    HudiTimelineError,
    TableAlreadyExistsError,
    TableNotFoundError,
    UnsupportedFeatureError,
)
from hudi_sql.services.clustering import cluster as run_clustering
from hudi_sql.services.compaction import compact as run_compaction
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hudi_sql.commit.rollback import RollbackResult
    from hudi_sql.sql.session import HudiSession

__all__ = [
    "CommitConflictError",
    "CommitStateUnknownError",
    "HudiConfigError",
    "HudiConfigs",
    "HudiError",
    "HudiFileFormatError",
    "HudiKeyError",
    "HudiReadConfig",
    "HudiSchemaError",
    "HudiSqlError",
    "HudiTableConfig",
    "HudiTimelineError",
    "HudiWriteConfig",
    "QueryType",
    "TableAlreadyExistsError",
    "TableNotFoundError",
    "TableType",
    "UnsupportedFeatureError",
    "WriteResult",
    "cluster",
    "compact",
    "connect",
    "read",
    "rollback",
    "spark_session",
    "write",
]

__version__ = "0.1.0"


def read(spark: SparkSession, path: str, options: dict[str, Any] | None = None) -> DataFrame:
    """Query the table at *path*; same as ``spark.read.format("hudi").options(**options).load(path)``."""
    return read_table(spark, path, options)


def compact(spark: SparkSession, path: str, options: dict[str, Any] | None = None, *, schedule: bool = True,
            execute: bool = True, instant_time: str | None = None) -> str | None:
    """Schedule and/or run a compaction of the Merge-On-Read table at *path*; returns its instant."""
    return run_compaction(spark, path, options, schedule=schedule, execute=execute, instant_time=instant_time)


def cluster(spark: SparkSession, path: str, options: dict[str, Any] | None = None, *, order: str | None = None,
            schedule: bool = True, execute: bool = True) -> str | None:
    """Schedule and/or run a clustering (sort and resize small files) of the table at *path*."""
    return run_clustering(spark, path, options, order=order, schedule=schedule, execute=execute)


def rollback(path: str, instant_time: str | None = None, options: dict[str, Any] | None = None) -> RollbackResult:
    """Roll back the latest completed commit of the table at *path* (recorded as a rollback instant),
    under the lock *options* name (``hoodie.write.lock.*``; default: Apache Hudi's single writer)."""
    return rollback_latest_commit(TableMetaClient.load(path), Resolved.of(options), instant_time)


def connect(spark: SparkSession | None = None, **kwargs: Any) -> HudiSession:
    """A SQL session (``.sql(text)`` runs statements) on *spark* or the embedded default session;
    see :func:`hudi_sql.sql.session.connect`."""
    # Imported here, not above: the SQL layer imports the catalog, and a catalog module that
    # imports any hudi_sql module first would find this package half initialised.
    from hudi_sql.sql.session import connect as connect_session

    return connect_session(spark, **kwargs)
