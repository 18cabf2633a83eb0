"""Queries and the statements Spark runs itself (views, databases, other formats, USE, SHOW,
CACHE, ...), with their Hudi table references bound to snapshots."""

from __future__ import annotations

__all__ = ["passthrough", "select"]

from typing import TYPE_CHECKING

from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.binding import bound, keep_view, query
from hudi_sql.sql.operations.context import OperationContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_HUDI_STATEMENTS_HELP = (
    "on Hudi tables hudi-sql runs queries, INSERT, UPDATE, DELETE, MERGE, CREATE / DROP / "
    "TRUNCATE / REFRESH TABLE, ALTER TABLE ADD COLUMNS / SET TBLPROPERTIES / RENAME TO / DROP "
    "PARTITION, SHOW PARTITIONS / CREATE TABLE and DESCRIBE"
)


def select(ctx: OperationContext, statement: st.Select) -> DataFrame:
    """A query as a DataFrame (analysed now, against snapshots read now)."""
    return query(ctx, statement)


def passthrough(ctx: OperationContext, statement: st.Passthrough) -> DataFrame:
    """A statement Spark runs; refused when it would address a Hudi table by name.

    ``REFRESH TABLE`` of a Hudi table is the exception: it does nothing, because every
    statement here reads the table's timeline afresh (Apache Hudi's scripts refresh after a
    CALL that rewrote files, since Apache Hudi's session caches the table's file listing).
    """
    if statement.kind.upper().startswith("REFRESH") and statement.targets and all(
            (resolved := ctx.lookup(target)) is not None and resolved.is_hudi for target in statement.targets):
        from pyspark.sql.types import StructType

        return ctx.spark.createDataFrame([], StructType([]))
    for target in statement.targets:
        resolved = ctx.lookup(target)
        if resolved is not None and resolved.is_hudi:
            raise UnsupportedFeatureError(
                f"not supported: {statement.kind or 'this statement'} on Hudi table '{target}'",
                help=_HUDI_STATEMENTS_HELP,
            )
    if statement.kind.upper().startswith(("CREATE VIEW", "CACHE")):
        # A temporary view (or cache) keeps its query's text and re-resolves it on use, so the
        # snapshot views it reads must outlive the statement: they stay for the session.
        views = {
            ref.placeholder: name
            for ref in statement.table_refs
            if (name := keep_view(ctx, ref)) is not None
        }
        return ctx.spark.sql(statement.bind(views))
    with bound(ctx, statement.table_refs) as views:
        return ctx.spark.sql(statement.bind(views))
