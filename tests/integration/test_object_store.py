"""Tables on an S3-compatible object store: SeaweedFS on loopback, reached with Hadoop's S3A keys.

The session's Spark configuration carries the keys a Spark user sets (``spark.hadoop.fs.s3a.*``);
hudi-sql resolves them once per operation and hands them to its tasks. Each test looks at the
bucket through pyarrow's own client (and the Rust reader ``hudi``), not through hudi-sql, and
checks that nothing landed on the local disk instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hudi_sql
from bench.stress import OCC_OPTIONS, ROW_SCHEMA, Writer, check, run_together, seed, writer_spec
from hudi_sql.config import HudiConfigs
from hudi_sql.config.concurrency import STORAGE_LOCK_PROVIDER, ConcurrencyConfig, HudiConcurrencyConfig
from hudi_sql.engine.session import child_process_env
from hudi_sql.errors import LockTimeoutError, StorageError
from hudi_sql.table.meta_client import TableMetaClient
from tools.s3.seaweedfs import BUCKET, ObjectStoreServer

pytestmark = [pytest.mark.spark, pytest.mark.processes]

SCHEMA = "id int, name string, p string, ts long"
KEYS = {"hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.partitionpath.field": "p",
        "hoodie.datasource.write.precombine.field": "ts"}


@pytest.fixture
def store(object_store: ObjectStoreServer) -> ObjectStoreServer:
    """The session's S3 server (tests/conftest.py); this module's tables are at the bucket's top."""
    return object_store


