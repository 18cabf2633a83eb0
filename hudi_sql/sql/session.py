"""``hudi_sql.connect()``: a SQL session over Spark with Hudi tables in its catalog.

A :class:`HudiSession` keeps what belongs to one user's session: the SparkSession, the
catalog, and the ``hoodie.*`` options set with ``SET`` (which act as write and read options
of every statement that follows, below the table's own properties). ``.sql(text)`` runs a
script of ``;``-separated statements in order and returns the DataFrame of the last one.

Example::

    import hudi_sql

    db = hudi_sql.connect()          # the embedded default Spark session, or connect(spark)
    db.sql("CREATE TABLE t (id INT, name STRING, ts BIGINT) USING hudi "
           "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')")
    db.sql("INSERT INTO t VALUES (1, 'a', 1000)").show()   # num_affected_rows, ..., instant_time
    db.sql("SELECT id, name FROM t").show()
"""

from __future__ import annotations

__all__ = ["HudiSession", "connect"]

import logging
from typing import TYPE_CHECKING, Any

from catalog.spark_catalog import SparkSessionCatalog
from hudi_sql.engine.session import register, spark_session
from hudi_sql.sql.analyzer import analyze
from hudi_sql.sql.operations.context import OperationContext
from hudi_sql.sql.operations.dispatch import run
from hudi_sql.sql.operations.save_as_table import save_as_table
from hudi_sql.sql.statements import SetOption
from hudi_sql.storage.fs import use_session

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from catalog.base import Catalog
    from hudi_sql.sql import statements as st

_log = logging.getLogger(__name__)


class HudiSession:
    """One SQL session (see the module doc). Not thread-safe: use one per thread."""

    def __init__(
        self, spark: SparkSession, *, catalog: Catalog | None = None, options: dict[str, str] | None = None
    ) -> None:
        register(spark)
        self.spark = spark
        self.catalog: Catalog = catalog if catalog is not None else SparkSessionCatalog(spark)
        self.options: dict[str, str] = dict(options or {})
        self._context = OperationContext(spark, self.catalog, self.options)

    def sql(self, text: str) -> DataFrame:
        """Run every statement of *text* in order; the DataFrame of the last one.

        A statement that does not parse fails before any statement runs.

        Raises:
            HudiSqlError: the text does not parse or breaks a rule of the SQL (line and column).
            UnsupportedFeatureError: a construct hudi-sql does not support ("not supported: ...").
            TableNotFoundError: an unknown table (with a "did you mean").
            HudiError: any other failure; a failed write leaves the table as it was.
        """
        result = None
        for statement in analyze(text):
            result = self.execute(statement)
        return result if result is not None else self._context.empty()

    def execute(self, statement: st.Statement) -> DataFrame:
        """Run one analysed statement, reaching table storage with the session's store keys as they
        are now (a ``SET spark.hadoop.fs.s3a.endpoint=…`` before it counts)."""
        use_session(self.spark, self.options)
        return run(self._context, statement)

    def statements(self, text: str) -> list[st.Statement]:
        """Parse and analyse *text* without running it."""
        return analyze(text)

    def save_as_table(self, df: DataFrame, name: str, *, mode: str | None = None,
                      options: dict[str, str] | None = None, partition_by: list[str] | None = None) -> None:
        """``df.write.format("hudi").saveAsTable(name)`` (see :mod:`.operations.save_as_table`)."""
        save_as_table(self._context, df, name, mode=mode, options=options or {}, partition_by=partition_by or ())

    def set(self, key: str, value: Any) -> None:
        """``SET key=value`` from Python."""
        self.execute(SetOption(key, str(value).lower() if isinstance(value, bool) else str(value)))


def connect(
    spark: SparkSession | None = None,
    *,
    catalog: Catalog | None = None,
    options: dict[str, str] | None = None,
    **session_args: Any,
) -> HudiSession:
    """A SQL session on *spark*, or on the embedded default session.

    Args:
        spark: an existing SparkSession (it gets the ``hudi`` format registered); default
            :func:`hudi_sql.spark_session` called with *session_args* (``master``,
            ``warehouse``, ``state_dir``, ``conf``, ...).
        catalog: the table registry; default Spark's session catalog.
        options: initial session options (as if ``SET`` for each).
    """
    session = spark if spark is not None else spark_session(**session_args)
    return HudiSession(session, catalog=catalog, options=options)
