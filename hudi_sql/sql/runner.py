"""Runs typed statements: the place SQL meets the catalog, the engine and Spark.

One :class:`Runner` belongs to one :class:`~hudi_sql.sql.session.HudiSession`. For each
statement it looks the tables up in the catalog, asks :mod:`hudi_sql.sql.planner` what to do,
and executes: Hudi DDL in :mod:`hudi_sql.sql.ddl`, writes in :mod:`hudi_sql.sql.dml` (with
:mod:`hudi_sql.sql.merge`), EXPLAIN in :mod:`hudi_sql.sql.explain`, CALL in
:mod:`hudi_sql.sql.procedures`. Everything else is Spark's.

**Table references.** Every table a statement reads arrives as a placeholder
(:class:`~hudi_sql.sql.statements.TableRef`). :meth:`Runner.bound` binds each one for the
duration of the statement: a Hudi table becomes a temporary view over a snapshot read *now*
(``read_table`` plans its files when called, so every statement sees the latest commit),
honouring its hint, time travel or incremental range; any other table is put back as
written, for Spark to resolve. The views are dropped when the statement is done; the
DataFrame a query returns has already been analysed and keeps its plan.
"""

from __future__ import annotations

__all__ = ["METRICS_SCHEMA", "Resolved", "Runner"]

import itertools
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from catalog.base import TableIdent, TableInfo
from hudi_sql.config import HudiConfigs, HudiReadConfig, QueryType
from hudi_sql.errors import (
    HudiConfigError,
    HudiSqlError,
    TableNotFoundError,
    UnsupportedFeatureError,
    did_you_mean,
)
from hudi_sql.sql import statements as st
from hudi_sql.server import hive_table_resolution, synced_query_type
from hudi_sql.sql.planner import HudiTableFacts, read_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from catalog.base import Catalog
    from hudi_sql.sql.session import HudiSession
    from hudi_sql.write.client import WriteResult

METRICS_SCHEMA = (
    "num_affected_rows long, num_inserted_rows long, num_updated_rows long, "
    "num_deleted_rows long, instant_time string"
)
_GLOBAL_TEMP = "global_temp"
#: Session keys that are not ``hoodie.*`` but belong to hudi-sql's reads (time travel).
_SESSION_EXTRA_KEYS = frozenset({HudiReadConfig.AS_OF_INSTANT.key})
_view_ids = itertools.count()


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


