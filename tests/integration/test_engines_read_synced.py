"""Engines that are not hudi-sql read what hudi-sql syncs: Spark's own Thrift server (a plain
PySpark session with Hive support) through Beeline and hudi-sql's thriftserver through PyHive,
both on one standalone Hive metastore; and Spark's ``spark-sql`` CLI on the embedded metastore
hudi-sql made.

A Copy-On-Write table and a Merge-On-Read table are written by hudi-sql (inserts, upserts,
deletes; then an inline compaction and clean) and synced after each step in the ``hms`` mode,
datasource form (the default); beside them ``orders``, a metadata-only bootstrap synced by
``CALL run_bootstrap(..., enable_hive_sync => true)`` and then upserted. After each step, every
engine's ``count(*)``, ``count(DISTINCT id)`` and ``sum(v)`` of ``trips`` (COW), ``rides_ro`` and
``rides_rt`` (MOR) equal hudi-sql's own snapshot (read-optimized for ``_ro``) read by path: no
duplicates, no missing log updates.

The engines other than hudi-sql have no setup of ours: what makes them read Hudi tables is the
``pyspark_hudi`` data source Spark 4 finds in the installed packages, and the location marker in
the synced schema (:mod:`hudi_sql.spark.table_marker`). Every process started here is stopped by
process id (its process group).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from process_helpers import HiveMetastore, free_port, session_spark_conf, stop_process_group, wait_for_port

import hudi_sql
from hudi_sql.engine.session import child_process_env

pytestmark = [pytest.mark.spark, pytest.mark.engines]

DATABASE = "engines_db"
SCHEMA = "id long, p string, ts long, v double"
OPTS = {
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
}
TABLES = ("trips", "rides_ro", "rides_rt", "orders")

# Spark's own HiveThriftServer2 in a plain PySpark session on the metastore (nothing of hudi-sql).
_SPARK_THRIFT = r"""
import os, sys
metastore, port, state = sys.argv[1], int(sys.argv[2]), sys.argv[3]
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").appName("spark-thriftserver")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.hadoop.hive.metastore.uris", metastore)
         .config("spark.sql.warehouse.dir", os.path.join(state, "warehouse"))
         .config("spark.hive.server2.thrift.port", str(port))
         .config("spark.hive.server2.thrift.bind.host", "127.0.0.1")
         .enableHiveSupport().getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.sparkContext._jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2.startWithContext(
    spark._jsparkSession.sqlContext())
print("READY", flush=True)
sys.stdin.read()
"""

def _aggregate(table: str) -> str:
    return f"SELECT count(*), count(DISTINCT id), CAST(sum(v) AS DOUBLE) FROM {DATABASE}.{table}"


def _spark_bin(tool: str) -> str:
    import pyspark

    return str(Path(pyspark.__file__).resolve().parent / "bin" / tool)


@dataclass(frozen=True)
class Engines:
    metastore_uri: str
    spark_thrift_port: int
    hudi_sql_port: int
    work: Path


def _start(command: list[str], log: Path, cwd: Path, *, stdin: bool = False) -> subprocess.Popen[Any]:
    return subprocess.Popen(command, cwd=cwd, env=child_process_env(), stdout=log.open("w"),
                            stderr=subprocess.STDOUT, stdin=subprocess.PIPE if stdin else None,
                            start_new_session=True)


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest,
            hive_metastore: HiveMetastore) -> Iterator[Engines]:
    """Spark's Thrift server and hudi-sql's thriftserver on free loopback ports, on the session's metastore."""
    work = tmp_path_factory.mktemp("engines")
    uri = hive_metastore.uri

    spark_port, spark_state = free_port(), work / "spark-thrift"
    spark_state.mkdir()
    spark_thrift = _start([sys.executable, "-c", _SPARK_THRIFT, uri, str(spark_port), str(spark_state)],
                          work / "spark-thrift.log", spark_state, stdin=True)
    request.addfinalizer(lambda: stop_process_group(spark_thrift))

    ours_port, ours_state = free_port(), work / "hudi-sql-thrift"
    ours_state.mkdir()
    ours = _start([sys.executable, "-m", "hudi_sql.apps.hiveserver2.cli", "thriftserver", "--port", str(ours_port),
                   "--metastore", uri, "--master", "local[1]", "--state-dir", str(ours_state)],
                  work / "hudi-sql-thrift.log", ours_state)
    request.addfinalizer(lambda: stop_process_group(ours))

    wait_for_port(spark_port, spark_thrift, work / "spark-thrift.log", 240)
    wait_for_port(ours_port, ours, work / "hudi-sql-thrift.log", 240)
    yield Engines(uri, spark_port, ours_port, work)


def _write(spark: Any, path: Path, rows: list[tuple[Any, ...]], **options: str) -> None:
    hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), {**OPTS, **options})


