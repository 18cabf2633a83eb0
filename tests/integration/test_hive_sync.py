"""Hive sync against real services: a standalone Hive metastore and Spark's HiveServer2.

Started once for the module, on loopback ports picked free, and stopped by process id in
fixture finalizers (also when a test fails):

* the Hive metastore (``org.apache.hadoop.hive.metastore.HiveMetaStore`` from the PySpark
  wheel's jars, Derby in a temp folder);
* a separate Python process whose SparkSession uses that metastore and runs Spark's Thrift
  server (``HiveThriftServer2.startWithContext``) - the jdbc target. Spark loads a Hive table's
  InputFormat class when it creates or alters it, so that process gets a two-class stand-in
  for Hudi's hadoop-mr bundle (``HoodieParquetInputFormat`` and ``HoodieParquetRealtimeInputFormat``
  subclassing Hive's Parquet input format), compiled here with ``javac``.

Tables are written with ``hudi_sql.write`` through the shared ``spark`` fixture, whose JVM
also carries the ``hms``-mode client (Hive's thrift ``HiveMetaStoreClient``); everything
synced is read back with PyHive through the HiveServer2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from process_helpers import HiveMetastore, free_port, stop_process_group, wait_for_port

# engines: a metastore and a Spark Thrift server in processes of their own (the slow group).
pytestmark = [pytest.mark.spark, pytest.mark.engines]

INJECTION = "x'); DROP TABLE t; --"
OPTS = {
    "hoodie.table.name": "trips",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
}

_STUBS = {
    "org/apache/hudi/hadoop/HoodieParquetInputFormat.java":
        "package org.apache.hudi.hadoop;\n"
        "public class HoodieParquetInputFormat\n"
        "    extends org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat {}\n",
    "org/apache/hudi/hadoop/realtime/HoodieParquetRealtimeInputFormat.java":
        "package org.apache.hudi.hadoop.realtime;\n"
        "public class HoodieParquetRealtimeInputFormat extends org.apache.hudi.hadoop.HoodieParquetInputFormat {}\n",
}

_HS2_SCRIPT = r"""
import os, socket, sys, time
metastore_port, port, jar, state = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").appName("hive-sync-hs2")
         .config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.hadoop.hive.metastore.uris", f"thrift://127.0.0.1:{metastore_port}")
         .config("spark.sql.warehouse.dir", os.path.join(state, "warehouse"))
         .config("spark.driver.extraClassPath", jar)
         .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={state}")
         .config("spark.hive.server2.thrift.port", str(port))
         .config("spark.hive.server2.thrift.bind.host", "127.0.0.1")
         .enableHiveSupport().getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
deadline = time.time() + 180  # the session is up; the Thrift server needs the metastore
while True:
    try:
        socket.create_connection(("127.0.0.1", metastore_port), 1).close()
        break
    except OSError:
        if time.time() > deadline:
            sys.exit("metastore never came up")
        time.sleep(0.5)
spark.sparkContext._jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2.startWithContext(
    spark._jsparkSession.sqlContext())
print("READY", flush=True)
sys.stdin.read()
"""


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


@dataclass(frozen=True)
class Services:
    metastore_uri: str
    hs2_port: int

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:hive2://127.0.0.1:{self.hs2_port}/default"


def _compile_stub_jar(work: Path) -> Path:
    javac, jar = shutil.which("javac"), shutil.which("jar")
    if javac is None or jar is None:
        pytest.skip("javac/jar not found: the Spark Thrift server needs Hudi's input format classes "
                    "(compiled here as stubs) to create Hudi tables")
    src, classes = work / "src", work / "classes"
    for rel, text in _STUBS.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    classpath = str(_spark_home() / "jars" / "*")
    subprocess.run([javac, "-d", str(classes), "-cp", classpath, *(str(src / rel) for rel in _STUBS)],
                   check=True, capture_output=True, timeout=120)
    out = work / "hudi-input-format-stub.jar"
    subprocess.run([jar, "cf", str(out), "-C", str(classes), "."], check=True, capture_output=True, timeout=60)
    return out


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest,
             hive_metastore: HiveMetastore) -> Iterator[Services]:
    """The session's Hive metastore, and a Spark HiveServer2 using it on a free loopback port."""
    work = tmp_path_factory.mktemp("hive-services")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    hs2_port = free_port()

    jar = _compile_stub_jar(work)
    hs2_state = work / "hs2"
    hs2_state.mkdir()
    hs2_log = work / "hs2.log"
    hs2 = subprocess.Popen(
        [sys.executable, "-c", _HS2_SCRIPT, str(hive_metastore.port), str(hs2_port), str(jar), str(hs2_state)],
        cwd=hs2_state, stdin=subprocess.PIPE, stdout=hs2_log.open("w"), stderr=subprocess.STDOUT, env=env,
        start_new_session=True,
    )
    request.addfinalizer(lambda: stop_process_group(hs2))

    wait_for_port(hs2_port, hs2, hs2_log, 240)
    yield Services(hive_metastore.uri, hs2_port)


