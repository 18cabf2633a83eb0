"""What engines without hudi-sql's setup read: a plain PySpark session, and manifest-form Hive tables.

* A plain ``SparkSession.builder.getOrCreate()`` session (no ``hudi_sql.spark_session()``),
  started in a subprocess with ``PYSPARK_PYTHON`` set and the repository on ``PYTHONPATH`` (what
  a wheel install gives: Spark finds :mod:`pyspark_hudi` with ``pkgutil.iter_modules``), reads
  ``format("hudi")`` by path like hudi-sql's own reader, and a table it registers itself
  (``CREATE TABLE ... USING hudi LOCATION``) by name; it refuses writes and path-less reads with
  errors that say where to go.
* Hive sync with ``sync_as_manifest`` (``hms`` mode, a standalone Hive metastore from the
  PySpark wheel): after insert, upsert and delete the manifests list exactly the latest base
  files (their rows are the snapshot, no duplicates), the Hive table is a
  ``SymlinkTextInputFormat`` table over them, and hudi-sql, in a session on that metastore,
  recognises both the manifest form and the Hive serde form (``HoodieParquetInputFormat``) as
  Hudi tables and returns the snapshot, not every file version.

Every process started here is stopped by process id (its process group).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from process_helpers import HiveMetastore, stop_process_group

import hudi_sql
from hudi_sql.engine.session import child_process_env

pytestmark = [pytest.mark.spark, pytest.mark.engines]

ROOT = Path(__file__).resolve().parents[2]
OPTS = {
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
}
SCHEMA = "id long, p string, ts long, v double"
SYMLINK = "org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat"

# A plain session: nothing of hudi-sql is imported by the driver; format("hudi") comes from pyspark_hudi.
_PLAIN_DRIVER = r"""
import json, sys
from pyspark.sql import SparkSession
request = json.loads(sys.argv[1])
spark = (SparkSession.builder.master("local[2]").appName("plain-engine")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.sql.warehouse.dir", request["state"] + "/warehouse")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
out = {"reads": {}}
for name, (path, options) in request["reads"].items():
    rows = spark.read.format("hudi").options(**options).load(path).collect()
    out["reads"][name] = sorted(json.dumps(r.asDict(), sort_keys=True, default=str) for r in rows)

def error_of(action):
    try:
        action()
    except Exception as exc:
        return str(exc)
    return None

out["write_error"] = error_of(
    lambda: spark.range(1).write.format("hudi").mode("append").save(request["write_path"]))
# Spark's own CREATE TABLE over the table: its schema comes from the data source, marked with the
# table's location, so the table reads by name in this session too.
spark.sql("CREATE TABLE catalog_t USING hudi LOCATION '%s'" % request["write_path"])
out["catalog_rows"] = sorted(json.dumps(r.asDict(), sort_keys=True, default=str)
                             for r in spark.sql("SELECT * FROM catalog_t").collect())
out["pathless_error"] = error_of(lambda: spark.read.format("hudi").load().collect())
print("RESULT " + json.dumps(out), flush=True)
"""

# hudi-sql in a session on the standalone metastore: SQL on the synced tables.
_HUDI_SQL_DRIVER = r"""
import json, sys
import hudi_sql
request = json.loads(sys.argv[1])
spark = hudi_sql.spark_session(master="local[1]", state_dir=request["state"], metastore_uris=request["uris"],
                               conf={"spark.sql.shuffle.partitions": "2"})
session = hudi_sql.connect(spark)
out = {}
for table in request["tables"]:
    row = session.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k, sum(v) AS s FROM {table}").collect()[0]
    out[table] = [row["n"], row["k"], row["s"]]
print("RESULT " + json.dumps(out), flush=True)
"""


def _env() -> dict[str, str]:
    # What a wheel install gives: hudi_sql and pyspark_hudi importable from sys.path, for the
    # driver and for the Python workers (which is where Spark looks for pyspark_* modules).
    return child_process_env()


def _run_driver(script: str, request: dict[str, Any], cwd: Path, timeout: float = 600) -> dict[str, Any]:
    """Run a driver script in its own process group; the JSON it prints after ``RESULT``."""
    log = cwd / "driver.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-c", script, json.dumps(request)], cwd=cwd, env=_env(),
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        finally:
            stop_process_group(proc)
    text = log.read_text()
    for line in text.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[len("RESULT "):])
            return result
    raise AssertionError(f"driver exited {proc.returncode} without a result:\n{text[-4000:]}")


def _write(spark: Any, path: Path, rows: list[tuple[Any, ...]], **options: str) -> None:
    hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), {**OPTS, **options})


def _rows(spark: Any, path: Path, options: dict[str, str]) -> list[str]:
    """Our reader's rows (hudi-sql's session), in the form the plain driver prints them."""
    rows = spark.read.format("hudi").options(**options).load(str(path)).collect()
    return sorted(json.dumps(r.asDict(), sort_keys=True, default=str) for r in rows)


def _first_instant(path: Path) -> str:
    from hudi_sql.table.meta_client import TableMetaClient

    first = TableMetaClient.load(str(path)).timeline.completed_writes().first
    assert first is not None
    return first.instant_time


def test_plain_session_format_hudi_reads_like_hudi_sql_by_path_and_by_name_and_refuses_writes(
        spark: Any, tmp_path: Path) -> None:
    cow, mor = tmp_path / "cow", tmp_path / "mor"
    first = [(i, "a" if i % 2 else "b", 1, float(i)) for i in range(10)]
    update = [(i, "a" if i % 2 else "b", 2, float(i) * 10) for i in range(0, 10, 3)] + [(20, "c", 2, 20.0)]
    for path, kind in ((cow, "COPY_ON_WRITE"), (mor, "MERGE_ON_READ")):
        table_opts = {"hoodie.table.name": path.name, "hoodie.datasource.write.table.type": kind}
        _write(spark, path, first, **table_opts)
        _write(spark, path, update, **table_opts, **{"hoodie.datasource.write.operation": "upsert"})
    assert list(mor.glob("*/.*.log.*")), "the MOR upsert should have written log files"
    reads = {
        "cow_snapshot": (str(cow), {}),
        "mor_snapshot": (str(mor), {}),
        "mor_read_optimized": (str(mor), {"hoodie.datasource.query.type": "read_optimized"}),
        "cow_incremental": (str(cow), {"hoodie.datasource.query.type": "incremental",
                                       "hoodie.datasource.read.begin.instanttime": _first_instant(cow)}),
        "cow_time_travel": (str(cow), {"as.of.instant": _first_instant(cow)}),
        "mor_time_travel": (str(mor), {"as.of.instant": _first_instant(mor)}),
    }
    state = tmp_path / "plain"
    state.mkdir()
    result = _run_driver(_PLAIN_DRIVER, {"reads": reads, "state": str(state), "write_path": str(cow)}, state)

    for name, (path, options) in reads.items():
        assert result["reads"][name] == _rows(spark, Path(path), options), name
    assert len(result["reads"]["mor_snapshot"]) == 11
    assert result["reads"]["mor_snapshot"] != result["reads"]["mor_read_optimized"]  # the logs were merged
    assert len(result["reads"]["cow_incremental"]) == 5
    assert "hudi_sql.write" in result["write_error"]
    assert result["catalog_rows"] == _rows(spark, cow, {})
    assert "without a path" in result["pathless_error"] and "load('/table/path')" in result["pathless_error"]


# --------------------------------------------------------------------------------------------
# Manifest-form Hive sync, on a standalone metastore


def _manifest_files(base: Path) -> dict[str, list[str]]:
    """Partition folder (relative to the manifest root) -> the lines of its manifest."""
    root = base / ".hoodie" / ".aux" / "manifest"
    return {str(m.parent.relative_to(root)): m.read_text().splitlines() for m in sorted(root.rglob("manifest"))}


def _manifest_rows(base: Path) -> tuple[int, int]:
    """What a manifest reader sees: rows and distinct record keys of every file the manifests list."""
    keys: list[str] = []
    for lines in _manifest_files(base).values():
        for line in lines:
            keys += pq.read_table(line.removeprefix("file://"), columns=["_hoodie_record_key"]).column(0).to_pylist()
    return len(keys), len(set(keys))


def test_manifest_sync_cow_after_insert_upsert_delete_lists_latest_base_files_and_hudi_sql_reads_every_form(
        spark: Any, hive_metastore: HiveMetastore, tmp_path: Path) -> None:
    from catalog.hive import HiveSyncTool, HmsMetastoreClient
    from hudi_sql.table.meta_client import TableMetaClient

    path = tmp_path / "trips"
    sync = {"hoodie.table.name": "trips", "hoodie.datasource.hive_sync.enable": "true",
            "hoodie.datasource.hive_sync.mode": "hms", "hoodie.datasource.hive_sync.metastore.uris": hive_metastore.uri,
            "hoodie.datasource.hive_sync.database": "manifest_db",
            "hoodie.datasource.hive_sync.sync_as_manifest": "true"}
    _write(spark, path, [(i, "a" if i % 2 else "b", 1, float(i)) for i in range(10)], **sync)
    _write(spark, path, [(i, "a" if i % 2 else "b", 2, float(i) * 10) for i in range(0, 10, 3)] + [(20, "c", 2, 1.0)],
           **sync, **{"hoodie.datasource.write.operation": "upsert"})
    _write(spark, path, [(1, "a", 3, 0.0), (2, "b", 3, 0.0)], **sync, **{"hoodie.datasource.write.operation": "delete"})

    snapshot = spark.read.format("hudi").load(str(path))
    expected = (snapshot.count(), snapshot.select("id").distinct().count())
    assert expected == (9, 9)
    assert len(list(path.glob("*/*.parquet"))) > sum(len(v) for v in _manifest_files(path).values())  # old versions
    assert _manifest_rows(path) == expected  # exactly the latest base files: no duplicates, nothing missing
    assert set(_manifest_files(path)) == {"a", "b", "c"}

    hms = HmsMetastoreClient.from_spark(spark, hive_metastore.uri)
    try:
        table = hms.get_table("manifest_db", "trips")
        assert table is not None and table.input_format == SYMLINK
        assert table.location is not None and table.location.endswith(f"{path}/.hoodie/.aux/manifest")
        assert table.properties["hoodie.base.path"] == str(path)
        assert "spark.sql.sources.provider" not in table.properties
        assert {p.values: p.location for p in hms.list_partitions("manifest_db", "trips")} == {
            (p,): f"file:{path}/.hoodie/.aux/manifest/{p}" for p in ("a", "b", "c")}
        # The same table in the Hive serde form: partitions are the data folders, every file version in them.
        HiveSyncTool(TableMetaClient.load(str(path)), {
            **OPTS, **sync, "hoodie.datasource.hive_sync.sync_as_manifest": "false",
            "hoodie.datasource.hive_sync.sync_as_datasource": "false",
            "hoodie.datasource.hive_sync.database": "serde_db"}, hms).sync()
        serde = hms.get_table("serde_db", "trips")
        assert serde is not None and serde.input_format == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
    finally:
        hms.close()

    state = tmp_path / "hudi-sql"
    state.mkdir()
    result = _run_driver(_HUDI_SQL_DRIVER, {"state": str(state), "uris": hive_metastore.uri,
                                            "tables": ["manifest_db.trips", "serde_db.trips"]}, state)
    total = snapshot.agg({"v": "sum"}).collect()[0][0]
    assert result == {"manifest_db.trips": [*expected, total], "serde_db.trips": [*expected, total]}


def test_manifest_sync_mor_registers_read_optimized_table_only(spark: Any, hive_metastore: HiveMetastore,
                                                               tmp_path: Path) -> None:
    from catalog.hive import HmsMetastoreClient

    path = tmp_path / "rides"
    sync = {"hoodie.table.name": "rides", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
            "hoodie.datasource.hive_sync.enable": "true", "hoodie.datasource.hive_sync.mode": "hms",
            "hoodie.datasource.hive_sync.metastore.uris": hive_metastore.uri,
            "hoodie.datasource.hive_sync.database": "mor_manifest_db",
            "hoodie.datasource.hive_sync.sync_as_manifest": "true"}
    _write(spark, path, [(i, "a" if i % 2 else "b", 1, float(i)) for i in range(10)], **sync)
    _write(spark, path, [(i, "a" if i % 2 else "b", 2, -1.0) for i in range(0, 10, 2)], **sync,
           **{"hoodie.datasource.write.operation": "upsert"})

    read_optimized = spark.read.format("hudi").option("hoodie.datasource.query.type", "read_optimized").load(str(path))
    assert _manifest_rows(path) == (read_optimized.count(), 10)
    hms = HmsMetastoreClient.from_spark(spark, hive_metastore.uri)
    try:
        ro = hms.get_table("mor_manifest_db", "rides_ro")
        assert ro is not None and ro.input_format == SYMLINK
        assert hms.get_table("mor_manifest_db", "rides_rt") is None  # the merged view needs a Hudi reader
    finally:
        hms.close()
