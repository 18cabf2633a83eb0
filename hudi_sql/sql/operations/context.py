"""What every SQL operation works with: the Spark session, the catalog, the session's options,
and table resolution (:class:`OperationContext`).

An operation is one function per statement kind (``operations/<family>.py``), called with the
context and its statement; :mod:`.dispatch` picks it by the statement's type.
"""

from __future__ import annotations

__all__ = ["METRICS_SCHEMA", "OperationContext", "Resolved"]

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from catalog.base import TableIdent, TableInfo
from hudi_sql.engine.read import read_table
from hudi_sql.errors import TableNotFoundError, UnsupportedFeatureError, did_you_mean
from hudi_sql.spark.local_frame import local_frame
from hudi_sql.spark.schema import from_avro_schema
from hudi_sql.sql import statements as st
from hudi_sql.sql.planner import HudiTableFacts
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from catalog.base import Catalog
    from hudi_sql.engine.write_client import WriteResult
    from hudi_sql.read.skipping import ColumnPredicate

METRICS_SCHEMA = (
    "num_affected_rows long, num_inserted_rows long, num_updated_rows long, "
    "num_deleted_rows long, instant_time string"
)
GLOBAL_TEMP = "global_temp"


@dataclass(frozen=True)
class Resolved:
    """A table name resolved against the session: a temp view, a catalog table (Hudi or
    not), with the facts the planner needs when it is a Hudi table."""

    ident: TableIdent
    info: TableInfo | None = None
    temp_view: bool = False

    @property
    def is_hudi(self) -> bool:
        return self.info is not None and self.info.is_hudi


class OperationContext:
    """One session's view for operations: Spark, the catalog, the ``SET`` options (the
    session's own dict, so a ``SET`` is seen by the next statement) and table resolution."""

    def __init__(self, spark: SparkSession, catalog: Catalog, options: dict[str, str]) -> None:
        self.spark = spark
        self.catalog = catalog
        self.options = options

    # -- results ----------------------------------------------------------------------------

    def empty(self) -> DataFrame:
        from pyspark.sql.types import StructType

        return self.spark.createDataFrame([], StructType([]))

    def rows(self, schema: str, rows: list[tuple[Any, ...]]) -> DataFrame:
        """A statement's result rows (no timestamp columns), kept in Spark's plan: showing or
        collecting them runs no Spark job."""
        return local_frame(self.spark, rows, schema)

    def metrics(self, result: WriteResult | None, *, affected: int | None = None) -> DataFrame:
        """The one-row result of a DML statement."""
        if result is None:
            return self.rows(METRICS_SCHEMA, [(0 if affected is None else affected, 0, 0, 0, None)])
        inserted, updated, deleted = result.num_inserted, result.num_updated, result.num_deleted
        total = inserted + updated + deleted if affected is None else affected
        return self.rows(METRICS_SCHEMA, [(total, inserted, updated, deleted, result.instant_time)])

    # -- names ------------------------------------------------------------------------------

    def ident(self, name: st.TableName) -> TableIdent:
        database = (name.database or self.catalog.current_database()).lower()
        return TableIdent(database, name.name.lower())

    def _is_temp_view(self, name: st.TableName) -> bool:
        if name.database is not None:
            return False
        jcatalog = self.spark._jsparkSession.sessionState().catalog()
        return bool(jcatalog.getTempView(name.name).isDefined())

    def resolve(self, name: st.TableName) -> Resolved:
        """The table *name* stands for, or a :class:`TableNotFoundError` with a "did you mean"."""
        resolved = self.lookup(name)
        if resolved is None:
            raise self.not_found(self.ident(name))
        return resolved

    def lookup(self, name: st.TableName) -> Resolved | None:
        """The table *name* stands for, or ``None``."""
        ident = self.ident(name)
        if self._is_temp_view(name) or ident.database == GLOBAL_TEMP:
            return Resolved(ident, temp_view=True)
        info = self.catalog.load_table(ident)
        return Resolved(ident, info) if info is not None else None

    def not_found(self, ident: TableIdent, what: str = "Table or view") -> TableNotFoundError:
        if not self.catalog.database_exists(ident.database):
            return TableNotFoundError(
                f"{what} '{ident}' not found: database '{ident.database}' does not exist."
            )
        candidates = [t.name for t in self.catalog.list_tables(ident.database)]
        candidates += self._temp_views()
        return TableNotFoundError(
            f"{what} '{ident.name}' not found in database '{ident.database}'."
            f"{did_you_mean(ident.name, candidates)}",
            help="SHOW TABLES lists the tables of the current database",
        )

    def _temp_views(self) -> list[str]:
        jcatalog = self.spark._jsparkSession.sessionState().catalog()
        views = self.spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(
            jcatalog.listLocalTempViews("*")
        )
        return [str(v.table()) for v in views if not str(v.table()).startswith("__hudi_")]

    def hudi_table(self, name: st.TableName, what: str) -> tuple[Resolved, HudiTableFacts]:
        """A Hudi table of the catalog, with its facts; errors for anything else."""
        resolved = self.resolve(name)
        if not resolved.is_hudi:
            kind = "a temporary view" if resolved.temp_view else "not a Hudi table"
            raise UnsupportedFeatureError(
                f"not supported: {what} on '{name}', which is {kind}",
                help="hudi-sql runs this statement on Hudi tables (USING hudi)",
            )
        return resolved, self.facts(resolved)

    def facts(self, resolved: Resolved) -> HudiTableFacts:
        info = resolved.info
        assert info is not None and info.location is not None
        try:
            meta = TableMetaClient.load(info.location)
        except TableNotFoundError as e:
            raise TableNotFoundError(
                f"Table {info.ident} is registered at '{info.location}', but no Hudi table is there.",
                help=f"DROP TABLE {info.ident} to unregister it",
            ) from e
        schema_json = meta.latest_schema()
        return HudiTableFacts(
            name=str(info.ident.name),
            location=info.location,
            table_properties=dict(meta.properties),
            catalog_properties=dict(info.properties),
            data_schema=from_avro_schema(schema_json) if schema_json else None,
            catalog_schema=info.schema,
            stored_keys_value_only=meta.stored_keys_value_only(),
        )

    def snapshot(self, location: str, options: dict[str, str] | None = None, *,
                 partitions: frozenset[str] | None = None, filters: tuple[ColumnPredicate, ...] = ()) -> DataFrame:
        """A read of the table at *location* planned now; only *partitions* when given, and with
        the query's *filters* for data skipping."""
        keep = partitions.__contains__ if partitions is not None else None
        return read_table(self.spark, location, dict(options or {}), partition_filter=keep, data_filters=filters)