class Runner:
    """Executes statements for one session (see the module doc)."""

    def __init__(self, session: HudiSession) -> None:
        self.session = session

    # -- session state ----------------------------------------------------------------------

    @property
    def spark(self) -> SparkSession:
        return self.session.spark

    @property
    def catalog(self) -> Catalog:
        return self.session.catalog

    @property
    def options(self) -> dict[str, str]:
        return self.session.options

    def empty(self) -> DataFrame:
        from pyspark.sql.types import StructType

        return self.spark.createDataFrame([], StructType([]))

    def rows(self, schema: str, rows: list[tuple[Any, ...]]) -> DataFrame:
        return self.spark.createDataFrame(rows, schema)

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
        if self._is_temp_view(name) or ident.database == _GLOBAL_TEMP:
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
        from hudi_sql.model.schema import from_avro_schema
        from hudi_sql.table.meta_client import TableMetaClient

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
        catalog_schema = info.schema
        return HudiTableFacts(
            name=str(info.ident.name),
            location=info.location,
            table_properties=dict(meta.properties),
            catalog_properties=dict(info.properties),
            data_schema=from_avro_schema(schema_json) if schema_json else None,
            catalog_schema=catalog_schema,
        )

    # -- binding table references -----------------------------------------------------------

    def snapshot(
        self,
        location: str,
        options: Mapping[str, str] | None = None,
        *,
        partitions: frozenset[str] | None = None,
    ) -> DataFrame:
        """A read of the table at *location* planned now; only *partitions* when given."""
        from hudi_sql.read.api import read_table

        keep = partitions.__contains__ if partitions is not None else None
        return read_table(self.spark, location, dict(options or {}), partition_filter=keep)

    def register_view(self, df: DataFrame, prefix: str = "hudi_view") -> str:
        name = f"__{prefix}_{next(_view_ids)}_{uuid.uuid4().hex[:8]}"
        df.createOrReplaceTempView(name)
        return name

    def drop_view(self, name: str) -> None:
        self.spark.catalog.dropTempView(name)

    @contextmanager
    def temp_views(self) -> Iterator[list[str]]:
        """Views registered inside the block are dropped when it ends."""
        created: list[str] = []
        try:
            yield created
        finally:
            for name in created:
                self.drop_view(name)

    @contextmanager
    def bound(self, refs: tuple[st.TableRef, ...]) -> Iterator[dict[str, str]]:
        """Placeholders -> views for *refs* (Hudi tables only) for the duration of the block."""
        with self.temp_views() as created:
            views: dict[str, str] = {}
            for ref in refs:
                df = self._ref_frame(ref)
                if df is not None:
                    name = self.register_view(df)
                    created.append(name)
                    views[ref.placeholder] = name
            yield views

    def _ref_frame(self, ref: st.TableRef) -> DataFrame | None:
        if ref.path is not None:
            return self.snapshot(ref.path, read_options(ref, self.options))
        assert ref.name is not None
        resolved, query_type = self._resolve_read(ref.name)
        if not resolved.is_hudi:
            self._check_plain_ref(ref)
            return None
        info = resolved.info
        assert info is not None and info.location is not None
        if query_type is not None and ref.query_type is None and ref.as_of is None and ref.table_function is None:
            ref = replace(ref, query_type=query_type)
        return self.snapshot(info.location, read_options(ref, self.options))

    def _resolve_read(self, name: st.TableName) -> tuple[Resolved, QueryType | None]:
        """The table a query reads under *name*, and the query type its Hive name implies.

        Hive sync registers a Merge-On-Read table ``t`` as ``t_ro`` / ``t_rt``: such a catalog
        table is read read-optimized / snapshot (its ``hoodie.query.as.ro.table`` property, else
        its suffix), and when only ``t`` is registered, ``t_ro`` / ``t_rt`` read ``t`` that way.
        """
        resolved = self.lookup(name)
        if resolved is not None:
            info = resolved.info
            return resolved, synced_query_type(info.ident.name, info.properties) if resolved.is_hudi and info else None
        synced = hive_table_resolution(name.name)
        if synced is not None:
            base = self.lookup(replace(name, name=synced[0]))
            if base is not None and base.is_hudi:
                return base, synced[1]
        raise self.not_found(self.ident(name))

    def _check_plain_ref(self, ref: st.TableRef) -> None:
        what = None
        if ref.table_function:
            what = f"{ref.table_function}(...)"
        elif ref.query_type is not None:
            what = f"the hint {ref.query_type.value.upper()}({ref.visible_name})"
        if what is not None:
            raise HudiSqlError(
                f"{what} names '{ref.name}', which is not a Hudi table.",
                help="read hints and Hudi table functions apply to Hudi tables only",
            )

    def query(self, query: st.Query) -> DataFrame:
        """A query as a DataFrame (analysed now, against snapshots read now)."""
        with self.bound(query.table_refs) as views:
            return self.spark.sql(query.bind(views))

    # -- statements ---------------------------------------------------------------------------

    def run(self, statement: st.Statement) -> DataFrame:
        handler = _HANDLERS.get(type(statement))
        if handler is None:
            raise UnsupportedFeatureError(f"not supported: {type(statement).__name__} statements")
        return handler(self, statement)

    def _select(self, statement: st.Statement) -> DataFrame:
        assert isinstance(statement, st.Select)
        return self.query(statement)

    def _passthrough(self, statement: st.Statement) -> DataFrame:
        assert isinstance(statement, st.Passthrough)
        for target in statement.targets:
            resolved = self.lookup(target)
            if resolved is not None and resolved.is_hudi:
                raise UnsupportedFeatureError(
                    f"not supported: {statement.kind or 'this statement'} on Hudi table '{target}'",
                    help="on Hudi tables hudi-sql runs queries, INSERT, UPDATE, DELETE, MERGE, "
                    "CREATE / DROP / "
                    "TRUNCATE TABLE, ALTER TABLE ADD COLUMNS / SET TBLPROPERTIES / RENAME TO / DROP "
                    "PARTITION, SHOW PARTITIONS / CREATE TABLE and DESCRIBE",
                )
        if statement.kind.upper().startswith("CREATE VIEW") and statement.table_refs:
            self._refuse_permanent_view(statement)
        if statement.kind.upper().startswith(("CREATE VIEW", "CACHE")):
            # A temporary view (or cache) keeps its query's text and re-resolves it on use, so the
            # snapshot views it reads must outlive the statement: they stay for the session.
            views = {
                ref.placeholder: name
                for ref in statement.table_refs
                if (name := self._keep_view(ref)) is not None
            }
            return self.spark.sql(statement.bind(views))
        with self.bound(statement.table_refs) as views:
            return self.spark.sql(statement.bind(views))

    def _keep_view(self, ref: st.TableRef) -> str | None:
        df = self._ref_frame(ref)
        return self.register_view(df, "hudi_kept") if df is not None else None

    def _refuse_permanent_view(self, statement: st.Passthrough) -> None:
        text = statement.sql.upper().split("VIEW", 1)[0]
        if "TEMP" in text:
            return
        for ref in statement.table_refs:
            resolved = self.lookup(ref.name) if ref.name is not None else None
            if ref.path is not None or (resolved is not None and resolved.is_hudi):
                raise UnsupportedFeatureError(
                    "not supported: a permanent view over a Hudi table "
                    "(Spark cannot read Hudi tables by itself)",
                    help="CREATE TEMPORARY VIEW ... works, or query the table through hudi-sql",
                )

    # SET / RESET -----------------------------------------------------------------------------

    @staticmethod
    def _is_session_key(key: str) -> bool:
        return key.startswith("hoodie.") or key in _SESSION_EXTRA_KEYS

    def _set(self, statement: st.Statement) -> DataFrame:
        assert isinstance(statement, st.SetOption)
        key, value = statement.key, statement.value
        if self._is_session_key(key):
            try:
                _validate_value(HudiConfigs.of({key: value}), key)
            except HudiConfigError as e:
                raise HudiConfigError(f"SET {key}: {e}") from None
            self.options[key] = value
        else:
            self.spark.conf.set(key, value)
        return self.rows("key string, value string", [(key, value)])

    def _show_option(self, statement: st.Statement) -> DataFrame:
        assert isinstance(statement, st.ShowOption)
        if statement.key is not None and self._is_session_key(statement.key):
            value = self.options.get(statement.key, "<undefined>")
            return self.rows("key string, value string", [(statement.key, value)])
        if statement.key is not None:
            return self.spark.sql(f"SET {statement.key}")
        spark_rows = self.spark.sql("SET -v" if statement.verbose else "SET")
        if not self.options:
            return spark_rows
        ours = self.spark.createDataFrame(
            [(k, v) + (("",) * (len(spark_rows.columns) - 2)) for k, v in sorted(self.options.items())],
            spark_rows.schema,
        )
        return spark_rows.unionByName(ours)

    def _reset(self, statement: st.Statement) -> DataFrame:
        assert isinstance(statement, st.ResetOption)
        if statement.key is None:
            self.options.clear()
            self.spark.sql("RESET")
        elif self._is_session_key(statement.key):
            self.options.pop(statement.key, None)
        else:
            self.spark.conf.unset(statement.key)
        return self.empty()

    # Delegates ------------------------------------------------------------------------------

    def _call(self, statement: st.Statement) -> DataFrame:
        from hudi_sql.sql.procedures import call

        assert isinstance(statement, st.Call)
        return call(self, statement)

    def _explain(self, statement: st.Statement) -> DataFrame:
        from hudi_sql.sql.explain import explain

        assert isinstance(statement, st.Explain)
        return explain(self, statement)


