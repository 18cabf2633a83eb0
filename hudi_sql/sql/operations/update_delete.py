"""UPDATE and DELETE on a Hudi table, as DataFrames over a snapshot read when the statement starts.

The statement's assigned values and ``WHERE`` condition are Spark SQL expressions the analyzer
produced (their subqueries' tables bound to views); each is handed to Spark whole
(``F.expr``) and combined with the target's columns through the DataFrame API, so no SQL
text is assembled here. The target is aliased as the statement names it, so ``e.col`` in the
user's expressions resolves.

An UPDATE that changes a partition column moves the row: the new row is an upsert in its new
partition, and its old key is deleted (a second commit, see
:func:`~hudi_sql.sql.operations.writes.write_changes`).
"""

from __future__ import annotations

__all__ = ["delete", "delete_frame", "update", "update_frames"]

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hudi_sql.errors import HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.binding import bound
from hudi_sql.sql.operations.columns import column
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.operations.spark_fallback import on_hudi_table
from hudi_sql.sql.operations.writes import key_columns, stored_key_columns, write_changes
from hudi_sql.sql.planner import HudiTableFacts

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def _expr(sql: st.SparkSql, statement: st.Update | st.Delete, views: st.Views) -> Column:
    """One analyzed expression of *statement*, its placeholders bound to *views*."""
    from pyspark.sql import functions as F

    return F.expr(sql.bind(statement.table_refs, views))


@on_hudi_table(lambda statement: statement.table)
def update(ctx: OperationContext, statement: st.Update, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    with bound(ctx, statement.table_refs) as views:
        upserts, deletes = update_frames(ctx, statement, facts, views)
        return write_changes(ctx, facts, upserts, deletes, moves_are_updates=True)


def update_frames(
    ctx: OperationContext, statement: st.Update, facts: HudiTableFacts, views: Mapping[str, str]
) -> tuple[DataFrame, DataFrame | None]:
    """The rows an UPDATE writes, and the old keys of rows it moves to another partition."""
    where_ = f"UPDATE {facts.name}"
    alias = statement.alias or facts.name
    keys = {k.lower() for k in facts.record_key_fields}
    assigned: dict[str, st.SparkSql] = {}
    for assignment in statement.assignments:
        name = facts.column(assignment.column, where_)
        if name.lower() in keys:
            raise HudiSqlError(
                f"{where_}: column '{name}' is part of the record key and cannot be updated.",
                help="delete the row and insert it with the new key",
            )
        assigned[name.lower()] = assignment.value
    fields = facts.target_schema().fields
    partitions = {p.lower() for p in facts.partition_fields}
    target = ctx.snapshot(facts.location).alias(alias)

    def value(field_name: str) -> Column:
        sql = assigned.get(field_name.lower())
        return _expr(sql, statement, views) if sql is not None else column(field_name, alias)

    condition = _expr(statement.where, statement, views) if statement.where else None
    chosen = target.where(condition) if condition is not None else target
    _check_assignable(chosen, {f.name: value(f.name) for f in fields if f.name.lower() in assigned},
                      {f.name: f.dataType for f in fields}, where_)
    stored = stored_key_columns(facts, alias)
    upserts = chosen.select(*[value(f.name).cast(f.dataType).alias(f.name) for f in fields], *stored)
    moved = [f for f in fields if f.name.lower() in partitions and f.name.lower() in assigned]
    if not moved:
        return upserts, None
    changed = functools.reduce(
        lambda a, b: a | b,
        [~value(f.name).cast(f.dataType).eqNullSafe(column(f.name, alias)) for f in moved],
    )
    both = condition & changed if condition is not None else changed
    old = [column(c, alias).alias(c) for c in key_columns(facts)] + stored
    return upserts, target.where(both).select(*old)


def _check_assignable(rows: DataFrame, values: Mapping[str, Column], types: Mapping[str, object],
                      where_: str) -> None:
    """Refuse, before anything is written, an assigned value that does not convert to its column.

    The cast of the written rows runs inside the write's Spark tasks, after the instant is on
    the timeline; a value like ``'abc'`` for a ``bigint`` column would fail there with a raw
    ``NumberFormatException``. One small job over the chosen rows (only for assignments whose
    type differs from the column's) finds such a value first and names it.

    Raises:
        HudiSqlError: an assigned value is not null but does not convert to the column's type.
    """
    for name, expression in values.items():
        target = types[name]
        if rows.select(expression.alias("v")).schema["v"].dataType == target:
            continue
        bad = rows.where(expression.isNotNull() & expression.try_cast(target).isNull()).select(
            expression.cast("string").alias("v")).limit(1).collect()  # type: ignore[arg-type]
        if bad:
            raise HudiSqlError(
                f"{where_}: the value {bad[0]['v']!r} assigned to column '{name}' is not a valid "
                f"{target.simpleString()}.",  # type: ignore[attr-defined]
                help="assign a value of the column's type; the table was not changed")


@on_hudi_table(lambda statement: statement.table)
def delete(ctx: OperationContext, statement: st.Delete, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    with bound(ctx, statement.table_refs) as views:
        return write_changes(ctx, facts, None, delete_frame(ctx, statement, facts, views))


def delete_frame(
    ctx: OperationContext, statement: st.Delete, facts: HudiTableFacts, views: Mapping[str, str]
) -> DataFrame:
    """The rows a DELETE removes."""
    alias = statement.alias or facts.name
    target = ctx.snapshot(facts.location).alias(alias)
    if statement.where:
        target = target.where(_expr(statement.where, statement, views))
    return target.select(*[column(f.name, alias) for f in facts.target_schema().fields],
                         *stored_key_columns(facts, alias))
