"""Metastore clients for hive sync: the only I/O of :mod:`catalog.hive`.

One protocol, three implementations, chosen by ``hoodie.datasource.hive_sync.mode``:

``jdbc`` -> :class:`JdbcMetastoreClient`
    DDL text (:mod:`catalog.hive.ddl`) over a HiveServer2 connection (PyHive); metadata read
    back with ``SHOW``/``DESCRIBE``. The server's SQL dialect is detected from the protocol's
    ``GetInfo(CLI_DBMS_NAME)``: Apache Hive, or Spark's Thrift server ("Spark SQL").
``hms`` -> :class:`HmsMetastoreClient`
    Hive's own Java ``HiveMetaStoreClient`` (thrift) driven through the py4j gateway of a
    SparkSession, as Hudi's ``HMSDDLExecutor`` does: structured calls (``create_table``,
    ``add_partitions``, ``alter_table_with_environmentContext``, ``dropPartition``), no SQL. It
    talks to ``hoodie.datasource.hive_sync.metastore.uris`` whatever metastore the session itself
    uses; the session only lends its JVM (the PySpark wheel ships the Hive client jars).
    There is no pure-Python thrift metastore client among our dependencies.
``hiveql`` -> :class:`SparkSqlMetastoreClient`
    The same DDL text run by ``spark.sql`` in the session's own catalog.

Spark as the SQL engine (jdbc against a Spark Thrift server, Spark's or hudi-sql's, and
hiveql) refuses table properties starting with ``spark.sql.`` ("Cannot persist ... into Hive
metastore"), so the datasource form (``sync_as_datasource``, the default) is registered there
with Spark's own DDL instead (:mod:`catalog.hive.spark_datasource`). For the Hive serde form
(``sync_as_datasource=false``) two limits remain:

* Spark has neither ``REPLACE COLUMNS`` nor type changes for Hive tables: new columns are added
  with ``ADD COLUMNS``, other schema changes raise :class:`~hudi_sql.errors.UnsupportedFeatureError`.
* Spark loads the table's InputFormat class when it creates or alters a Hive table, so
  ``org.apache.hudi.hadoop.HoodieParquetInputFormat`` (Hudi's hadoop-mr bundle) must be on that
  Spark's classpath, as Hudi's docs require for any engine that queries synced tables.

``hms`` mode has neither limit.
"""

from __future__ import annotations

__all__ = [
    "HivePartition",
    "HiveSyncError",
    "HiveTable",
    "HmsMetastoreClient",
    "JdbcMetastoreClient",
    "JdbcTarget",
    "MetastoreClient",
    "SparkSqlMetastoreClient",
    "SqlDialect",
    "client_for",
    "parse_describe",
    "parse_jdbc_url",
]

import getpass
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from catalog.hive import ddl
from catalog.hive.config import HiveSyncConfig, HiveSyncMode, HiveSyncSettings
from catalog.hive.partition_values import parse_partition_name
from catalog.hive.schema import HiveColumn, SchemaDifference
from hudi_sql.errors import HudiConfigError, HudiError, NotInstalledError, UnsupportedFeatureError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_log = logging.getLogger(__name__)

SPARK_PROPERTY_PREFIX = "spark.sql."


class HiveSyncError(HudiError):
    """The metastore refused or failed a sync operation (the cause is chained)."""


@dataclass(frozen=True)
class HiveTable:
    """What the metastore knows about one table.

    ``serde_properties`` / ``location`` are ``None`` when the client cannot read them.
    """

    database: str
    table: str
    columns: tuple[HiveColumn, ...]
    partition_columns: tuple[HiveColumn, ...] = ()
    properties: Mapping[str, str] = field(default_factory=dict)
    serde_properties: Mapping[str, str] | None = None
    location: str | None = None
    input_format: str | None = None

    def column_types(self) -> dict[str, str]:
        """Data and partition columns, name -> type (what ``getMetastoreSchema`` returns)."""
        return {c.name: c.type for c in self.columns + self.partition_columns}


@dataclass(frozen=True)
class HivePartition:
    values: tuple[str, ...]
    location: str | None = None


