"""``df.write.format("hudi").saveAsTable(name)``: a DataFrame written as a catalog table.

Spark's save modes, as Spark defines them for tables (and Apache Hudi keeps):

* ``errorifexists`` (the default) / ``error``: a new table; an existing name is an error;
* ``ignore``: a new table; nothing happens when the name exists;
* ``append``: the rows are written to the existing Hudi table with the writer's options over the
  table's own (the DataFrame default operation, ``upsert``, unless an option says otherwise), or
  a new table is made;
* ``overwrite``: the existing table is dropped (a managed table's files with it) and made anew.

A new table is made as ``CREATE TABLE ... USING hudi AS SELECT`` makes one: managed in the
database's folder, or external at the writer's ``path`` option; ``partitionBy`` columns and the
writer's options become its partition columns and table properties (``primaryKey``,
``preCombineField``, ``type`` or their ``hoodie.*`` keys).
"""

from __future__ import annotations

__all__ = ["save_as_table"]

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sqlglot import exp

from hudi_sql.errors import HudiSqlError, TableAlreadyExistsError, UnsupportedFeatureError
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer.refs import parse_table_name
from hudi_sql.sql.operations.binding import register_view, temp_views
from hudi_sql.sql.operations.context import OperationContext
from hudi_sql.sql.operations.create_table import create_table
from hudi_sql.sql.operations.writes import write_frame
from hudi_sql.sql.planner import write_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_MODES = ("errorifexists", "error", "default", "ignore", "append", "overwrite")


def save_as_table(ctx: OperationContext, df: DataFrame, name: str, *, mode: str | None,
                  options: Mapping[str, str], partition_by: Sequence[str] = ()) -> None:
    save_mode = (mode or "errorifexists").lower()
    if save_mode not in _MODES:
        raise HudiSqlError(f"unknown save mode '{mode}' for saveAsTable", help=f"use one of {', '.join(_MODES[:1] + _MODES[3:])}")
    table = parse_table_name(name)
    existing = ctx.lookup(table)
    if existing is not None:
        ident = existing.ident
        if save_mode in ("errorifexists", "error", "default"):
            raise TableAlreadyExistsError(
                f"Table {ident} already exists.", help="saveAsTable with mode('append') or mode('overwrite')"
            )
        if save_mode == "ignore":
            return
        if not existing.is_hudi:
            raise UnsupportedFeatureError(
                f"not supported: saveAsTable in format hudi to {ident}, which is not a Hudi table"
            )
        if save_mode == "append":
            facts = ctx.facts(existing)
            write_frame(ctx, facts, df, write_options(facts, ctx.options, options))
            return
        ctx.catalog.drop_table(ident)
    properties = {k: v for k, v in options.items() if k.lower() != "path"}
    location = next((v for k, v in options.items() if k.lower() == "path"), None)
    with temp_views(ctx) as created:
        view = register_view(ctx, df, "hudi_save")
        created.append(view)
        create_table(ctx, st.CreateTable(
            name=table,
            partitioned_by=tuple(partition_by),
            location=location,
            properties=properties,
            as_query=st.Query(st.SparkSql.of(exp.select("*").from_(exp.Table(this=exp.to_identifier(view, quoted=True))))),
        ))
