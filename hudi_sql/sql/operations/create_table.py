"""CREATE TABLE ... USING hudi, with columns, as a query (CTAS), or over an existing table.

Order of work keeps a failure from leaving half a table behind:

* managed ``CREATE TABLE``: register in the catalog (Spark refuses a managed table whose
  folder exists), then write ``.hoodie/``; if that fails, unregister (which removes the folder);
* ``CREATE TABLE ... LOCATION``: write ``.hoodie/`` (unless a Hudi table is already there),
  then register; if registering fails, remove what was written;
* CTAS: as above, then a ``bulk_insert`` of the query; if it fails, the table goes again.
"""

from __future__ import annotations

__all__ = ["create_table", "declared_schema"]

from collections.abc import Sequence
from typing import TYPE_CHECKING

from catalog.base import TableIdent
from hudi_sql.config import HudiWriteConfig
from hudi_sql.errors import HudiSchemaError, HudiSqlError, TableAlreadyExistsError, did_you_mean
from hudi_sql.spark.schema import avro_schema_json, from_avro_schema
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.binding import query
from hudi_sql.sql.operations.context import OperationContext
from hudi_sql.sql.operations.writes import drop_meta_columns, write_frame
from hudi_sql.sql.planner import (
    CreatePlan,
    order_columns,
    plan_create,
    registration_properties,
    validate_options,
    write_options,
)
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient, init_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType


def declared_schema(columns: Sequence[st.ColumnDef]) -> StructType:
    """The declared columns as a Spark schema (every column nullable, as Hudi's Avro schema makes it)."""
    from pyspark.errors import PySparkException
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    fields = []
    for column in columns:
        try:
            data_type = _parse_datatype_string(column.data_type)
        except (PySparkException, ValueError) as e:  # Spark's parse error
            raise HudiSqlError(f"column '{column.name}': unknown type '{column.data_type}' ({e})") from None
        metadata = {"comment": column.comment} if column.comment else {}
        fields.append(StructField(column.name, data_type, True, metadata))
    return StructType(fields)


def _avro_normalized(schema: StructType, name: str) -> dict[str, str]:
    """Column name (lower case) -> type as the table stores it (Avro has no byte or short)."""
    stored = from_avro_schema(avro_schema_json(schema, name))
    return {f.name.lower(): f.dataType.simpleString() for f in stored.fields}


def create_table(ctx: OperationContext, statement: st.CreateTable) -> DataFrame:
    ident = ctx.ident(statement.name)
    if ctx.catalog.table_exists(ident):
        if statement.if_not_exists:
            return ctx.empty()
        raise TableAlreadyExistsError(
            f"Table {ident} already exists.", help="use CREATE TABLE IF NOT EXISTS, or DROP TABLE first"
        )
    if not ctx.catalog.database_exists(ident.database):
        raise ctx.not_found(ident, "Database of table")
    location = statement.location
    if location is not None and TableMetaClient.exists(location):
        if statement.as_query is not None:
            raise HudiSqlError(
                f"CREATE TABLE {ident} AS SELECT: a Hudi table already exists at '{location}'.",
                help="INSERT INTO the table instead, or choose another LOCATION",
            )
        _register_existing(ctx, statement, ident, location)
        return ctx.empty()
    if statement.as_query is not None:
        source = drop_meta_columns(query(ctx, statement.as_query))
        schema = source.schema
    else:
        source = None
        schema = declared_schema(statement.columns)
    plan = plan_create(statement, name=ident.name, database=ident.database, schema=schema, session=ctx.options)
    _create_new(ctx, statement, ident, plan, location, source)
    return ctx.empty()