class Hive:
    """PyHive through the HiveServer2: the independent view of what the metastore holds."""

    def __init__(self, port: int) -> None:
        from pyhive import hive

        self.conn = hive.connect(host="127.0.0.1", port=port, username="test")

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        cursor = self.conn.cursor()
        try:
            cursor.execute(sql)
            return [tuple(r) for r in cursor.fetchall()]
        finally:
            cursor.close()

    def partitions(self, table: str) -> set[str]:
        return {r[0] for r in self.query(f"SHOW PARTITIONS {table}")}

    def columns(self, table: str) -> list[tuple[str, str]]:
        out = []
        for name, dtype, *_ in self.query(f"DESCRIBE {table}"):
            if not name or name.startswith("#"):
                break
            out.append((name, dtype))
        return out


@pytest.fixture(scope="module")
def hive(services: Services) -> Iterator[Hive]:
    h = Hive(services.hs2_port)
    yield h
    h.conn.close()


def _write(spark: Any, path: Path, rows: list[tuple[Any, ...]], schema: str, **options: str) -> None:
    import hudi_sql

    hudi_sql.write(spark.createDataFrame(rows, schema), str(path), {**OPTS, **options})


def _sync(path: Path, options: dict[str, str], client: Any) -> Any:
    from catalog.hive import HiveSyncTool
    from hudi_sql.table.meta_client import TableMetaClient

    return HiveSyncTool(TableMetaClient.load(str(path)), {**OPTS, **options}, client).sync()


META = [("_hoodie_commit_time", "string"), ("_hoodie_commit_seqno", "string"), ("_hoodie_record_key", "string"),
        ("_hoodie_partition_path", "string"), ("_hoodie_file_name", "string")]


