"""Hive sync's datasource form through Spark SQL: ``jdbc`` against a Spark Thrift server
(Spark's own, or hudi-sql's) and ``hiveql``.

Spark SQL refuses the ``spark.sql.*`` table properties that make a Hive table a datasource table
(what ``hms`` mode writes), and creating the Hive serde form makes Spark load Apache Hudi's
input format classes, which a Spark without Hudi's jars does not have. So with a Spark SQL
server the datasource form is registered with Spark's own DDL::

    CREATE TABLE db.t USING hudi [OPTIONS ('hoodie.datasource.query.type' = 'read_optimized')]
    LOCATION '<base path>'

(then ``ALTER TABLE ... SET TBLPROPERTIES`` for the sync's properties)

No columns and no partitions are declared: the server asks the ``hudi`` data source for the
schema, which comes marked with the table's location (:mod:`hudi_sql.spark.table_marker`), so
that server, and any Spark session on its metastore, reads the table by name (hudi-sql must be
installed where it runs); hudi-sql's own thriftserver registers the existing Hudi table. A later
sync registers a table again (drop and create; the table is external, its files stay) when its
columns no longer match the Hudi table's, and records ``last_commit_time_sync`` each time.
"""

from __future__ import annotations

__all__ = ["LAST_COMMIT_TIME_SYNC", "sync_with_spark_ddl", "uses_spark_ddl"]

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from catalog.dialects import render_spark, string
from catalog.dialects import table as table_tree
from catalog.hive import ddl
from catalog.hive.client import SqlDialect
from catalog.hive.config import HiveSyncConfig, HiveSyncSettings
from catalog.hive.schema import table_schema
from hudi_sql.config import HudiReadConfig
from hudi_sql.config.hive_naming import QUERY_AS_RO_TABLE
from hudi_sql.errors import HudiConfigError
from hudi_sql.spark.schema import add_meta_fields

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hudi_sql.table.meta_client import TableMetaClient

#: The table property recording the last instant synced (Apache Hudi's name).
LAST_COMMIT_TIME_SYNC = "last_commit_time_sync"


def uses_spark_ddl(settings: HiveSyncSettings, client: Any) -> bool:
    """Whether this sync registers the datasource form with Spark's DDL (see the module doc)."""
    return (getattr(client, "dialect", None) is SqlDialect.SPARK and settings.sync_as_datasource
            and not settings.sync_as_manifest)


def create_sql(database: str, table: str, base_path: str, *, read_optimized: bool) -> str:
    """Spark's DDL for the datasource form. Table properties are set after (``ALTER TABLE``):
    Spark hands those of a ``CREATE`` to the data source as read options, which must be Hudi's."""
    properties: list[exp.Expr] = [exp.FileFormatProperty(this=exp.var("hudi"))]
    if read_optimized:
        properties.append(exp.OptionsProperty(expressions=[
            exp.Property(this=string(HudiReadConfig.QUERY_TYPE.key), value=string("read_optimized"))]))
    properties.append(exp.LocationProperty(this=string(base_path)))
    return render_spark(exp.Create(this=table_tree(database, table), kind="TABLE",
                                   properties=exp.Properties(expressions=properties)))


def sync_with_spark_ddl(settings: HiveSyncSettings, meta_client: TableMetaClient, client: Any,
                        targets: Sequence[tuple[str, bool]]) -> tuple[bool, list[tuple[str, bool, str | None]]]:
    """Register (or re-register) each target table, given as (name, read-optimized): whether
    the database was created, and for each table its name, whether it was (re-)created, and the
    instant recorded as synced."""
    columns = {name.lower() for name in add_meta_fields(table_schema(meta_client)).fieldNames()}
    latest = meta_client.timeline.completed_writes().last
    database = settings.database
    create_database = not client.database_exists(database)
    if create_database:
        if not settings.auto_create_database:
            raise HudiConfigError(f"Hive database '{database}' does not exist.",
                                  help=f"create it, or set {HiveSyncConfig.AUTO_CREATE_DATABASE.key}=true")
        client.create_database(database)
    synced: list[tuple[str, bool, str | None]] = []
    for name, read_optimized in targets:
        existing = client.get_table(database, name)
        if existing is not None and existing.input_format is not None:
            raise HudiConfigError(
                f"{database}.{name} is a Hive serde table; the Spark SQL server syncs the datasource form.",
                help=f"drop it to sync it again, or set {HiveSyncConfig.SYNC_AS_DATASOURCE.key}=false")
        stale = existing is not None and {
            c.name.lower() for c in (*existing.columns, *existing.partition_columns)} != columns
        if stale:
            client.execute(ddl.drop_table(database, name))
        if existing is None or stale:
            client.execute(create_sql(database, name, meta_client.base_path, read_optimized=read_optimized))
        sync_time = latest.instant_time if latest is not None else None
        properties = {**settings.table_properties, QUERY_AS_RO_TABLE: "true" if read_optimized else "false"}
        if sync_time is not None:
            properties[LAST_COMMIT_TIME_SYNC] = sync_time
        # Set every time: Spark shows a Python data source table without its stored properties
        # (SHOW TBLPROPERTIES is empty), so what is already there cannot be compared.
        client.alter_table_properties(database, name, properties)
        synced.append((name, existing is None or stale, sync_time))
    return create_database, synced