def _validate_value(configs: HudiConfigs, key: str) -> None:
    """Parse the value of a registered key now, so that a bad SET fails at the SET."""
    from hudi_sql.config import all_config_enums

    for enum in all_config_enums():
        for member in enum:
            if member.key == key or key in member.spec.aliases:
                configs.get(member)
                return


def _ddl(name: str) -> Callable[[Runner, st.Statement], DataFrame]:
    def run(runner: Runner, statement: st.Statement) -> DataFrame:
        from hudi_sql.sql import ddl

        return getattr(ddl, name)(runner, statement)  # type: ignore[no-any-return]

    return run


def _dml(name: str) -> Callable[[Runner, st.Statement], DataFrame]:
    def run(runner: Runner, statement: st.Statement) -> DataFrame:
        from hudi_sql.sql import dml

        return getattr(dml, name)(runner, statement)  # type: ignore[no-any-return]

    return run


_HANDLERS: dict[type[st.Statement], Callable[[Runner, st.Statement], DataFrame]] = {
    st.Select: Runner._select,
    st.Passthrough: Runner._passthrough,
    st.SetOption: Runner._set,
    st.ShowOption: Runner._show_option,
    st.ResetOption: Runner._reset,
    st.Call: Runner._call,
    st.Explain: Runner._explain,
    st.CreateTable: _ddl("create_table"),
    st.DropTable: _ddl("drop_table"),
    st.AlterTableAddColumns: _ddl("add_columns"),
    st.AlterTableSetProperties: _ddl("set_properties"),
    st.AlterTableRename: _ddl("rename_table"),
    st.AlterTableDropPartition: _ddl("drop_partition"),
    st.ShowPartitions: _ddl("show_partitions"),
    st.TruncateTable: _ddl("truncate_table"),
    st.ShowCreateTable: _ddl("show_create_table"),
    st.DescribeTable: _ddl("describe_table"),
    st.InsertInto: _dml("insert_into"),
    st.Update: _dml("update"),
    st.Delete: _dml("delete"),
    st.MergeInto: _dml("merge_into"),
}
