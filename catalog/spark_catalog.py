"""The default catalog: Spark's session catalog and its metastore (embedded Derby or thrift Hive).

Tables are created with Spark SQL (``CREATE TABLE ... USING hudi``, which needs the ``hudi``
data source registered: :mod:`hudi_sql.engine.datasource`) and read back from the metastore
through the session catalog's ``ExternalCatalog``. Spark's own ``DESCRIBE`` and
``spark.catalog`` are no use here: a ``USING hudi`` table is a Python (V2) data source table,
and they show it without its location, provider, partitioning or properties, which the
metastore does keep.

Managed tables are registered without a location, so that Spark places them
(``<warehouse>/<table>`` in ``default``, ``<warehouse>/<db>.db/<table>`` elsewhere) and marks
them MANAGED: dropping such a table deletes its files, as in Spark and Hudi. Spark refuses a
managed table whose folder already exists, so the SQL runner registers a managed table first
and writes ``.hoodie/`` after; an external table (``LOCATION``) is registered after its Hudi
table exists.

Which tables are Hudi tables (:meth:`SparkSessionCatalog.load_table`): every form hive sync
writes, always confirmed by the ``.hoodie/hoodie.properties`` of the table's base path (never
by listing data files):

* the datasource form: provider ``hudi`` (``USING hudi``, or ``spark.sql.sources.provider``);
* the Hive serde form: input format ``HoodieParquetInputFormat`` (read-optimized for a
  Merge-On-Read table) or ``HoodieParquetRealtimeInputFormat`` (snapshot), base path = location;
* the manifest form: input format ``SymlinkTextInputFormat`` with the base path in the table
  property :data:`~catalog.hive.config.MANIFEST_BASE_PATH_PROPERTY` (its location is the
  manifest folder), read-optimized like the manifests.

Hive serde tables found to be Hudi are reported with provider ``hudi`` and the base path as
their location, so queries through hudi-sql bind them to a snapshot instead of letting Spark
list every file version.

Every Hudi table registered here carries its base path in its stored schema (the marker of
:mod:`hudi_sql.spark.table_marker`, written after ``CREATE TABLE``, ``ADD COLUMNS`` and
``RENAME``), so Spark's own ``SELECT`` of it works in any session through the ``hudi`` data
source; the schemas :meth:`SparkSessionCatalog.load_table` reports come without the marker.
"""

from __future__ import annotations

__all__ = ["MANAGED_IN_WAREHOUSE", "SparkSessionCatalog", "column_definitions"]

import json
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sqlglot
from py4j.protocol import Py4JError
from sqlglot import exp

from catalog.base import TableIdent, TableInfo
from catalog.dialects import CatalogSpark, identifier, render_spark, string
from catalog.hive.config import MANIFEST_BASE_PATH_PROPERTY
from catalog.hive.ddl import HUDI_INPUT_FORMATS
from catalog.hive.manifest import SYMLINK_INPUT_FORMAT
from hudi_sql.config import QueryType
from hudi_sql.config.hive_naming import QUERY_AS_RO_TABLE, synced_query_type
from hudi_sql.engine.session import REMOTE_WAREHOUSE_CONF
from hudi_sql.errors import HudiError, TableAlreadyExistsError, TableNotFoundError
from hudi_sql.spark.table_marker import marked, unmarked
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

_log = logging.getLogger(__name__)

# Keys Spark's V2 catalog path stores among the table properties; they are not user properties.
#: The table property of a managed Hudi table in an object-store warehouse: the metastore knows it
#: as external (Spark places managed tables only in its own, local, warehouse), the property
#: makes DROP TABLE delete its files all the same.
MANAGED_IN_WAREHOUSE = "hudi_sql.managed"

_RESERVED_PROPERTIES = frozenset(
    {"location", "provider", "owner", "comment", "external", "is_managed_location"}
)