def _register_existing(ctx: OperationContext, statement: st.CreateTable, ident: TableIdent, location: str) -> None:
    """``CREATE TABLE t USING hudi LOCATION '...'`` over a table that exists: schema and keys
    come from its ``hoodie.properties`` and latest commit; a declaration must agree."""
    meta = TableMetaClient.load(location)
    schema_json = meta.latest_schema()
    if schema_json is None:
        raise HudiSchemaError(
            f"The Hudi table at '{location}' records no schema.",
            help="declare its columns: CREATE TABLE t (...) USING hudi LOCATION ...",
        )
    stored = from_avro_schema(schema_json)
    partitions = tuple(f.split(":", 1)[0] for f in meta.partition_fields)
    where = f"CREATE TABLE {ident}"
    if statement.partitioned_by and [p.lower() for p in statement.partitioned_by] != [
        p.lower() for p in partitions
    ]:
        raise HudiSqlError(
            f"{where}: PARTITIONED BY ({', '.join(statement.partitioned_by)}) differs from the "
            f"table's partition fields ({', '.join(partitions) or 'none'}) at '{location}'."
        )
    catalog_schema = stored
    if statement.columns:
        declared = declared_schema(statement.columns)
        want, have = _avro_normalized(declared, meta.table_name), _avro_normalized(stored, meta.table_name)
        for column, data_type in want.items():
            if column not in have:
                raise HudiSqlError(
                    f"{where}: column '{column}' is not in the table at '{location}'."
                    f"{did_you_mean(column, list(have))}",
                    help="leave the columns out to take the table's schema",
                )
            if have[column] != data_type:
                raise HudiSqlError(
                    f"{where}: column '{column}' is declared {data_type} but the table at "
                    f"'{location}' stores {have[column]}.",
                    help="leave the columns out to take the table's schema",
                )
        missing = [c for c in have if c not in want]
        if missing:
            raise HudiSqlError(
                f"{where}: the declaration lacks column(s) {', '.join(missing)} of the table at "
                f"'{location}'.",
                help="leave the columns out to take the table's schema",
            )
        catalog_schema = declared
    properties = registration_properties(meta.properties, statement.properties, ident.name)
    validate_options({k: v for k, v in properties.items() if k.startswith("hoodie.")}, where)
    ctx.catalog.create_table(
        ident,
        schema=order_columns(catalog_schema, partitions),
        partition_columns=partitions,
        location=location,
        properties=properties,
        comment=statement.comment,
    )


def _create_new(
    ctx: OperationContext,
    statement: st.CreateTable,
    ident: TableIdent,
    plan: CreatePlan,
    location: str | None,
    source: DataFrame | None,
) -> None:
    storage = Storage()
    catalog = ctx.catalog
    if location is None:
        path = catalog.default_location(ident)
        if storage.exists(path) and any(True for _ in storage.list(path)):
            raise TableAlreadyExistsError(
                f"Cannot create managed table {ident}: its location '{path}' already exists "
                "and is not empty.",
                help="remove the folder, or register it with CREATE TABLE ... LOCATION",
            )
        catalog.create_table(
            ident,
            schema=plan.schema,
            partition_columns=plan.partition_columns,
            properties=plan.catalog_properties,
            comment=statement.comment,
        )
        try:
            info = catalog.load_table(ident)
            assert info is not None and info.location is not None
            path = info.location
            init_table(path, plan.table_properties)
        except BaseException:
            catalog.drop_table(ident)
            raise
    else:
        path = location
        created_dir = not storage.exists(path)
        if not created_dir and any(True for _ in storage.list(path)):
            raise TableAlreadyExistsError(
                f"Cannot create table {ident} at '{path}': the folder is not empty and holds no Hudi table."
            )
        init_table(path, plan.table_properties)
        try:
            catalog.create_table(
                ident,
                schema=plan.schema,
                partition_columns=plan.partition_columns,
                location=path,
                properties=plan.catalog_properties,
                comment=statement.comment,
            )
        except BaseException:
            storage.delete_dir(path if created_dir else f"{path}/.hoodie")
            raise
    if source is None:
        return
    try:
        resolved = ctx.resolve(statement.name)
        facts = ctx.facts(resolved)
        aligned = source.select(*[source[c.name] for c in plan.schema.fields])
        write_frame(
            ctx,
            facts,
            aligned,
            write_options(facts, ctx.options, {HudiWriteConfig.OPERATION.key: "bulk_insert"}),
        )
    except BaseException:
        catalog.drop_table(ident)  # a managed table's folder goes with it
        if location is not None:
            storage.delete_dir(path)
        raise
