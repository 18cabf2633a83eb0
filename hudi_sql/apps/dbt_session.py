"""``hudi-sql dbt <dbt arguments>``: dbt-spark's ``method: session`` with hudi-sql as the SQL.

dbt-spark's session method runs every statement with ``SparkSession.sql`` on
``SparkSession.builder.getOrCreate()`` in dbt's own process. Spark's parser alone can read Hudi
tables (the ``hudi`` data source) but not write them: a ``CREATE TABLE ... USING hudi AS SELECT``,
``MERGE INTO`` or ``INSERT OVERWRITE`` of a Hudi table needs hudi-sql's write path. So this
command starts the embedded default session (:func:`hudi_sql.spark_session`, ``$HUDI_SQL_HOME``),
makes ``sql`` of *that* session run each statement through :meth:`hudi_sql.connect(spark).sql
<hudi_sql.sql.session.HudiSession.sql>` (statements hudi-sql hands back to Spark reach Spark's
own ``sql``), and runs dbt in the same process with ``dbtRunner``. dbt must be installed in this
interpreter (``pip install dbt-core dbt-spark``; dbt-spark's ``session`` extra pins PySpark
below 4, so install dbt-spark without it).
"""

from __future__ import annotations

import hudi_sql

__all__ = ["main"]

import sys
import threading
from collections.abc import Sequence
from typing import Any

from hudi_sql.errors import NotInstalledError


def main(argv: Sequence[str] | None = None) -> int:
    """Run dbt with *argv* (``run``, ``seed``, ... and their options); dbt's exit status."""
    try:
        from dbt.cli.main import dbtRunner
    except ImportError as exc:
        raise NotInstalledError("hudi-sql dbt needs dbt in this Python.",
                                help="pip install dbt-core dbt-spark (without the session extra)") from exc
    spark = hudi_sql.spark_session()
    route_sql_through_hudi_sql(spark)
    result = dbtRunner().invoke(list(argv if argv is not None else sys.argv[1:]))
    return 0 if result.success else 1


def route_sql_through_hudi_sql(spark: Any) -> None:
    """``spark.sql(text)`` of *spark* (only) runs through a hudi-sql session on it.

    Idempotent: a process that runs dbt more than once (:func:`main` called again, as a program
    driving ``dbtRunner`` does) routes once; routing twice would nest the two wrappers, each
    sending the other's inner ``spark.sql`` calls back into hudi-sql.
    """
    from pyspark.sql import SparkSession

    if getattr(spark, "_hudi_sql_routed", False):
        return
    spark._hudi_sql_routed = True
    session = hudi_sql.connect(spark)
    spark_sql = SparkSession.sql
    inside = threading.local()  # hudi-sql's own spark.sql calls go to Spark

    def sql(self: SparkSession, sqlQuery: str, args: Any = None, **kwargs: Any) -> Any:
        if self is not spark or args or kwargs or getattr(inside, "active", False):
            return spark_sql(self, sqlQuery, args, **kwargs)
        inside.active = True
        try:
            return session.sql(sqlQuery)
        finally:
            inside.active = False

    SparkSession.sql = sql  # type: ignore[method-assign]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