def test_hive_sync_cow_table_jdbc_and_hms_lifecycle(spark: Any, services: Services, hive: Hive,
                                                    tmp_path: Path) -> None:
    from catalog.hive import HmsMetastoreClient, JdbcMetastoreClient
    from catalog.hive.client import SqlDialect

    path = tmp_path / "trips"
    schema = "id long, p string, ts long, v double"
    _write(spark, path, [(1, "a", 1, 1.5), (2, INJECTION, 1, 2.5)], schema)

    # The Hive serde form through both clients (the datasource form over jdbc: the next test).
    jdbc_opts = {"hoodie.datasource.hive_sync.mode": "jdbc", "hoodie.datasource.hive_sync.jdbcurl": services.jdbc_url,
                 "hoodie.datasource.hive_sync.database": "jdbc_db",
                 "hoodie.datasource.hive_sync.sync_as_datasource": "false"}
    # Without the spark.sql.sources.* properties, so that both tables are the serde form; the
    # MOR test checks those properties.
    hms_opts = {"hoodie.datasource.hive_sync.mode": "hms",
                "hoodie.datasource.hive_sync.metastore.uris": services.metastore_uri,
                "hoodie.datasource.hive_sync.database": "hms_db",
                "hoodie.datasource.hive_sync.sync_as_datasource": "false"}
    jdbc = JdbcMetastoreClient(services.jdbc_url, "test")
    hms = HmsMetastoreClient.from_spark(spark, services.metastore_uri)
    try:
        assert jdbc.dialect is SqlDialect.SPARK

        # -- first sync: database, table, both partitions (the injection value as plain data)
        first = _sync(path, jdbc_opts, jdbc)
        assert first.plan.create_database and first.plan.tables[0].create is not None
        assert _sync(path, hms_opts, hms).plan.tables[0].create is not None
        expected_parts = {"p=a", "p=x%27); DROP TABLE t; --"}
        for db in ("jdbc_db", "hms_db"):
            assert hive.partitions(f"{db}.trips") == expected_parts
            assert hive.columns(f"{db}.trips") == [*META, ("id", "bigint"), ("ts", "bigint"), ("v", "double"),
                                                    ("p", "string")]
            assert [r[1] for r in hive.query(f"SHOW TABLES IN {db}")] == ["trips"]
        table = hms.get_table("hms_db", "trips")
        assert table is not None
        assert "spark.sql.sources.provider" not in table.properties
        assert table.properties["last_commit_time_sync"] == first.plan.tables[0].last_commit_time_sync
        assert table.properties["EXTERNAL"] == "TRUE"
        assert table.input_format == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
        locations = {p.values: p.location for p in hms.list_partitions("hms_db", "trips")}
        assert locations[(INJECTION,)] == f"file:{path}/{INJECTION}"
        # the value went through Spark's SQL parser and came back unchanged
        assert jdbc.partition_locations("jdbc_db", "trips", ["p"], [[INJECTION]]) == {
            (INJECTION,): f"file:{path}/{INJECTION}"}
        jdbc_table = jdbc.get_table("jdbc_db", "trips")
        assert jdbc_table is not None and jdbc_table.input_format == "org.apache.hudi.hadoop.HoodieParquetInputFormat"

        # -- re-sync of an unchanged table changes nothing
        assert _sync(path, jdbc_opts, jdbc).plan.is_noop
        assert _sync(path, hms_opts, hms).plan.is_noop

        # -- schema evolution: a batch with an extra column, into a new partition
        _write(spark, path, [(3, "b", 2, 3.5, 7)], "id long, p string, ts long, v double, n int")
        for opts, client, db in ((jdbc_opts, jdbc, "jdbc_db"), (hms_opts, hms, "hms_db")):
            result = _sync(path, opts, client)
            [tp] = result.plan.tables
            assert tp.schema_update is not None and [c.name for c in tp.schema_update.added] == ["n"]
            assert not tp.full_listing
            assert hive.partitions(f"{db}.trips") == expected_parts | {"p=b"}
        assert ("n", "int") in hive.columns("jdbc_db.trips")
        assert ("n", "int") in hive.columns("hms_db.trips")
        hms_cols = [c.name for c in hms.get_table("hms_db", "trips").columns]  # type: ignore[union-attr]
        assert hms_cols[-1] == "n"

        # -- delete_partition: the partition leaves the metastore
        _write(spark, path, [], schema, **{"hoodie.datasource.write.operation": "delete_partition",
                                            "hoodie.datasource.write.partitions.to.delete": "a"})
        for opts, client, db in ((jdbc_opts, jdbc, "jdbc_db"), (hms_opts, hms, "hms_db")):
            [tp] = _sync(path, opts, client).plan.tables
            assert [(e.type.value, e.values) for e in tp.partition_events] == [("drop", ("a",))]
            assert hive.partitions(f"{db}.trips") == {"p=b", "p=x%27); DROP TABLE t; --"}
            assert _sync(path, opts, client).plan.is_noop
        assert {r[0] for r in hive.query("SHOW DATABASES")} >= {"default", "jdbc_db", "hms_db"}
    finally:
        jdbc.close()
        hms.close()


def test_write_with_hive_sync_enabled_syncs_after_each_commit(spark: Any, services: Services, hive: Hive,
                                                             tmp_path: Path) -> None:
    """The write client's post-commit action (registered by the catalog) keeps the metastore in
    step: on with either enabling key, and nothing is synced by a write that sets neither."""
    from catalog.hive import HmsMetastoreClient
    from hudi_sql.table.meta_client import TableMetaClient

    path = tmp_path / "trips_post_commit"
    schema = "id long, p string, ts long, v double"
    sync = {"hoodie.datasource.hive_sync.mode": "hms", "hoodie.datasource.hive_sync.metastore.uris": services.metastore_uri,
            "hoodie.datasource.hive_sync.database": "post_commit_db",
            "hoodie.datasource.hive_sync.sync_as_datasource": "false"}
    hms = HmsMetastoreClient.from_spark(spark, services.metastore_uri)
    try:
        _write(spark, path, [(1, "a", 1, 1.5)], schema, **sync, **{"hoodie.datasource.hive_sync.enable": "true"})
        assert hive.partitions("post_commit_db.trips") == {"p=a"}

        _write(spark, path, [(2, "b", 1, 2.5)], schema, **sync, **{"hoodie.datasource.meta.sync.enable": "true"})
        assert hive.partitions("post_commit_db.trips") == {"p=a", "p=b"}
        table = hms.get_table("post_commit_db", "trips")
        last = TableMetaClient.load(str(path)).timeline.completed().last
        assert table is not None and last is not None
        assert table.properties["last_commit_time_sync"] == last.instant_time

        _write(spark, path, [(3, "c", 1, 3.5)], schema, **sync)  # neither key set: no sync
        assert hive.partitions("post_commit_db.trips") == {"p=a", "p=b"}
    finally:
        hms.close()