def _hudi_base_path(input_format: str | None, location: str | None,
                    properties: Mapping[str, str]) -> tuple[str, bool] | None:
    """The base path and read-optimized flag of a Hive serde table that is a synced Hudi table."""
    if input_format == SYMLINK_INPUT_FORMAT and properties.get(MANIFEST_BASE_PATH_PROPERTY):
        base, read_optimized = properties[MANIFEST_BASE_PATH_PROPERTY], True
    elif input_format in HUDI_INPUT_FORMATS and location:
        base, read_optimized = location, HUDI_INPUT_FORMATS[input_format]
    else:
        return None
    return (base, read_optimized) if Storage().exists(TableLayout.of(base).properties_path) else None


def _data_fields(schema: StructType, partition_columns: Sequence[str]) -> StructType:
    from pyspark.sql.types import StructType

    return StructType([f for f in schema.fields if f.name not in partition_columns])


def column_definitions(spark: SparkSession, schema: StructType) -> list[exp.ColumnDef]:
    """*schema*'s columns as trees, read from Spark's own DDL of each field (its types, nullability
    and comments exactly as Spark writes them, names quoted)."""
    fields = spark._jsparkSession.parseDataType(schema.json()).fields()
    return [sqlglot.parse_one(str(f.toDDL()), read=CatalogSpark, into=exp.ColumnDef) for f in fields]


