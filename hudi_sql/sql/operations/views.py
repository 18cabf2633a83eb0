"""``CREATE VIEW``: permanent views, over Spark tables (Spark's) and over Hudi tables (ours).

Spark analyses a view's query when it creates the view and again when the view is queried. For
a query over a Hudi table Spark would bind the table to the ``hudi`` Python data source (every
file read in Python workers) and refuse hudi-sql's own constructs (read hints, Hudi's table
functions, the ``_ro`` / ``_rt`` names of a table synced only once). So a view whose query reads
a Hudi table (by name, by path, or through another such view) is stored by hudi-sql: its text as
written, its columns from running the query once now, and :data:`~.binding.READS_HUDI_PROPERTY`.
When a statement reads the view, :mod:`.binding` expands the text against the snapshots of that
moment with hudi-sql's reader, as Spark does for its own views. Every other permanent view is
Spark's, unchanged. Spark itself can still read such a view (through the data source).

dbt's ``view`` materialization (``create or replace view ... as``) depends on this.
"""

from __future__ import annotations

__all__ = ["create_view"]

from typing import TYPE_CHECKING

from hudi_sql.errors import HudiSqlError, TableAlreadyExistsError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.binding import READS_HUDI_PROPERTY, bound, expanding, reads_hudi
from hudi_sql.sql.operations.context import OperationContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType


def create_view(ctx: OperationContext, statement: st.CreateView) -> DataFrame:
    if not any(reads_hudi(ctx, ref) for ref in statement.query.table_refs):
        return ctx.spark.sql(statement.spark_sql.bind(statement.query.table_refs, {}))
    ident = ctx.ident(statement.name)
    existing = ctx.catalog.load_table(ident)
    if existing is not None:
        if statement.if_not_exists:
            return ctx.empty()
        if not statement.replace:
            raise TableAlreadyExistsError(
                f"View {ident} already exists.", help="use CREATE OR REPLACE VIEW, or CREATE VIEW IF NOT EXISTS"
            )
        if not existing.is_view:
            raise TableAlreadyExistsError(
                f"{ident} is a table, not a view; CREATE OR REPLACE VIEW does not replace tables.",
                help=f"DROP TABLE {ident} first, or choose another name",
            )
    # Analysed now, as Spark does: a view over a missing table or column, or one that would
    # name itself through the views it reads, fails at creation.
    with expanding(str(ident)), bound(ctx, statement.query.table_refs) as views:
        schema = ctx.spark.sql(statement.query.bind(views)).schema
    schema = _with_columns(ident, schema, statement.columns)
    if existing is not None:
        ctx.catalog.drop_table(ident)
    ctx.catalog.create_view(
        ident,
        text=statement.view_text,
        schema=schema,
        properties={**statement.properties, READS_HUDI_PROPERTY: "true"},
        comment=statement.comment,
    )
    return ctx.empty()


def _with_columns(ident: object, schema: StructType, columns: tuple[tuple[str, str | None], ...]) -> StructType:
    """The query's columns renamed (and commented) by the view's column list, if it has one."""
    from pyspark.sql.types import StructField, StructType

    if not columns:
        return schema
    if len(columns) != len(schema.fields):
        raise HudiSqlError(
            f"View {ident} names {len(columns)} columns, but its query returns {len(schema.fields)}: "
            f"{', '.join(schema.fieldNames())}.",
            help="list one name per column of the query",
        )
    fields = []
    for field, (name, comment) in zip(schema.fields, columns, strict=True):
        metadata = {**field.metadata, **({"comment": comment} if comment else {})}
        fields.append(StructField(name, field.dataType, field.nullable, metadata))
    return StructType(fields)
