"""DROP TABLE and ALTER TABLE (RENAME TO, SET TBLPROPERTIES, ADD COLUMNS) on Hudi tables;
other tables are Spark's (:func:`~.spark_fallback.on_hudi_table`)."""

from __future__ import annotations

__all__ = ["add_columns", "drop_table", "rename_table", "set_properties"]

from typing import TYPE_CHECKING

from catalog.base import TableIdent
from hudi_sql.commit.transaction import Transaction
from hudi_sql.config import HudiTableConfig, TableType
from hudi_sql.config.resolve import Resolved as ResolvedOptions
from hudi_sql.errors import HudiSqlError, TableAlreadyExistsError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.spark.schema import avro_schema_json
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.operations.create_table import declared_schema
from hudi_sql.sql.operations.spark_fallback import on_hudi_table, run_in_spark
from hudi_sql.sql.planner import FIXED_PROPERTIES, validate_options, write_options
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.properties import table_checksum
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def drop_table(ctx: OperationContext, statement: st.DropTable) -> DataFrame:
    resolved = ctx.lookup(statement.name)
    if resolved is None:
        if statement.if_exists:
            return ctx.empty()
        raise ctx.not_found(ctx.ident(statement.name), "Table")
    if not resolved.is_hudi:
        return run_in_spark(ctx, statement)
    info = resolved.info
    assert info is not None
    ctx.catalog.drop_table(resolved.ident)
    if info.location and (statement.purge or info.managed):
        Storage().delete_dir(info.location)
    return ctx.empty()


@on_hudi_table(lambda statement: statement.table)
def rename_table(ctx: OperationContext, statement: st.AlterTableRename, resolved: Resolved) -> DataFrame:
    new_ident = TableIdent(
        (statement.new_name.database or resolved.ident.database).lower(), statement.new_name.name.lower()
    )
    if ctx.catalog.table_exists(new_ident):
        raise TableAlreadyExistsError(f"Cannot rename {resolved.ident} to {new_ident}: that table exists.")
    info = resolved.info
    assert info is not None and info.location is not None
    meta = TableMetaClient.load(info.location)
    old = {
        k: meta.properties.get(k)
        for k in (HudiTableConfig.NAME.key, HudiTableConfig.CHECKSUM.key, HudiTableConfig.DATABASE_NAME.key)
    }
    database = meta.config.database_name
    meta.update_properties(
        {
            HudiTableConfig.NAME.key: new_ident.name,
            HudiTableConfig.CHECKSUM.key: str(table_checksum(database, new_ident.name)),
        }
    )
    try:
        ctx.catalog.rename(resolved.ident, new_ident)
    except BaseException:
        meta.update_properties(old)
        raise
    return ctx.empty()


@on_hudi_table(lambda statement: statement.table)
def set_properties(ctx: OperationContext, statement: st.AlterTableSetProperties, resolved: Resolved) -> DataFrame:
    where = f"ALTER TABLE {resolved.ident} SET TBLPROPERTIES"
    info = resolved.info
    assert info is not None
    current = {k.lower(): v for k, v in info.properties.items()}
    for key, value in statement.properties.items():
        if key.lower() in FIXED_PROPERTIES and current.get(key.lower()) != value:
            raise HudiSqlError(
                f"{where}: '{key}' is fixed when a Hudi table is created.",
                help="create a new table (CREATE TABLE ... AS SELECT) to change it",
            )
    validate_options({k: v for k, v in statement.properties.items() if k.startswith("hoodie.")}, where)
    ctx.catalog.set_properties(resolved.ident, statement.properties)
    return ctx.empty()


@on_hudi_table(lambda statement: statement.table)
def add_columns(ctx: OperationContext, statement: st.AlterTableAddColumns, resolved: Resolved) -> DataFrame:
    """Hudi's ``AlterHoodieTableAddColumnsCommand``: an empty ``ALTER_SCHEMA`` commit carrying the
    new schema (older files read the new columns as NULL), then the catalog's columns."""
    from pyspark.sql.types import StructType

    facts = ctx.facts(resolved)
    where = f"ALTER TABLE {resolved.ident} ADD COLUMNS"
    current = facts.data_schema or StructType([])
    existing = {f.name.lower() for f in current.fields} | {m.lower() for m in META_FIELDS}
    added = declared_schema(statement.columns)
    for field_ in added.fields:
        if field_.name.lower() in existing:
            raise HudiSqlError(f"{where}: column '{field_.name}' already exists.")
    new_schema = StructType(list(current.fields) + list(added.fields))
    meta = TableMetaClient.load(facts.location)
    action = Action.DELTA_COMMIT if meta.table_type is TableType.MERGE_ON_READ else Action.COMMIT
    txn = Transaction.begin(meta, action, ResolvedOptions.of(write_options(facts, ctx.options)))
    txn.start(CommitMetadata({}, "ALTER_SCHEMA"))
    txn.complete(
        CommitMetadata({}, "ALTER_SCHEMA", {"schema": avro_schema_json(new_schema, meta.table_name)})
    )
    info = resolved.info
    assert info is not None
    partitions = {p.lower() for p in info.partition_columns}
    catalog_schema = info.schema or current
    data = [f for f in catalog_schema.fields if f.name.lower() not in partitions]
    ctx.catalog.set_data_schema(resolved.ident, StructType(data + list(added.fields)))
    return ctx.empty()