class SparkSessionCatalog:
    """:class:`catalog.base.Catalog` over ``spark.sessionState.catalog`` (the ``spark_catalog``)."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    # -- JVM helpers ----------------------------------------------------------------------

    @property
    def _jvm(self) -> Any:
        return self.spark._jvm

    @property
    def _session_catalog(self) -> Any:
        return self.spark._jsparkSession.sessionState().catalog()

    @property
    def _external(self) -> Any:
        return self._session_catalog.externalCatalog()

    def _java(self, scala_collection: Any) -> Any:
        return self._jvm.scala.jdk.javaapi.CollectionConverters.asJava(scala_collection)

    def _table_identifier(self, ident: TableIdent) -> Any:
        return self._jvm.org.apache.spark.sql.catalyst.TableIdentifier.apply(
            ident.name, self._jvm.scala.Some(ident.database)
        )

    def _struct(self, schema: StructType) -> Any:
        return self.spark._jsparkSession.parseDataType(schema.json())

    # -- Catalog ----------------------------------------------------------------------------

    def current_database(self) -> str:
        return str(self.spark.catalog.currentDatabase())

    def database_exists(self, database: str) -> bool:
        return bool(self._external.databaseExists(database))

    def default_location(self, ident: TableIdent) -> str:
        if not self.database_exists(ident.database):
            raise TableNotFoundError(
                f"Database '{ident.database}' does not exist.", help=f"CREATE DATABASE {ident.database}"
            )
        remote = self._remote_warehouse()
        if remote:
            root = remote if ident.database == "default" else f"{remote}/{ident.database}.db"
        else:
            root = str(self._external.getDatabase(ident.database).locationUri().toString()).rstrip("/")
        return f"{root}/{ident.name}"

    def _remote_warehouse(self) -> str | None:
        """The object-store warehouse of managed Hudi tables, when the session has one
        (:data:`~hudi_sql.engine.session.REMOTE_WAREHOUSE_CONF`): :meth:`create_table` registers them
        with their location there, marked managed by :data:`MANAGED_IN_WAREHOUSE`."""
        value = self.spark.conf.get(REMOTE_WAREHOUSE_CONF, None)
        return value.rstrip("/") if value else None

    def create_table(
        self,
        ident: TableIdent,
        *,
        schema: StructType,
        provider: str = "hudi",
        partition_columns: Sequence[str] = (),
        location: str | None = None,
        properties: Mapping[str, str] | None = None,
        comment: str | None = None,
    ) -> TableInfo:
        if self.table_exists(ident):
            raise TableAlreadyExistsError(
                f"Table {ident} already exists.", help="use CREATE TABLE IF NOT EXISTS, or DROP TABLE first"
            )
        if location is None and self._remote_warehouse():
            # Spark places managed tables only in the metastore's own (local) warehouse: one in the
            # bucket is registered at its place there and marked managed
            location = self.default_location(ident)
            properties = {**(properties or {}), MANAGED_IN_WAREHOUSE: "true"}
        columns = column_definitions(self.spark, schema)
        clauses: list[exp.Expr] = [exp.FileFormatProperty(this=exp.var(provider))]
        if partition_columns:
            clauses.append(exp.PartitionedByProperty(
                this=exp.Schema(expressions=[identifier(c) for c in partition_columns])))
        if location:
            clauses.append(exp.LocationProperty(this=string(location)))
        if comment:
            clauses.append(exp.SchemaCommentProperty(this=string(comment)))
        clauses += [exp.Property(this=string(k), value=string(v)) for k, v in (properties or {}).items()
                       if k.lower() not in _RESERVED_PROPERTIES]
        self.spark.sql(render_spark(exp.Create(this=exp.Schema(this=ident.tree(), expressions=columns), kind="TABLE",
                                               properties=exp.Properties(expressions=clauses))))
        info = self.load_table(ident)
        if info is None:  # pragma: no cover - Spark just created it
            raise HudiError(f"Table {ident} was created but cannot be found in the catalog.")
        if info.is_hudi and info.schema is not None:
            self._alter_data_schema(info, _data_fields(info.schema, info.partition_columns))
        return info

    def create_view(
        self,
        ident: TableIdent,
        *,
        text: str,
        schema: StructType,
        properties: Mapping[str, str] | None = None,
        comment: str | None = None,
    ) -> TableInfo:
        """Spark's ``CREATE VIEW`` analyses the query with Spark's own reader, so the view is
        written to the metastore directly, with the properties a view made by Spark carries (its
        namespace and output columns): Spark then shows, describes and reads it as its own."""
        if self.table_exists(ident):
            raise TableAlreadyExistsError(
                f"Table or view {ident} already exists.",
                help="use CREATE OR REPLACE VIEW, or CREATE VIEW IF NOT EXISTS",
            )
        jvm = self._jvm
        catalog_pkg = jvm.org.apache.spark.sql.catalyst.catalog
        table_class = catalog_pkg.CatalogTable
        view_properties = {
            "view.catalogAndNamespace.numParts": "2",
            "view.catalogAndNamespace.part.0": "spark_catalog",
            "view.catalogAndNamespace.part.1": ident.database,
            "view.query.out.numCols": str(len(schema.fields)),
            **{f"view.query.out.col.{i}": f.name for i, f in enumerate(schema.fields)},
            **(properties or {}),
        }
        java_map = jvm.java.util.HashMap()
        for key, value in view_properties.items():
            java_map.put(key, value)
        scala_map = jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(java_map)
        overrides = {
            1: self._table_identifier(ident),
            2: catalog_pkg.CatalogTableType.VIEW(),
            3: catalog_pkg.CatalogStorageFormat.empty(),
            4: self._struct(schema),
            12: scala_map,
            14: jvm.scala.Some(text),
            15: jvm.scala.Some(comment) if comment else jvm.scala.Option.empty(),
            21: jvm.scala.Some(text),
        }
        args = [overrides[i] if i in overrides else getattr(table_class, f"apply$default${i}")() for i in range(1, 23)]
        self._session_catalog.createTable(table_class.apply(*args), False, True)
        info = self.load_table(ident)
        if info is None:  # pragma: no cover - just created
            raise HudiError(f"View {ident} was created but cannot be found in the catalog.")
        return info

    def load_table(self, ident: TableIdent) -> TableInfo | None:
        from pyspark.sql.types import StructType

        external = self._external
        if not external.databaseExists(ident.database) or not external.tableExists(
            ident.database, ident.name
        ):
            return None
        table = external.getTable(ident.database, ident.name)
        storage_location = table.storage().locationUri()
        location = str(storage_location.get().toString()) if storage_location.isDefined() else None
        provider = str(table.provider().get()) if table.provider().isDefined() else None
        properties = {
            str(k): str(v)
            for k, v in dict(self._java(table.properties())).items()
            if str(k).lower() not in _RESERVED_PROPERTIES
        }
        # Hive sync keeps the ro-table flag with the storage (serde) properties, where Apache Hudi
        # reads it too: it decides how a synced <t>_ro / <t>_rt is read.
        for key, value in dict(self._java(table.storage().properties())).items():
            if str(key).lower() == QUERY_AS_RO_TABLE:
                properties.setdefault(QUERY_AS_RO_TABLE, str(value))
        input_format = table.storage().inputFormat()
        if (provider or "").lower() == "hive" and input_format.isDefined():
            synced = _hudi_base_path(str(input_format.get()), location, properties)
            if synced is not None:
                provider, location = "hudi", synced[0]
                properties.setdefault(QUERY_AS_RO_TABLE, "true" if synced[1] else "false")
        schema = unmarked(StructType.fromJson(json.loads(str(table.schema().json()))))
        comment = str(table.comment().get()) if table.comment().isDefined() else None
        table_type = str(table.tableType().name())
        in_object_store_warehouse = properties.pop(MANAGED_IN_WAREHOUSE, None) == "true"
        return TableInfo(
            ident=TableIdent(str(table.identifier().database().get()), str(table.identifier().table())),
            location=location,
            provider=provider,
            properties=properties,
            schema=schema,
            partition_columns=tuple(str(c) for c in self._java(table.partitionColumnNames())),
            managed=table_type == "MANAGED" or in_object_store_warehouse,
            comment=comment,
            table_type="VIEW" if table_type == "VIEW" else "TABLE",
            view_text=str(table.viewText().get()) if table.viewText().isDefined() else None,
        )

    def table_exists(self, ident: TableIdent) -> bool:
        external = self._external
        return bool(
            external.databaseExists(ident.database) and external.tableExists(ident.database, ident.name)
        )

    def list_tables(self, database: str | None = None) -> list[TableIdent]:
        db = database or self.current_database()
        if not self.database_exists(db):
            return []
        return [TableIdent(db, str(name)) for name in self._java(self._external.listTables(db))]

    def drop_table(self, ident: TableIdent) -> None:
        self.spark.sql(render_spark(exp.Drop(tables=[ident.tree()], kind="TABLE")))

    def set_properties(self, ident: TableIdent, properties: Mapping[str, str]) -> None:
        if not properties:
            return
        pairs = [exp.Property(this=string(k), value=string(v)) for k, v in properties.items()]
        self.spark.sql(render_spark(exp.Alter(this=ident.tree(), kind="TABLE", actions=[
            exp.AlterSet(expressions=[exp.Properties(expressions=pairs)])])))

    def set_data_schema(self, ident: TableIdent, data_schema: StructType) -> None:
        info = self.load_table(ident)
        if info is None:
            raise TableNotFoundError(f"Table {ident} not found.")
        self._alter_data_schema(info, data_schema)

    def _alter_data_schema(self, info: TableInfo, data_schema: StructType) -> None:
        """Store *data_schema*, with a Hudi table's location marker (:mod:`hudi_sql.spark.table_marker`)."""
        if info.is_hudi and info.location:
            data_schema = marked(data_schema, info.location,
                                 read_optimized=synced_query_type(info.properties)
                                 is QueryType.READ_OPTIMIZED)
        # Hive's alter handler logs an ERROR for datasource tables, then Spark stores the schema
        # in the table properties as intended; keep that noise out of the shell.
        try:
            level = self._jvm.org.apache.logging.log4j.Level.OFF
            self._jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(
                "org.apache.hadoop.hive.metastore.HiveAlterHandler", level
            )
        except Py4JError:  # pragma: no cover - another logging backend; the noise is cosmetic
            _log.debug("Could not silence Hive's alter handler log.")
        self._session_catalog.alterTableDataSchema(self._table_identifier(info.ident), self._struct(data_schema))

    def rename(self, ident: TableIdent, new_ident: TableIdent) -> None:
        self.spark.sql(render_spark(exp.Alter(this=ident.tree(), kind="TABLE",
                                              actions=[exp.AlterRename(this=new_ident.tree())])))
        info = self.load_table(new_ident)  # a managed table moved: its marker follows
        if info is not None and info.is_hudi and info.schema is not None:
            self._alter_data_schema(info, _data_fields(info.schema, info.partition_columns))