def _sync(spark: Any, engines: Engines, path: Path, name: str) -> None:
    from catalog.hive import HiveSyncTool, HmsMetastoreClient
    from hudi_sql.table.meta_client import TableMetaClient

    hms = HmsMetastoreClient.from_spark(spark, engines.metastore_uri)
    try:
        HiveSyncTool(TableMetaClient.load(str(path)), {
            **OPTS, "hoodie.table.name": name, "hoodie.datasource.hive_sync.mode": "hms",
            "hoodie.datasource.hive_sync.database": DATABASE}, hms).sync()
    finally:
        hms.close()


def _bootstrap(spark: Any, engines: Engines, source: Path, base: Path) -> None:
    """``orders``: a metadata-only bootstrap of a Hive-style Parquet table (written by plain
    Spark), synced by the procedure itself (``enable_hive_sync``)."""
    spark.createDataFrame([(i, "a" if i % 2 else "b", 1, float(i)) for i in range(40)], SCHEMA) \
        .repartition(2).write.partitionBy("p").parquet(str(source))
    db = hudi_sql.connect(spark)
    db.set("hoodie.datasource.hive_sync.mode", "hms")
    db.set("hoodie.datasource.hive_sync.metastore.uris", engines.metastore_uri)
    db.sql(f"CALL run_bootstrap(table => '{DATABASE}.orders', table_type => 'COPY_ON_WRITE', "
           f"bootstrap_path => '{source}', base_path => '{base}', rowKey_field => 'id', "
           "partition_path_field => 'p', enable_hive_sync => true)")


def _expected(spark: Any, cow: Path, mor: Path, orders: Path) -> dict[str, list[Any]]:
    """hudi-sql's own reads by path: the snapshot, and the read-optimized view for ``_ro``."""
    def aggregate(path: Path, **options: str) -> list[Any]:
        df = spark.read.format("hudi").options(**options).load(str(path))
        n, k, s = df.selectExpr("count(*)", "count(DISTINCT id)", "CAST(sum(v) AS DOUBLE)").collect()[0]
        return [n, k, s]

    return {"trips": aggregate(cow), "rides_ro": aggregate(mor, **{"hoodie.datasource.query.type": "read_optimized"}),
            "rides_rt": aggregate(mor), "orders": aggregate(orders)}


def _beeline(engines: Engines) -> dict[str, list[Any]]:
    """Beeline (from the PySpark wheel) against Spark's own Thrift server."""
    script = "".join(f"{_aggregate(t)};\n" for t in TABLES)
    out = subprocess.run(
        [_spark_bin("beeline"), "-u", f"jdbc:hive2://127.0.0.1:{engines.spark_thrift_port}/default", "-n", "test",
         "--silent=true", "--showHeader=false", "--outputformat=csv2", "-e", script],
        env=child_process_env(), capture_output=True, text=True, timeout=300, check=False)
    lines = [line for line in out.stdout.splitlines() if line and line[0].isdigit()]
    assert out.returncode == 0 and len(lines) == len(TABLES), out.stdout[-2000:] + out.stderr[-4000:]
    return {t: [int(n), int(k), float(s)] for t, (n, k, s) in zip(TABLES, (line.split(",") for line in lines),
                                                                   strict=True)}


def _hudi_sql_thrift(engines: Engines) -> dict[str, list[Any]]:
    from pyhive import hive

    connection = hive.connect(host="127.0.0.1", port=engines.hudi_sql_port, username="test")
    try:
        out = {}
        for table in TABLES:
            cursor = connection.cursor()
            cursor.execute(_aggregate(table))
            out[table] = list(cursor.fetchall()[0])
            cursor.close()
        return out
    finally:
        connection.close()


@dataclass(frozen=True)
class SyncedTables:
    cow: Path
    mor: Path
    orders: Path


MOR_OPTS = {"hoodie.datasource.write.table.type": "MERGE_ON_READ"}


@pytest.fixture(scope="module")
def synced(spark: Any, engines: Engines, tmp_path_factory: pytest.TempPathFactory) -> SyncedTables:
    """``trips`` (COW) and ``rides`` (MOR) after an insert, an upsert and a delete, each synced;
    ``orders`` bootstrapped and synced by the procedure."""
    work = tmp_path_factory.mktemp("synced")
    cow, mor = work / "trips", work / "rides"
    first = [(i, "a" if i % 2 else "b", 1, float(i)) for i in range(12)]
    upsert = [(i, "a" if i % 2 else "b", 2, float(i) * 10) for i in range(0, 12, 3)] + [(30, "c", 2, 3.0)]
    deletes = [(1, "a", 3, 0.0), (2, "b", 3, 0.0)]
    for path, extra in ((cow, {}), (mor, MOR_OPTS)):
        extra = {**extra, "hoodie.table.name": path.name}
        _write(spark, path, first, **extra)
        _write(spark, path, upsert, **extra, **{"hoodie.datasource.write.operation": "upsert"})
        _write(spark, path, deletes, **extra, **{"hoodie.datasource.write.operation": "delete"})
        _sync(spark, engines, path, path.name)
    orders = work / "orders"
    _bootstrap(spark, engines, work / "orders_source", orders)
    return SyncedTables(cow, mor, orders)