def test_hive_sync_mor_table_registers_ro_and_rt(spark: Any, services: Services, hive: Hive, tmp_path: Path) -> None:
    from catalog.hive import HmsMetastoreClient
    from hudi_sql.errors import UnsupportedFeatureError
    from hudi_sql.table.meta_client import TableMetaClient

    path = tmp_path / "trips_mor"
    rows, schema = [(1, "a", 1, 1.5)], "id long, p string, ts long, v double"
    try:
        _write(spark, path, rows, schema, **{"hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    except UnsupportedFeatureError:
        # MOR writes unavailable: a COW table relabelled MERGE_ON_READ has the same sync inputs.
        shutil.rmtree(path, ignore_errors=True)
        _write(spark, path, rows, schema)
        TableMetaClient.load(str(path)).update_properties({"hoodie.table.type": "MERGE_ON_READ"})
    assert TableMetaClient.load(str(path)).table_type.value == "MERGE_ON_READ"

    hms = HmsMetastoreClient.from_spark(spark, services.metastore_uri)
    base = {"hoodie.datasource.hive_sync.mode": "hms", "hoodie.datasource.hive_sync.metastore.uris": services.metastore_uri}
    try:
        plan = _sync(path, {**base, "hoodie.datasource.hive_sync.database": "mor_db"}, hms).plan
        assert [t.table for t in plan.tables] == ["trips_ro", "trips_rt"]
        ro, rt = hms.get_table("mor_db", "trips_ro"), hms.get_table("mor_db", "trips_rt")
        assert ro is not None and rt is not None
        assert ro.input_format == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
        assert rt.input_format == "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"
        assert ro.serde_properties is not None and rt.serde_properties is not None
        assert ro.serde_properties["hoodie.query.as.ro.table"] == "true"
        assert rt.serde_properties["hoodie.query.as.ro.table"] == "false"
        assert ro.serde_properties["path"] == str(path)
        for table in (ro, rt):  # sync_as_datasource (default): Spark would read these as hudi tables
            assert table.properties["spark.sql.sources.provider"] == "hudi"
            assert table.properties["spark.sql.sources.schema.partCol.0"] == "p"
            assert '"name":"p","type":"string"' in table.properties["spark.sql.sources.schema.part.0"]
            assert [p.values for p in hms.list_partitions("mor_db", table.table)] == [("a",)]
        # Spark's HiveServer2 lists the tables (it cannot describe them: it has no "hudi" data source)
        assert sorted(r[1] for r in hive.query("SHOW TABLES IN mor_db")) == ["trips_ro", "trips_rt"]

        skip = _sync(path, {**base, "hoodie.datasource.hive_sync.database": "mor_skip_db",
                            "hoodie.datasource.hive_sync.skip_ro_suffix": "true"}, hms).plan
        assert [t.table for t in skip.tables] == ["trips", "trips_rt"]
        assert sorted(r[1] for r in hive.query("SHOW TABLES IN mor_skip_db")) == ["trips", "trips_rt"]
    finally:
        hms.close()


def test_hudi_sql_sync_command_syncs_table_in_jdbc_mode(spark: Any, services: Services, hive: Hive,
                                                        tmp_path: Path) -> None:
    import io

    from hudi_sql.apps.cli import main

    path = tmp_path / "cli_trips"
    _write(spark, path, [(1, "a", 1, 1.5), (2, "b", 1, 2.5)], "id long, p string, ts long, v double")
    out, err = io.StringIO(), io.StringIO()
    status = main(["sync", "--base-path", str(path), "--mode", "jdbc", "--jdbc-url", services.jdbc_url,
                   "--database", "cli_db", "--table", "trips",
                   "--conf", "hoodie.datasource.hive_sync.sync_as_datasource=false"], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    assert hive.partitions("cli_db.trips") == {"p=a", "p=b"}
    bad = main(["sync", "--base-path", str(tmp_path / "nothing"), "--mode", "jdbc", "--jdbc-url",
                services.jdbc_url], stdout=io.StringIO(), stderr=err)
    assert bad == 1 and "No Hudi table" in err.getvalue()


def _aggregate_ours(spark: Any, path: Path, **options: str) -> tuple[Any, ...]:
    """hudi-sql's own read by path: rows, distinct keys, sum of v."""
    df = spark.read.format("hudi").options(**options).load(str(path))
    return tuple(df.selectExpr("count(*)", "count(DISTINCT id)", "sum(v)").collect()[0])


def test_jdbc_sync_to_a_spark_thrift_server_registers_datasource_tables_it_reads(
        spark: Any, services: Services, hive: Hive, tmp_path: Path) -> None:
    """Spark SQL refuses the spark.sql.* properties of the datasource form, so against Spark's
    own Thrift server the sync registers it with Spark's DDL (USING hudi LOCATION); that server
    then reads the tables through the `hudi` data source: snapshot, read-optimized `_ro`."""
    from catalog.hive import JdbcMetastoreClient

    schema = "id long, p string, ts long, v double"
    cow, mor = tmp_path / "ds_trips", tmp_path / "ds_rides"
    first = [(i, "a" if i % 2 else "b", 1, float(i)) for i in range(8)]
    upsert = [(i, "a" if i % 2 else "b", 2, -float(i)) for i in range(0, 8, 3)] + [(20, "c", 2, 2.0)]
    for path, extra in ((cow, {}), (mor, {"hoodie.datasource.write.table.type": "MERGE_ON_READ"})):
        _write(spark, path, first, schema, **extra, **{"hoodie.table.name": path.name})
        _write(spark, path, upsert, schema, **extra, **{"hoodie.table.name": path.name,
                                                        "hoodie.datasource.write.operation": "upsert"})
    jdbc_opts = {"hoodie.datasource.hive_sync.mode": "jdbc", "hoodie.datasource.hive_sync.jdbcurl": services.jdbc_url,
                 "hoodie.datasource.hive_sync.database": "ds_db"}
    jdbc = JdbcMetastoreClient(services.jdbc_url, "test")
    try:
        for path in (cow, mor):
            result = _sync(path, {**jdbc_opts, "hoodie.table.name": path.name}, jdbc)
            assert result.plan.tables and all(tp.registered for tp in result.plan.tables)
            assert not result.plan.warnings
        assert [r[1] for r in hive.query("SHOW TABLES IN ds_db")] == ["ds_rides_ro", "ds_rides_rt", "ds_trips"]

        def aggregate(table: str) -> tuple[Any, ...]:
            return hive.query(f"SELECT count(*), count(DISTINCT id), sum(v) FROM ds_db.{table}")[0]

        assert aggregate("ds_trips") == _aggregate_ours(spark, cow)
        assert aggregate("ds_rides_rt") == _aggregate_ours(spark, mor)
        read_optimized = _aggregate_ours(spark, mor, **{"hoodie.datasource.query.type": "read_optimized"})
        assert aggregate("ds_rides_ro") == read_optimized != aggregate("ds_rides_rt")

        # Unchanged: not registered again. A new column: registered again, and it shows.
        [tp] = _sync(cow, {**jdbc_opts, "hoodie.table.name": "ds_trips"}, jdbc).plan.tables
        assert not tp.registered
        _write(spark, cow, [(30, "c", 3, 3.5, 7)], schema + ", n int", **{"hoodie.table.name": "ds_trips"})
        [tp] = _sync(cow, {**jdbc_opts, "hoodie.table.name": "ds_trips"}, jdbc).plan.tables
        assert tp.registered and tp.last_commit_time_sync is not None
        assert ("n", "int") in hive.columns("ds_db.ds_trips")
        assert aggregate("ds_trips") == _aggregate_ours(spark, cow)
    finally:
        jdbc.close()


def test_hiveql_sync_registers_datasource_tables_in_the_session_catalog(spark: Any, tmp_path: Path) -> None:
    """``hiveql`` mode runs Spark's DDL in the session's own catalog: hudi-sql and Spark's own
    ``spark.sql`` then read the synced tables by name (read-optimized for ``_ro``)."""
    import hudi_sql
    from catalog.hive import SparkSqlMetastoreClient

    schema = "id long, p string, ts long, v double"
    mor = tmp_path / "hq_rides"
    options = {"hoodie.table.name": "hq_rides", "hoodie.datasource.write.table.type": "MERGE_ON_READ"}
    _write(spark, mor, [(i, "a", 1, float(i)) for i in range(5)], schema, **options)
    _write(spark, mor, [(1, "a", 2, 10.0), (9, "b", 2, 9.0)], schema, **options,
           **{"hoodie.datasource.write.operation": "upsert"})
    spark.sql("DROP DATABASE IF EXISTS hq_db CASCADE")
    _sync(mor, {**options, "hoodie.datasource.hive_sync.mode": "hiveql",
                "hoodie.datasource.hive_sync.database": "hq_db"}, SparkSqlMetastoreClient(spark))
    snapshot = _aggregate_ours(spark, mor)
    read_optimized = _aggregate_ours(spark, mor, **{"hoodie.datasource.query.type": "read_optimized"})
    assert snapshot != read_optimized
    session = hudi_sql.connect(spark)
    for table, expected in (("hq_rides_rt", snapshot), ("hq_rides_ro", read_optimized)):
        sql = f"SELECT count(*), count(DISTINCT id), sum(v) FROM hq_db.{table}"
        assert tuple(session.sql(sql).collect()[0]) == expected
        assert tuple(spark.sql(sql).collect()[0]) == expected
    spark.sql("DROP DATABASE hq_db CASCADE")


def test_call_hive_sync_takes_apache_hudis_arguments_in_its_order(spark: Any, tmp_path: Path) -> None:
    """``CALL hive_sync`` with Apache Hudi 0.15's arguments: ``strategy => 'RO'`` syncs only a
    Merge-On-Read table's read-optimized table, under the table's own name (Apache Hudi's
    ``HIVE_SYNC_TABLE_STRATEGY``); ``use_jdbc`` and ``sync_incremental`` are taken; a positional
    call in Apache Hudi's order (table, metastore_uri, username, password, use_jdbc, mode,
    partition_fields, partition_extractor_class, strategy, …) reaches the same arguments."""
    import hudi_sql

    mor = tmp_path / "cs_rides"
    options = {"hoodie.table.name": "cs_rides", "hoodie.datasource.write.table.type": "MERGE_ON_READ"}
    _write(spark, mor, [(1, "a", 1, 1.0)], "id long, p string, ts long, v double", **options)
    _write(spark, mor, [(1, "a", 2, 5.0)], "id long, p string, ts long, v double", **options,
           **{"hoodie.datasource.write.operation": "upsert"})
    db = hudi_sql.connect(spark)
    for database in ("cs_ro_db", "cs_rt_db"):
        spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
        spark.sql(f"CREATE DATABASE {database}")
    db.sql(f"CREATE TABLE default.cs_rides USING hudi LOCATION '{mor}'")
    try:
        db.sql("CALL hive_sync(table => 'cs_rides', mode => 'hiveql', strategy => 'RO', use_jdbc => 'false', "
               "sync_incremental => 'false', options => 'hoodie.datasource.hive_sync.database=cs_ro_db')")
        db.sql("CALL hive_sync('cs_rides', '', '', '', 'false', 'hiveql', '', '', 'RT', 'false', '', "
               "'hoodie.datasource.hive_sync.database=cs_rt_db')")
        for database, value in (("cs_ro_db", 1.0), ("cs_rt_db", 5.0)):  # read-optimized: the base file's value
            assert [r.tableName for r in spark.sql(f"SHOW TABLES IN {database}").collect()] == ["cs_rides"]
            assert db.sql(f"SELECT v FROM {database}.cs_rides").collect()[0][0] == value
    finally:
        db.sql("DROP TABLE default.cs_rides")
        for database in ("cs_ro_db", "cs_rt_db"):
            spark.sql(f"DROP DATABASE {database} CASCADE")
