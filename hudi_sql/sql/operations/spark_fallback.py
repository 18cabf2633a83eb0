"""The rule "a Hudi table is ours, anything else is Spark's", in one place.

Statements that may name a table of another format (DDL, INSERT, UPDATE, DELETE, MERGE) are
handled with :func:`on_hudi_table`: the table is resolved once, and a table that is not a Hudi
table runs in Spark as written (:func:`run_in_spark`), so no handler repeats that preamble.
"""

from __future__ import annotations

__all__ = ["on_hudi_table", "run_in_spark", "table_refs_of"]

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.binding import bound
from hudi_sql.sql.operations.context import OperationContext, Resolved

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def table_refs_of(statement: st.Statement) -> tuple[st.TableRef, ...]:
    """Every table reference a statement reads (bound before Spark runs its text)."""
    if isinstance(statement, st.InsertInto):
        return statement.query.table_refs
    refs = getattr(statement, "table_refs", ())
    return tuple(refs)


def run_in_spark(ctx: OperationContext, statement: st.Statement) -> DataFrame:
    """The statement as written (``statement.sql``), run by Spark, with its table references bound."""
    refs = table_refs_of(statement)
    sql: st.SparkSql = getattr(statement, "sql")  # noqa: B009 - every statement that can pass through has one
    with bound(ctx, refs) as views:
        return ctx.spark.sql(sql.bind(refs, views))


S = TypeVar("S", bound=st.Statement)
HudiHandler = Callable[[OperationContext, S, Resolved], "DataFrame"]


def on_hudi_table(table_of: Callable[[Any], st.TableName]) -> Callable[
    [HudiHandler[Any]], Callable[[OperationContext, Any], DataFrame]
]:
    """A handler for the statement's Hudi table: *table_of* names the table; it is resolved
    (a :class:`TableNotFoundError` when unknown) and, when it is not a Hudi table, the statement
    runs in Spark as written instead of calling the handler."""

    def decorate(handler: HudiHandler[Any]) -> Callable[[OperationContext, Any], DataFrame]:
        @functools.wraps(handler)
        def run(ctx: OperationContext, statement: Any) -> DataFrame:
            resolved = ctx.resolve(table_of(statement))
            if not resolved.is_hudi:
                return run_in_spark(ctx, statement)
            return handler(ctx, statement, resolved)

        return run

    return decorate