# Spark's Thrift server above is a plain PySpark session with Hive support and nothing of
# hudi-sql, so Beeline's answers are what such a session reads by table name (a fresh plain
# session reading by name and by path: tests/integration/test_plain_engines.py; Spark's
# ``spark-sql`` CLI, the same kind of session, reading by name and by path: the last test here).


def test_every_engine_reads_synced_upserts_and_deletes_as_hudi_sql_does(
        spark: Any, engines: Engines, synced: SyncedTables) -> None:
    assert list(synced.mor.glob("*/.*.log.*")), "the MOR upserts and deletes should be in log files"
    expected = _expected(spark, synced.cow, synced.mor, synced.orders)
    assert expected["orders"] == [40, 40, float(sum(range(40)))], "the bootstrap reads as its source"
    assert expected["rides_rt"][:2] == [11, 11] and expected["rides_ro"] != expected["rides_rt"]  # logs: not in _ro
    assert _beeline(engines) == expected
    assert _hudi_sql_thrift(engines) == expected


def test_every_engine_follows_a_compaction_and_cleans_after_a_resync(
        spark: Any, engines: Engines, synced: SyncedTables) -> None:
    """A compaction (MOR) and cleans rewrite the file set; a re-sync, and every engine follows
    (Spark's Thrift server has read these tables before: its cached relations must not stay)."""
    services = {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "1",
                "hoodie.clean.automatic": "true", "hoodie.cleaner.commits.retained": "1"}
    more = [(i, "a" if i % 2 else "b", 4, -float(i)) for i in range(4, 8)]
    for path, extra in ((synced.cow, {}), (synced.mor, MOR_OPTS), (synced.orders, {})):  # orders: skeletons rewritten
        extra = {**extra, "hoodie.table.name": path.name}
        _write(spark, path, more, **extra, **services, **{"hoodie.datasource.write.operation": "upsert"})
        _sync(spark, engines, path, path.name)
    from hudi_sql.table.meta_client import TableMetaClient

    timeline = TableMetaClient.load(str(synced.mor)).timeline
    assert any(i.action == "commit" for i in timeline.completed_writes().instants), "a compaction should have run"
    expected = _expected(spark, synced.cow, synced.mor, synced.orders)
    assert expected["orders"][:2] == [40, 40]
    assert expected["rides_ro"] == expected["rides_rt"]  # compacted: the base files hold everything
    assert _beeline(engines) == expected
    assert _hudi_sql_thrift(engines) == expected


_HUDI_SQL_EMBEDDED = r"""
import sys, hudi_sql
state, location = sys.argv[1], sys.argv[2]
db = hudi_sql.connect(hudi_sql.spark_session(master="local[1]", state_dir=state))
db.sql("CREATE TABLE rides (id BIGINT, rider STRING, fare DOUBLE, ts BIGINT) USING hudi LOCATION '%s' "
       "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')" % location)
db.sql("INSERT INTO rides VALUES (1, 'a', 10.0, 1), (2, 'b', 20.0, 1), (3, 'c', 30.0, 1)")
db.sql("UPDATE rides SET fare = 11.0, ts = 2 WHERE id = 1")
db.sql("DELETE FROM rides WHERE id = 3")
print("RESULT " + ";".join(f"{r[0]}\t{r[1]}" for r in db.sql("SELECT id, fare FROM rides ORDER BY id").collect()))
"""


def test_spark_sql_cli_on_hudi_sqls_embedded_metastore_reads_by_name_and_by_path(tmp_path: Path) -> None:
    """``spark-sql -e`` on the Derby metastore hudi-sql made (after hudi-sql's process is gone:
    Derby admits one process at a time): the snapshot, log updates and deletes merged."""
    state, location = tmp_path / "state", tmp_path / "rides"
    out = subprocess.run([sys.executable, "-c", _HUDI_SQL_EMBEDDED, str(state), str(location)], cwd=tmp_path,
                         env=child_process_env(), capture_output=True, text=True, timeout=600, check=False)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, out.stdout[-2000:] + out.stderr[-3000:]
    expected = lines[0][len("RESULT "):].split(";")
    assert expected == ["1\t11.0", "2\t20.0"]
    script = ("SELECT id, fare FROM rides ORDER BY id; "
              f"CREATE TEMPORARY VIEW by_path USING hudi OPTIONS (path '{location}'); "
              "SELECT id, fare FROM by_path ORDER BY id;")
    cli = subprocess.run(
        [_spark_bin("spark-sql"), *session_spark_conf(), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
         "--conf", "spark.driver.host=127.0.0.1", "--conf", f"spark.sql.warehouse.dir={state / 'warehouse'}",
         "--conf", f"spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={state / 'metastore_db'}",
         "--driver-java-options", f"-Dderby.system.home={state}", "-S", "-e", script],
        cwd=tmp_path, env=child_process_env(), capture_output=True, text=True, timeout=300, check=False)
    assert cli.returncode == 0, cli.stderr[-4000:]
    assert [line for line in cli.stdout.splitlines() if line.strip()] == expected + expected