class MetastoreClient(Protocol):
    """The operations hive sync needs from a metastore."""

    @property
    def supports_spark_properties(self) -> bool:
        """Whether ``spark.sql.*`` table properties can be stored."""

    def database_exists(self, database: str) -> bool: ...
    def create_database(self, database: str) -> None: ...
    def get_table(self, database: str, table: str) -> HiveTable | None: ...
    def create_table(self, definition: ddl.TableDefinition) -> None: ...
    def update_columns(self, database: str, table: str, columns: Sequence[HiveColumn],
                       difference: SchemaDifference, *, cascade: bool) -> None: ...
    def alter_table_properties(self, database: str, table: str, properties: Mapping[str, str]) -> None: ...
    def alter_serde_properties(self, database: str, table: str, properties: Mapping[str, str]) -> None: ...
    def list_partitions(self, database: str, table: str) -> list[HivePartition]: ...
    def partition_locations(self, database: str, table: str, keys: Sequence[str],
                            values: Sequence[Sequence[str]]) -> dict[tuple[str, ...], str | None]: ...
    def add_partitions(self, database: str, table: str, keys: Sequence[str],
                       partitions: Sequence[tuple[Sequence[str], str]], *, batch_num: int = 1000) -> None: ...
    def alter_partition_locations(self, database: str, table: str, keys: Sequence[str],
                                  partitions: Sequence[tuple[Sequence[str], str]]) -> None: ...
    def drop_partitions(self, database: str, table: str, keys: Sequence[str],
                        values: Sequence[Sequence[str]]) -> None: ...
    def close(self) -> None: ...


# --------------------------------------------------------------------------------------------
# SQL clients (jdbc, hiveql)


class SqlDialect(str, Enum):
    HIVE = "hive"
    SPARK = "spark"


def _cell(row: Sequence[Any], i: int) -> str:
    return "" if i >= len(row) or row[i] is None else str(row[i]).strip()


@dataclass(frozen=True)
class _Described:
    columns: tuple[HiveColumn, ...]
    partition_columns: tuple[HiveColumn, ...]
    info: dict[str, str]
    table_parameters: dict[str, str]
    storage_parameters: dict[str, str]


def parse_describe(rows: Sequence[Sequence[Any]]) -> _Described:
    """Parse ``DESCRIBE [FORMATTED]`` output of Hive or Spark (3 columns: name, type, comment).

    Columns come first (Spark repeats partition columns there), ``# Partition Information``
    lists the partition columns, and detail rows are ``key``/``value`` (Hive adds ``:`` to keys
    and lists parameters as rows with an empty first cell).
    """
    section = "columns"
    columns: list[HiveColumn] = []
    partitions: list[HiveColumn] = []
    info: dict[str, str] = {}
    table_params: dict[str, str] = {}
    storage_params: dict[str, str] = {}
    current = ""
    for row in rows:
        name, value, third = _cell(row, 0), _cell(row, 1), _cell(row, 2)
        if name.startswith("#"):
            lowered = name.lower()
            if "partition information" in lowered and "detailed" not in lowered:
                section = "partitions"
            elif not lowered.startswith("# col_name"):
                section = "details"
            continue
        if section in ("columns", "partitions"):
            if name:
                (columns if section == "columns" else partitions).append(HiveColumn(name, value.lower()))
            continue
        if name:
            current = name.rstrip(":").strip().lower()
            info.setdefault(current, value)
        elif value:
            if current == "table parameters":
                table_params[value] = third
            elif current == "storage desc params":
                storage_params[value] = third
    part_names = {c.name for c in partitions}
    return _Described(tuple(c for c in columns if c.name not in part_names), tuple(partitions), info,
                      table_params, storage_params)


