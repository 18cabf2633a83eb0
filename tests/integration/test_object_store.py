"""Tables on an S3-compatible object store: SeaweedFS on loopback, reached with Hadoop's S3A keys.

The session's Spark configuration carries the keys a Spark user sets (``spark.hadoop.fs.s3a.*``);
hudi-sql resolves them once per operation and hands them to its tasks. Each test looks at the
bucket through pyarrow's own client (and the Rust reader ``hudi``), not through hudi-sql, and
checks that nothing landed on the local disk instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hudi_sql
from hudi_sql.errors import StorageError
from tools.s3.seaweedfs import (
    ACCESS_KEY,
    BUCKET,
    SECRET_KEY,
    ObjectStoreServer,
    start_object_store,
    unavailable_reason,
)

pytestmark = [pytest.mark.spark, pytest.mark.processes]

SCHEMA = "id int, name string, p string, ts long"
KEYS = {"hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.partitionpath.field": "p",
        "hoodie.datasource.write.precombine.field": "ts"}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ObjectStoreServer]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    server = start_object_store(tmp_path_factory.mktemp("object-store"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3(spark: Any, store: ObjectStoreServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The shared session with the store's S3A keys set, working in an empty local folder (which
    must stay empty: a table path misread as local would land there)."""
    monkeypatch.chdir(tmp_path)
    for key, value in store.hadoop_keys.items():
        spark.conf.set(key, value)
    try:
        yield spark
    finally:
        for key in store.hadoop_keys:
            spark.conf.unset(key)
        assert not any(tmp_path.iterdir()), f"files written locally: {sorted(os.listdir(tmp_path))}"


def _rows(frame: Any) -> list[tuple[Any, ...]]:
    return sorted((r["id"], r["name"], r["p"], r["ts"]) for r in frame.collect())


def _rust_rows(store: ObjectStoreServer, table: str) -> list[tuple[Any, ...]]:
    """The table as the Rust reader ``hudi`` reads it straight from the bucket."""
    from hudi import HudiReadOptions, HudiTableBuilder

    options = {"aws_endpoint_url": store.endpoint, "aws_access_key_id": ACCESS_KEY,
               "aws_secret_access_key": SECRET_KEY, "aws_region": "us-east-1", "aws_allow_http": "true"}
    reader = HudiTableBuilder.from_base_uri(f"s3://{BUCKET}/{table}").with_storage_options(options).build()
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

    db.sql("CALL run_compaction(op => 'run', table => 's3_mor')")
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