@pytest.fixture
def s3(s3_spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The shared session with the store's S3A keys set (tests/conftest.py), working in an empty local
    folder (which must stay empty: a table path misread as local would land there)."""
    monkeypatch.chdir(tmp_path)
    yield s3_spark
    assert not any(tmp_path.iterdir()), f"files written locally: {sorted(os.listdir(tmp_path))}"


def _rows(frame: Any) -> list[tuple[Any, ...]]:
    return sorted((r["id"], r["name"], r["p"], r["ts"]) for r in frame.collect())


def _rust_rows(store: ObjectStoreServer, table: str) -> list[tuple[Any, ...]]:
    """The table as the Rust reader ``hudi`` reads it straight from the bucket."""
    from hudi import HudiReadOptions, HudiTableBuilder

    reader = HudiTableBuilder.from_base_uri(f"s3://{BUCKET}/{table}").with_storage_options(
        store.rust_storage_options).build()
    return sorted((row["id"], row["name"], row["p"], row["ts"])
                  for batch in reader.read(HudiReadOptions()) for row in batch.to_pylist())


def test_a_copy_on_write_table_lives_in_the_bucket_through_upserts_deletes_and_every_query(
        s3: Any, store: ObjectStoreServer) -> None:
    path = f"s3a://{BUCKET}/cow"
    options = {"hoodie.table.name": "cow", **KEYS, "hoodie.metadata.index.column.stats.enable": "true"}
    first = s3.createDataFrame([(i, f"a{i}", f"p{i % 2}", 1) for i in range(8)], SCHEMA)
    inserted = hudi_sql.write(first, path, options)
    hudi_sql.write(s3.createDataFrame([(i, f"b{i}", f"p{i % 2}", 2) for i in range(0, 8, 2)], SCHEMA), path,
                   {**options, "hoodie.datasource.write.operation": "upsert"})
    hudi_sql.write(s3.createDataFrame([(7, "", "p1", 3)], SCHEMA), path,
                   {**options, "hoodie.datasource.write.operation": "delete"})

    expected = sorted([(i, f"b{i}" if i % 2 == 0 else f"a{i}", f"p{i % 2}", 2 if i % 2 == 0 else 1)
                       for i in range(7)])
    assert _rows(hudi_sql.read(s3, path)) == expected
    assert _rust_rows(store, "cow") == expected
    assert _rows(hudi_sql.read(s3, path, {"as.of.instant": inserted.instant_time})) == \
        sorted((i, f"a{i}", f"p{i % 2}", 1) for i in range(8))
    changed = hudi_sql.read(s3, path, {"hoodie.datasource.query.type": "incremental",
                                       "hoodie.datasource.read.begin.instanttime": inserted.instant_time})
    assert sorted(r["id"] for r in changed.collect()) == [0, 2, 4, 6]
    skipping = hudi_sql.read(s3, path, {"hoodie.enable.data.skipping": "true"}).where("name = 'b4'")
    assert _rows(skipping) == [(4, "b4", "p0", 2)]

    keys = store.keys_under("cow")
    assert "cow/.hoodie/hoodie.properties" in keys
    assert any(k.startswith("cow/.hoodie/metadata/column_stats/") for k in keys)
    assert sum(k.startswith("cow/p0/") and k.endswith(".parquet") for k in keys) >= 2


def test_a_merge_on_read_table_in_sql_merges_logs_compacts_and_cleans_in_the_bucket(
        s3: Any, store: ObjectStoreServer) -> None:
    db = hudi_sql.connect(s3)
    db.sql("DROP TABLE IF EXISTS s3_mor")
    db.sql(f"""CREATE TABLE s3_mor (id INT, name STRING, ts BIGINT, p STRING) USING hudi
               PARTITIONED BY (p) LOCATION 's3a://{BUCKET}/sql_mor'
               TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')""")
    db.sql("INSERT INTO s3_mor VALUES (1, 'a', 1, 'x'), (2, 'b', 1, 'x'), (3, 'c', 1, 'y')")
    db.sql("UPDATE s3_mor SET name = 'B', ts = 2 WHERE id = 2")
    db.sql("""MERGE INTO s3_mor t USING (SELECT 3 AS id, 'C' AS name, 2L AS ts, 'y' AS p
                                         UNION ALL SELECT 4, 'd', 1L, 'y') s
              ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *""")
    db.sql("DELETE FROM s3_mor WHERE id = 1")
    expected = [(2, "B", "x", 2), (3, "C", "y", 2), (4, "d", "y", 1)]
    assert _rows(db.sql("SELECT id, name, p, ts FROM s3_mor")) == expected
    assert any(".log." in k for k in store.keys_under("sql_mor/p=x")), "the update went to a log file"
    read_optimized = hudi_sql.read(s3, f"s3a://{BUCKET}/sql_mor",
                                   {"hoodie.datasource.query.type": "read_optimized"})
    assert (2, "b", "x", 1) in _rows(read_optimized), "read-optimized: the base file, the update still in its log"

    db.sql("CALL run_compaction(op => 'run', table => 's3_mor', options => 'hoodie.compact.inline.max.delta.commits=1')")
    assert _rows(db.sql("SELECT id, name, p, ts FROM s3_mor")) == expected
    assert _rows(hudi_sql.read(s3, f"s3a://{BUCKET}/sql_mor",
                               {"hoodie.datasource.query.type": "read_optimized"})) == expected
    assert _rust_rows(store, "sql_mor") == expected
    db.sql("CALL run_clean(table => 's3_mor', retain_commits => 1)")
    assert _rows(db.sql("SELECT id, name, p, ts FROM s3_mor")) == expected
    assert any(k.endswith(".commit") for k in store.keys_under("sql_mor/.hoodie"))


def test_a_path_no_backend_serves_a_missing_bucket_and_refused_credentials_fail_before_any_write(
        s3: Any, store: ObjectStoreServer) -> None:
    frame = s3.createDataFrame([(1, "a", "p", 1)], SCHEMA)
    options = {"hoodie.table.name": "t", **KEYS}
    with pytest.raises(StorageError, match=r"No storage backend serves 'nosuch://'"):
        hudi_sql.write(frame, "nosuch://bucket/t", options)
    with pytest.raises(StorageError, match=r"bucket 'missing-bucket' of 's3a://missing-bucket/t' does not exist"):
        hudi_sql.write(frame, "s3a://missing-bucket/t", options)
    with pytest.raises(StorageError, match=r"s3a://lake/refused"):
        hudi_sql.write(frame, f"s3a://{BUCKET}/refused",
                       {**options, "spark.hadoop.fs.s3a.secret.key": "not-the-secret"})
    assert store.keys_under("refused") == []


# -- several writers on one bucket: Apache Hudi 1.1's storage-based lock -----------------------

STORAGE_LOCKED = {HudiConcurrencyConfig.CONCURRENCY_MODE.key: "OPTIMISTIC_CONCURRENCY_CONTROL",
                  HudiConcurrencyConfig.LOCK_PROVIDER.key: STORAGE_LOCK_PROVIDER}


def _lease(store: ObjectStoreServer, table: str) -> dict[str, Any]:
    with store.filesystem().open_input_file(f"{BUCKET}/{table}/.hoodie/.locks/table_lock.json") as lock_file:
        return dict(json.loads(lock_file.read()))


def _put_lease(store: ObjectStoreServer, table: str, *, valid_for_ms: int, owner: str) -> None:
    """A lease as an Apache Hudi writer leaves it (its JSON, written with pyarrow's client, not ours)."""
    lease = {"expired": False, "validUntil": int(time.time() * 1000) + valid_for_ms, "owner": owner}
    with store.filesystem().open_output_stream(f"{BUCKET}/{table}/.hoodie/.locks/table_lock.json") as out:
        out.write(json.dumps(lease).encode())


def test_the_storage_based_lock_is_apache_hudis_lease_object_waited_for_while_live_taken_over_once_lapsed(
        s3: Any, store: ObjectStoreServer) -> None:
    path = f"s3a://{BUCKET}/leased"
    options = {"hoodie.table.name": "leased", **KEYS, **STORAGE_LOCKED}
    hudi_sql.write(s3.createDataFrame([(i, f"a{i}", "p0", 1) for i in range(4)], SCHEMA), path, options)
    released = _lease(store, "leased")
    assert set(released) == {"expired", "validUntil", "owner"} and released["expired"] is True

    _put_lease(store, "leased", valid_for_ms=60_000, owner="apache-writer-1")
    timeline = store.keys_under("leased/.hoodie")
    impatient = {**options, HudiConcurrencyConfig.LOCK_WAIT_TIME_MS.key: "500",
                 HudiConcurrencyConfig.LOCK_CLIENT_NUM_RETRIES.key: "0"}
    update = s3.createDataFrame([(1, "b1", "p0", 2)], SCHEMA)
    with pytest.raises(LockTimeoutError, match="owner apache-writer-1"):
        hudi_sql.write(update, path, impatient)
    assert store.keys_under("leased/.hoodie") == timeline, "a writer without the lock changed the timeline"

    _put_lease(store, "leased", valid_for_ms=-60_000, owner="apache-writer-1")  # its holder died a minute ago
    hudi_sql.write(update, path, impatient)
    after = _lease(store, "leased")
    assert after["expired"] is True and after["owner"] != "apache-writer-1"
    assert _rows(hudi_sql.read(s3, path)) == sorted([(0, "a0", "p0", 1), (1, "b1", "p0", 2), (2, "a2", "p0", 1),
                                                     (3, "a3", "p0", 1)])


def test_writer_processes_sharing_the_bucket_under_the_storage_based_lock_lose_no_update_and_a_killed_one_is_rolled_back(
        s3: Any, store: ObjectStoreServer, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Two writer processes (``bench.stress``'s) upsert the same keys at once, each reaching the
    bucket with its own S3A keys and taking Apache Hudi 1.1's lease; then a third is SIGKILLed
    while its instant is inflight, and the next writer rolls that instant back."""
    table = f"s3a://{BUCKET}/occ"
    options = {**OCC_OPTIONS, **STORAGE_LOCKED, **store.hadoop_keys}
    ids = list(range(10))
    partition_of = {i: "p0" if i < 5 else "p1" for i in ids}
    seed(s3, table, ids, partition_of, store.hadoop_keys)
    specs = [writer_spec(name, ids[:5], partition_of, options, hold_ms=1000) for name in ("a", "b")]
    work = tmp_path_factory.mktemp("writers")  # their Spark state; the test's own folder must stay empty
    outcomes = run_together(table, work, specs)
    verdict = check(s3, table, outcomes, {"a": ids[:5], "b": ids[:5]}, store.rust_storage_options)
    print(f"[object-store:storage-lock] {verdict.figures.line()}")
    assert not verdict.violations and not verdict.lost, (verdict, outcomes)
    assert verdict.figures.commits >= 2, outcomes

    victim = Writer(table, work / "state-v", writer_spec("v", ids[5:], partition_of, options, rounds=1,
                                                             hold_ms=60_000))
    try:
        dead = victim.read_until("inflight")["inflight"]
    finally:
        victim.kill()
    assert any(dead in k for k in store.keys_under("occ/.hoodie")), "the victim's instant is on the timeline"
    expiry = ConcurrencyConfig.of(HudiConfigs.of(options)).heartbeat_expiry_seconds
    time.sleep(expiry + 0.5)  # the dead writer's heartbeat must expire before a LAZY writer rolls it back
    hudi_sql.write(s3.createDataFrame([(9, "after", 9, "p1")], ROW_SCHEMA), table, options)
    meta = TableMetaClient.load(table)
    assert dead not in meta.timeline.pending_writes().times()
    assert dead not in meta.timeline.completed_writes().times()
    assert not [k for k in store.keys_under("occ") if dead in k and k.endswith(".parquet")]
    rows = dict(zip(*[c.to_pylist() for c in hudi_sql.read(s3, table).select("id", "v").toArrow().columns]))
    assert rows[9] == "after" and rows[5] == "seed"


def test_a_parquet_folder_in_the_bucket_is_bootstrapped_metadata_only_and_full_record_then_upserted(
        s3: Any, store: ObjectStoreServer) -> None:
    """The source is a Hive-style Parquet folder in the bucket (written with pyarrow's client); the
    regex selector bootstraps ``city=sf`` metadata-only (skeletons beside the source files, the
    index in .hoodie/.aux) and ``city=la`` with full records. The source is never changed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    client = store.filesystem()
    for city, ids in (("sf", range(5)), ("la", range(5, 8))):
        part = pa.table({"id": list(ids), "name": [f"s{i}" for i in ids], "ts": [1] * len(ids)},
                        schema=pa.schema([("id", pa.int32()), ("name", pa.string()), ("ts", pa.int64())]))
        with client.open_output_stream(f"{BUCKET}/boot_src/city={city}/part-0.parquet") as out:
            pq.write_table(part, out)
    source_before = store.keys_under("boot_src")
    db = hudi_sql.connect(s3)
    db.sql("DROP TABLE IF EXISTS s3_boot")
    args = {"table": "s3_boot", "table_type": "COPY_ON_WRITE", "bootstrap_path": f"s3a://{BUCKET}/boot_src",
            "base_path": f"s3a://{BUCKET}/boot", "rowKey_field": "id", "partition_path_field": "city",
            "selector_class": "org.apache.hudi.client.bootstrap.selector.BootstrapRegexModeSelector"}
    db.sql("SET hoodie.bootstrap.mode.selector.regex = 'city=sf'")
    try:
        assert [tuple(r) for r in db.sql("CALL run_bootstrap(" + ", ".join(f"{k} => '{v}'" for k, v in args.items())
                                         + ")").collect()] == [(0,)]
    finally:
        db.sql("RESET hoodie.bootstrap.mode.selector.regex")
    db.sql(f"CREATE TABLE s3_boot USING hudi LOCATION 's3a://{BUCKET}/boot'")
    expected = {i: (f"s{i}", 1, "sf" if i < 5 else "la") for i in range(8)}

    def table() -> dict[int, tuple[Any, ...]]:
        return {r[0]: tuple(r[1:]) for r in db.sql("SELECT id, name, ts, city FROM s3_boot").collect()}

    assert table() == expected
    keys = store.keys_under("boot")
    assert any(k.startswith("boot/.hoodie/.aux/.bootstrap/.partitions/") for k in keys), "the bootstrap index"
    assert not [k for k in keys if k.startswith("boot/city=sf/") and k.endswith(".parquet")
                and "00000000000001" not in k], "metadata-only: skeletons, no copies of the rows"
    assert any(k.startswith("boot/city=la/") and "00000000000002" in k for k in keys), "full record: base files"

    db.sql("UPDATE s3_boot SET name = 'changed', ts = 2 WHERE id IN (1, 6)")
    assert table() == {**expected, 1: ("changed", 2, "sf"), 6: ("changed", 2, "la")}
    assert store.keys_under("boot_src") == source_before


def test_a_stream_writes_its_micro_batches_into_the_bucket_and_a_stream_reads_them_back(
        s3: Any, store: ObjectStoreServer, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Hudi streaming sink commits each micro-batch to an ``s3a://`` table (Spark's own
    checkpoint stays on the local disk: Spark's Hadoop has no S3A connector here); a
    ``readStream`` of the table, planned by the ``hudi`` data source in a Python worker, reaches
    the bucket with the session's keys and emits every committed record once."""
    work = tmp_path_factory.mktemp("s3-stream")
    source, table = work / "in", f"s3a://{BUCKET}/streamed"
    source.mkdir()
    for batch in range(2):  # key 3 in both: the second batch updates it
        file = source / f"b{batch}.json"
        file.write_text("\n".join(
            json.dumps({"id": i, "name": f"n{batch}", "p": "x", "ts": batch}) for i in range(batch * 3, batch * 3 + 4)))
        when = time.time() - 10 + batch  # Spark's file source takes the oldest file first
        os.utime(file, (when, when))
    query = (s3.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
             .writeStream.format("hudi").options(**{"hoodie.table.name": "streamed", **KEYS})
             .option("checkpointLocation", str(work / "ck-write")).trigger(availableNow=True).start(table))
    query.awaitTermination(120)
    expected = sorted([(i, "n0", "x", 0) for i in range(3)] + [(i, "n1", "x", 1) for i in range(3, 7)])
    assert _rows(hudi_sql.read(s3, table)) == expected
    assert len(TableMetaClient.load(table).timeline.completed_writes().times()) == 2, "one commit per micro-batch"

    reader = (s3.readStream.format("hudi").load(table).writeStream.format("memory").queryName("s3_streamed")
              .option("checkpointLocation", str(work / "ck-read")).start())
    try:
        reader.processAllAvailable()
        emitted = s3.sql("SELECT id, name, p, ts FROM s3_streamed").collect()
    finally:
        reader.stop()
    assert sorted((r["id"], r["name"], r["p"], r["ts"]) for r in emitted) == expected


def test_the_shell_with_its_warehouse_in_the_bucket_keeps_managed_tables_there_and_drops_them(
        store: ObjectStoreServer, tmp_path_factory: pytest.TempPathFactory) -> None:
    """``hudi-sql --warehouse s3a://lake/wh``: managed Hudi tables (no LOCATION) are created at
    ``<warehouse>/<table>`` and ``<warehouse>/<db>.db/<table>``, as Spark lays out a warehouse,
    while the embedded metastore keeps its own files locally; DROP TABLE deletes a managed table's
    objects."""
    work = tmp_path_factory.mktemp("s3-shell")
    keys = [arg for key, value in store.hadoop_keys.items() for arg in ("--conf", f"{key}={value}")]
    script = ("CREATE TABLE trips (id INT, name STRING, ts BIGINT) USING hudi "
              "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts');"
              "INSERT INTO trips VALUES (1, 'a', 1), (2, 'b', 1); UPDATE trips SET name = 'B', ts = 2 WHERE id = 2;"
              "CREATE DATABASE sales; CREATE TABLE sales.orders (id INT, ts BIGINT) USING hudi "
              "TBLPROPERTIES (primaryKey = 'id'); INSERT INTO sales.orders VALUES (5, 5);"
              "SELECT id, name FROM trips ORDER BY id; DROP TABLE sales.orders")
    done = subprocess.run(
        [sys.executable, "-m", "hudi_sql.apps.cli", "--master", "local[2]", "--warehouse", f"s3a://{BUCKET}/wh",
         "--state-dir", str(work / "state"), *keys, "-S", "--output", "json", "-e", script],
        capture_output=True, check=False, text=True, cwd=work, timeout=600, env=child_process_env())
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r for r in rows if "name" in r] == [{"id": 1, "name": "a"}, {"id": 2, "name": "B"}]
    assert "wh/trips/.hoodie/hoodie.properties" in store.keys_under("wh/trips/.hoodie")
    assert store.keys_under("wh/sales.db") == [], "DROP TABLE of a managed table deletes its objects"


def test_cdc_savepoint_restore_clustering_insert_overwrite_and_archival_of_a_table_in_the_bucket(
        s3: Any, store: ObjectStoreServer) -> None:
    db = hudi_sql.connect(s3)
    db.sql("DROP TABLE IF EXISTS s3_svc")
    db.sql(f"""CREATE TABLE s3_svc (id INT, name STRING, ts BIGINT, p STRING) USING hudi PARTITIONED BY (p)
               LOCATION 's3a://{BUCKET}/svc' TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts',
               'hoodie.table.cdc.enabled' = 'true', 'hoodie.parquet.small.file.limit' = '0',
               'hoodie.keep.min.commits' = '2', 'hoodie.keep.max.commits' = '3',
               'hoodie.cleaner.commits.retained' = '1')""")
    db.sql("INSERT INTO s3_svc VALUES (1, 'a', 1, 'x'), (2, 'b', 1, 'y')")
    assert db.sql("CALL create_savepoint(table => 's3_svc')").collect()[0][0] is True
    (saved,) = [r[0] for r in db.sql("CALL show_savepoints(table => 's3_svc')").collect()]
    saved_rows = _rows(db.sql("SELECT id, name, p, ts FROM s3_svc"))
    db.sql("UPDATE s3_svc SET name = 'A', ts = 2 WHERE id = 1")
    changes = db.sql("SELECT op, get_json_object(before, '$.name') AS was, get_json_object(after, '$.name') AS now "
                     f"FROM hudi_table_changes('s3_svc', 'cdc', '{saved}')").collect()
    assert [(r["op"], r["was"], r["now"]) for r in changes] == [("u", "a", "A")]
    assert db.sql(f"CALL rollback_to_savepoint(table => 's3_svc', instant_time => '{saved}')").collect()[0][0]
    assert _rows(db.sql("SELECT id, name, p, ts FROM s3_svc")) == saved_rows
    assert db.sql(f"CALL delete_savepoint(table => 's3_svc', instant_time => '{saved}')").collect()[0][0]

    for i in range(3, 6):  # small files of their own (small.file.limit 0), and commits to archive
        db.sql(f"INSERT INTO s3_svc VALUES ({i}, 'n{i}', 1, 'x')")
    (clustered,) = db.sql("CALL run_clustering(table => 's3_svc', order => 'id')").collect()
    assert clustered.state == "COMPLETED"
    db.sql("INSERT OVERWRITE TABLE s3_svc PARTITION (p = 'y') SELECT 6, 'f', 1")
    expected = [(1, "a", "x", 1), (3, "n3", "x", 1), (4, "n4", "x", 1), (5, "n5", "x", 1), (6, "f", "y", 1)]
    assert _rows(db.sql("SELECT id, name, p, ts FROM s3_svc")) == expected
    assert _rust_rows(store, "svc") == expected

    # archival (which never passes the metadata table's latest compaction: compacted every 2 commits here)
    db.sql("DROP TABLE IF EXISTS s3_arch")
    db.sql(f"""CREATE TABLE s3_arch (id INT, name STRING, ts BIGINT, p STRING) USING hudi PARTITIONED BY (p)
               LOCATION 's3a://{BUCKET}/arch' TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts',
               'hoodie.keep.min.commits' = '2', 'hoodie.keep.max.commits' = '3', 'hoodie.cleaner.commits.retained' = '1',
               'hoodie.metadata.compact.max.delta.commits' = '2')""")
    for i in range(6):
        db.sql(f"INSERT INTO s3_arch VALUES ({i}, 'n', {i}, 'x')")
    assert db.sql("CALL show_archived_commits(table => 's3_arch', limit => 100)").collect()
    assert any(k.startswith("arch/.hoodie/archived/") for k in store.keys_under("arch/.hoodie"))
    assert sorted(r[0] for r in db.sql("SELECT id FROM s3_arch").collect()) == list(range(6))


# A plain Spark session (nothing of hudi-sql set up) on the metastore, reading the synced table
# through the `hudi` data source Spark finds installed; the store's keys come from the AWS_*
# environment, as a user's executors would have them.
_PLAIN_READER = r"""
import json, sys
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").appName("plain-reader").config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.hadoop.hive.metastore.uris", sys.argv[1]).config("spark.sql.warehouse.dir", sys.argv[2])
         .enableHiveSupport().getOrCreate())
rows = spark.sql("SELECT id, name FROM s3_sync_db.synced").collect()
print(json.dumps(sorted([r[0], r[1]] for r in rows)))
spark.stop()
"""


def test_hive_sync_registers_a_table_in_the_bucket_that_a_plain_spark_session_reads(
        s3: Any, store: ObjectStoreServer, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A Hive metastore given Hadoop's S3A connector (``tools/s3/hadoop_aws.sh``) and the store's
    keys accepts the ``s3a://`` location hudi-sql's Hive sync registers after each commit; a plain
    Spark session on that metastore then reads the table's rows."""
    from process_helpers import start_hive_metastore, stop_process_group, wait_for_port

    from catalog.hive import HmsMetastoreClient

    ready = next(Path.home().glob(".cache/hudi-sql/hadoop-aws/*/READY"), None)
    if ready is None:
        pytest.skip("Hadoop's S3A connector not fetched: bash tools/s3/hadoop_aws.sh")
    jars = ready.read_text().strip().removeprefix("jars=").split(",")
    work = tmp_path_factory.mktemp("s3-hms")
    site = {k.removeprefix("spark.hadoop."): v for k, v in store.hadoop_keys.items()}
    port, process, log = start_hive_metastore(work, child_process_env(), extra_jars=jars, site=site)
    try:
        wait_for_port(port, process, log, 180)
        uri, path = f"thrift://127.0.0.1:{port}", f"s3a://{BUCKET}/synced"
        sync = {"hoodie.datasource.hive_sync.enable": "true", "hoodie.datasource.hive_sync.mode": "hms",
                "hoodie.datasource.hive_sync.metastore.uris": uri, "hoodie.datasource.hive_sync.database": "s3_sync_db"}
        options = {"hoodie.table.name": "synced", **KEYS, **sync}
        first = hudi_sql.write(s3.createDataFrame([(i, f"a{i}", "p0", 1) for i in range(3)], SCHEMA), path, options)
        second = hudi_sql.write(s3.createDataFrame([(1, "b1", "p0", 2), (7, "n7", "p1", 2)], SCHEMA), path,
                                {**options, "hoodie.datasource.write.operation": "upsert"})
        assert first.post_commit_failures == second.post_commit_failures == ()
        hms = HmsMetastoreClient.from_spark(s3, uri)
        try:
            table = hms.get_table("s3_sync_db", "synced")
            assert table is not None and table.location == path
            assert sorted(p.values for p in hms.list_partitions("s3_sync_db", "synced")) == [("p0",), ("p1",)]
        finally:
            hms.close()
        env = {**child_process_env(), "AWS_ACCESS_KEY_ID": site["fs.s3a.access.key"],
               "AWS_SECRET_ACCESS_KEY": site["fs.s3a.secret.key"], "AWS_ENDPOINT_URL": store.endpoint,
               "AWS_DEFAULT_REGION": "us-east-1"}
        done = subprocess.run([sys.executable, "-c", _PLAIN_READER, uri, str(work / "plain-wh")], env=env,
                              capture_output=True, text=True, timeout=300, cwd=work, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        assert json.loads(done.stdout.strip().splitlines()[-1]) == [[0, "a0"], [1, "b1"], [2, "a2"], [7, "n7"]]
    finally:
        stop_process_group(process)