class _SqlMetastoreClient:
    """Shared behaviour of the clients that speak SQL: subclasses provide :meth:`_query`."""

    dialect: SqlDialect = SqlDialect.HIVE

    @property
    def supports_spark_properties(self) -> bool:
        return self.dialect is SqlDialect.HIVE

    def _query(self, sql: str) -> list[tuple[Any, ...]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def execute(self, sql: str) -> None:
        """Run one statement the server's dialect understands (:mod:`catalog.hive.spark_datasource`
        sends Spark's own DDL this way)."""
        self._execute(sql)

    def _execute(self, sql: str) -> None:
        _log.info("hive sync: %s", sql)
        try:
            self._query(sql)
        except HudiError:
            raise
        except Exception as exc:
            raise HiveSyncError(f"The metastore rejected: {sql}\n{exc}") from exc

    # -- reads -------------------------------------------------------------------------

    def database_exists(self, database: str) -> bool:
        return database.lower() in {_cell(r, 0).lower() for r in self._query("SHOW DATABASES")}

    def _table_exists(self, database: str, table: str) -> bool:
        rows = self._query(ddl.show_tables(database))
        names = {(_cell(r, 1) if len(r) >= 2 else _cell(r, 0)).lower() for r in rows}
        return table.lower() in names

    def get_table(self, database: str, table: str) -> HiveTable | None:
        if not self.database_exists(database) or not self._table_exists(database, table):
            return None
        described = parse_describe(self._query(ddl.describe_formatted(database, table)))
        props = {_cell(r, 0): _cell(r, 1) for r in self._query(ddl.show_table_properties(database, table))}
        serde: dict[str, str] | None
        if self.dialect is SqlDialect.SPARK:
            # Spark lists serde properties as option.<key> among the table properties.
            serde = {k[len("option."):]: v for k, v in props.items() if k.startswith("option.")}
            props = {k: v for k, v in props.items() if not k.startswith("option.")}
        else:
            serde = described.storage_parameters or None
        return HiveTable(database, table, described.columns, described.partition_columns, props, serde,
                         described.info.get("location"), described.info.get("inputformat"))

    def list_partitions(self, database: str, table: str) -> list[HivePartition]:
        rows = self._query(ddl.show_partitions(database, table))
        return [HivePartition(tuple(parse_partition_name(_cell(r, 0)))) for r in rows if _cell(r, 0)]

    def partition_locations(self, database: str, table: str, keys: Sequence[str],
                            values: Sequence[Sequence[str]]) -> dict[tuple[str, ...], str | None]:
        out: dict[tuple[str, ...], str | None] = {}
        for vals in values:
            rows = self._query(ddl.describe_formatted(database, table, keys, vals))
            out[tuple(vals)] = parse_describe(rows).info.get("location")
        return out

    # -- writes ------------------------------------------------------------------------

    def create_database(self, database: str) -> None:
        self._execute(ddl.create_database(database))

    def create_table(self, definition: ddl.TableDefinition) -> None:
        if not self.supports_spark_properties:
            kept = {k: v for k, v in definition.table_properties.items() if not k.startswith(SPARK_PROPERTY_PREFIX)}
            definition = replace(definition, table_properties=kept)
        self._execute(ddl.create_table(definition))

    def update_columns(self, database: str, table: str, columns: Sequence[HiveColumn],
                       difference: SchemaDifference, *, cascade: bool) -> None:
        if self.dialect is SqlDialect.HIVE:
            self._execute(ddl.replace_columns(database, table, columns, cascade=cascade))
            return
        if difference.updated or difference.deleted:
            changed = [c.name for c in difference.updated] + list(difference.deleted)
            raise UnsupportedFeatureError(
                f"Spark SQL cannot change or drop columns {changed} of Hive table {database}.{table}.",
                help=f"sync in hms mode ({HiveSyncConfig.MODE.key}=hms), or recreate the Hive table",
            )
        data_names = {c.name.lower() for c in columns}
        added = [c for c in difference.added if c.name.lower() in data_names]
        if added:
            self._execute(ddl.add_columns(database, table, added))

    def alter_table_properties(self, database: str, table: str, properties: Mapping[str, str]) -> None:
        if properties:
            self._execute(ddl.set_table_properties(database, table, properties))

    def alter_serde_properties(self, database: str, table: str, properties: Mapping[str, str]) -> None:
        if properties:
            self._execute(ddl.set_serde_properties(database, table, properties))

    def add_partitions(self, database: str, table: str, keys: Sequence[str],
                       partitions: Sequence[tuple[Sequence[str], str]], *, batch_num: int = 1000) -> None:
        for sql in ddl.add_partitions(database, table, keys, partitions, batch_num=batch_num):
            self._execute(sql)

    def alter_partition_locations(self, database: str, table: str, keys: Sequence[str],
                                  partitions: Sequence[tuple[Sequence[str], str]]) -> None:
        if self.dialect is SqlDialect.HIVE and partitions:
            # Hive 2.x ignores the database qualifier of SET LOCATION (Hudi's QueryBasedDDLExecutor).
            self._execute(ddl.use_database(database))
        for values, location in partitions:
            qualifier = None if self.dialect is SqlDialect.HIVE else database
            self._execute(ddl.set_partition_location(qualifier, table, keys, values, location))

    def drop_partitions(self, database: str, table: str, keys: Sequence[str],
                        values: Sequence[Sequence[str]]) -> None:
        for vals in values:
            self._execute(ddl.drop_partition(database, table, keys, vals))

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class JdbcTarget:
    host: str
    port: int
    database: str
    params: Mapping[str, str]


_JDBC_URL = re.compile(r"jdbc:hive2://(?P<host>[^/:;?]+)(?::(?P<port>\d+))?(?:/(?P<db>[^;?]*))?(?P<rest>[;?].*)?\Z")


def parse_jdbc_url(url: str) -> JdbcTarget:
    """``jdbc:hive2://host[:port][/db][;k=v...]`` -> its parts (port 10000, database ``default``)."""
    match = _JDBC_URL.match(url.strip())
    if not match:
        raise HudiConfigError(f"'{url}' is not a HiveServer2 JDBC url.",
                              help="use jdbc:hive2://host:port/database")
    params: dict[str, str] = {}
    for part in re.split(r"[;?&]", match.group("rest") or ""):
        key, sep, value = part.partition("=")
        if sep:
            params[key.strip().lower()] = value.strip()
    return JdbcTarget(match.group("host"), int(match.group("port") or 10000), match.group("db") or "default", params)


class JdbcMetastoreClient(_SqlMetastoreClient):
    """``jdbc`` mode: DDL text sent to a HiveServer2 (Apache Hive or Spark's Thrift server) via PyHive."""

    def __init__(self, url: str, username: str = "hive", password: str | None = None, *,
                 dialect: SqlDialect | str = "auto", connection: Any = None) -> None:
        self.target = parse_jdbc_url(url)
        if connection is None:
            connection = self._connect(username, password)
        self._connection = connection
        self.dialect = self._detect_dialect() if dialect == "auto" else SqlDialect(dialect)

    def _connect(self, username: str, password: str | None) -> Any:
        try:
            from pyhive import hive
        except ImportError as exc:  # pragma: no cover - pyhive is a dependency
            raise NotInstalledError("jdbc hive sync needs PyHive.",
                                    help="pip install pyhive thrift thrift-sasl pure-sasl") from exc
        auth = self.target.params.get("auth", "NONE").upper()
        kwargs: dict[str, Any] = {"host": self.target.host, "port": self.target.port, "username": username,
                                  "database": self.target.database, "auth": auth}
        if auth in ("LDAP", "CUSTOM"):
            kwargs["password"] = password
        try:
            return hive.connect(**kwargs)
        except Exception as exc:
            raise HiveSyncError(f"Cannot connect to HiveServer2 at {self.target.host}:{self.target.port}: {exc}",
                                help=f"check {HiveSyncConfig.JDBC_URL.key} and that the server is up") from exc

    def _detect_dialect(self) -> SqlDialect:
        try:
            from TCLIService.ttypes import TGetInfoReq, TGetInfoType

            request = TGetInfoReq(sessionHandle=self._connection.sessionHandle,
                                  infoType=TGetInfoType.CLI_DBMS_NAME)
            name = self._connection.client.GetInfo(request).infoValue.stringValue or ""
        except Exception:  # noqa: BLE001 - an unusual server: assume Apache Hive
            return SqlDialect.HIVE
        return SqlDialect.SPARK if "spark" in name.lower() else SqlDialect.HIVE

    def _query(self, sql: str) -> list[tuple[Any, ...]]:
        cursor = self._connection.cursor()
        try:
            cursor.execute(sql)
            return [tuple(r) for r in cursor.fetchall()] if cursor.description else []
        finally:
            cursor.close()

    def close(self) -> None:
        self._connection.close()


class SparkSqlMetastoreClient(_SqlMetastoreClient):
    """``hiveql`` mode: the DDL text run by ``spark.sql`` in *spark*'s own catalog."""

    dialect = SqlDialect.SPARK

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def _query(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.spark.sql(sql).collect()]


# --------------------------------------------------------------------------------------------
# hms: Hive's Java metastore client through py4j


def _is_java_exception(exc: Exception, name: str) -> bool:
    return name in str(exc)


class HmsMetastoreClient:
    """``hms`` mode: Hive's ``HiveMetaStoreClient`` (thrift) in a Spark JVM, like ``HMSDDLExecutor``."""

    supports_spark_properties = True

    def __init__(self, jvm: Any, uris: str) -> None:
        self._jvm = jvm
        conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
        conf.set("hive.metastore.uris", uris)
        try:
            self._client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
        except Exception as exc:
            raise HiveSyncError(f"Cannot connect to the Hive metastore at {uris}: {exc}",
                                help=f"check {HiveSyncConfig.METASTORE_URIS.key}") from exc
        self.uris = uris

    @classmethod
    def from_spark(cls, spark: SparkSession, uris: str) -> HmsMetastoreClient:
        return cls(spark.sparkContext._jvm, uris)

    def _call(self, what: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:
            raise HiveSyncError(f"Metastore call {what} failed: {exc}") from exc

    def _list(self, items: Sequence[Any]) -> Any:
        out = self._jvm.java.util.ArrayList()
        for item in items:
            out.add(item)
        return out

    def _map(self, items: Mapping[str, str]) -> Any:
        out = self._jvm.java.util.HashMap()
        for k, v in items.items():
            out.put(k, v)
        return out

    def _fields(self, columns: Sequence[HiveColumn]) -> Any:
        api = self._jvm.org.apache.hadoop.hive.metastore.api
        return self._list([api.FieldSchema(c.name, c.type.lower(), "") for c in columns])

    # -- reads -------------------------------------------------------------------------

    def database_exists(self, database: str) -> bool:
        names = self._call("getAllDatabases", self._client.getAllDatabases)
        return database.lower() in {str(n).lower() for n in names}

    def get_table(self, database: str, table: str) -> HiveTable | None:
        if not self.database_exists(database) or not self._call("tableExists", self._client.tableExists,
                                                                  database, table):
            return None
        t = self._call("getTable", self._client.getTable, database, table)
        sd = t.getSd()
        serde = sd.getSerdeInfo().getParameters() if sd.getSerdeInfo() is not None else None
        return HiveTable(
            database, table,
            tuple(HiveColumn(str(f.getName()), str(f.getType())) for f in sd.getCols()),
            tuple(HiveColumn(str(f.getName()), str(f.getType())) for f in t.getPartitionKeys()),
            {str(k): str(v) for k, v in dict(t.getParameters() or {}).items()},
            {str(k): str(v) for k, v in dict(serde or {}).items()},
            str(sd.getLocation()) if sd.getLocation() is not None else None,
            str(sd.getInputFormat()) if sd.getInputFormat() is not None else None,
        )

    def list_partitions(self, database: str, table: str) -> list[HivePartition]:
        parts = self._call("listPartitions", self._client.listPartitions, database, table, -1)
        return [HivePartition(tuple(str(v) for v in p.getValues()), str(p.getSd().getLocation())) for p in parts]

    def partition_locations(self, database: str, table: str, keys: Sequence[str],
                            values: Sequence[Sequence[str]]) -> dict[tuple[str, ...], str | None]:
        known = {p.values: p.location for p in self.list_partitions(database, table)}
        return {tuple(v): known.get(tuple(v)) for v in values}

    # -- writes ------------------------------------------------------------------------

    def create_database(self, database: str) -> None:
        api = self._jvm.org.apache.hadoop.hive.metastore.api
        db = api.Database(database, "automatically created by hoodie", None, self._map({}))
        self._call("createDatabase", self._client.createDatabase, db)

    def create_table(self, definition: ddl.TableDefinition) -> None:
        api = self._jvm.org.apache.hadoop.hive.metastore.api
        d = definition
        serde_params = {**d.serde_properties, "serialization.format": "1"}
        sd = api.StorageDescriptor()
        sd.setCols(self._fields(d.columns))
        sd.setInputFormat(d.input_format)
        sd.setOutputFormat(d.output_format)
        sd.setLocation(d.location)
        sd.setSerdeInfo(api.SerDeInfo(None, d.serde, self._map(serde_params)))
        table = api.Table()
        table.setDbName(d.database)
        table.setTableName(d.table)
        table.setOwner(getpass.getuser())
        table.setCreateTime(int(time.time()))
        table.setSd(sd)
        table.setPartitionKeys(self._fields(d.partition_columns))
        params = dict(d.table_properties)
        if d.external:
            params["EXTERNAL"] = "TRUE"
        table.setParameters(self._map(params))
        table.setTableType("EXTERNAL_TABLE" if d.external else "MANAGED_TABLE")
        self._call("createTable", self._client.createTable, table)

    def update_columns(self, database: str, table: str, columns: Sequence[HiveColumn],
                       difference: SchemaDifference, *, cascade: bool) -> None:
        t = self._call("getTable", self._client.getTable, database, table)
        t.getSd().setCols(self._fields(columns))
        context = self._jvm.org.apache.hadoop.hive.metastore.api.EnvironmentContext()
        if cascade:
            context.putToProperties("CASCADE", "true")  # StatsSetupConst.CASCADE
        self._call("alter_table_with_environmentContext", self._client.alter_table_with_environmentContext,
                   database, table, t, context)

    def alter_table_properties(self, database: str, table: str, properties: Mapping[str, str]) -> None:
        if not properties:
            return
        t = self._call("getTable", self._client.getTable, database, table)
        for k, v in properties.items():
            t.putToParameters(k, v)
        self._call("alter_table", self._client.alter_table, database, table, t)

    def alter_serde_properties(self, database: str, table: str, properties: Mapping[str, str]) -> None:
        if not properties:
            return
        t = self._call("getTable", self._client.getTable, database, table)
        serde = t.getSd().getSerdeInfo()
        for k, v in properties.items():
            serde.putToParameters(k, v)
        self._call("alter_table", self._client.alter_table, database, table, t)

    def add_partitions(self, database: str, table: str, keys: Sequence[str],
                       partitions: Sequence[tuple[Sequence[str], str]], *, batch_num: int = 1000) -> None:
        if not partitions:
            return
        api = self._jvm.org.apache.hadoop.hive.metastore.api
        sd = self._call("getTable", self._client.getTable, database, table).getSd()
        batch = max(1, batch_num)
        for start in range(0, len(partitions), batch):
            objs = []
            for values, location in partitions[start:start + batch]:
                ddl.partition(keys, values)  # same count check as the SQL clients
                psd = api.StorageDescriptor(sd)
                psd.setLocation(location)
                objs.append(api.Partition(self._list([str(v) for v in values]), database, table, 0, 0, psd,
                                          self._map({})))
            self._call("add_partitions", self._client.add_partitions, self._list(objs), True, False)

    def alter_partition_locations(self, database: str, table: str, keys: Sequence[str],
                                  partitions: Sequence[tuple[Sequence[str], str]]) -> None:
        if not partitions:
            return
        objs = []
        for values, location in partitions:
            p = self._call("getPartition", self._client.getPartition, database, table,
                           self._list([str(v) for v in values]))
            p.getSd().setLocation(location)
            objs.append(p)
        self._call("alter_partitions", self._client.alter_partitions, database, table, self._list(objs), None)

    def drop_partitions(self, database: str, table: str, keys: Sequence[str],
                        values: Sequence[Sequence[str]]) -> None:
        for vals in values:
            ddl.partition(keys, vals)  # same count check as the SQL clients
            try:
                self._client.dropPartition(database, table, self._list([str(v) for v in vals]), False)
            except Exception as exc:
                if not _is_java_exception(exc, "NoSuchObjectException"):
                    raise HiveSyncError(f"Metastore call dropPartition failed: {exc}") from exc

    def close(self) -> None:
        try:
            self._client.close()
        except Exception:  # noqa: BLE001 - closing a dead connection is not an error worth raising
            _log.debug("closing the metastore client failed", exc_info=True)


def client_for(settings: HiveSyncSettings, *, spark: SparkSession | None = None) -> MetastoreClient:
    """The client of ``settings.mode``; ``hms`` and ``hiveql`` need a SparkSession."""
    if settings.mode is HiveSyncMode.JDBC:
        return JdbcMetastoreClient(settings.jdbc_url, settings.username, settings.password)
    if spark is None:
        raise HudiConfigError(f"Hive sync mode '{settings.mode.value}' needs a SparkSession.",
                              help=f"pass spark=..., or use {HiveSyncConfig.MODE.key}=jdbc")
    if settings.mode is HiveSyncMode.HMS:
        return HmsMetastoreClient.from_spark(spark, settings.metastore_uris)
    return SparkSqlMetastoreClient(spark)
