"""BUCKET index: Java's bucket hashing as a Spark expression, bucket file ids, and bucketed writes.

Bucket numbers are checked against Java itself: the session's JVM computes
``List<String>.hashCode()`` of the hash keys Hudi 0.14's ``BucketIdentifier.getHashKeys`` takes
(re-stated in :func:`_java_hash_keys`).

The write tests need the write path wired to the bucket index (``plan_bucket_writes`` and routing
by ``bucket_id_column`` in ``hudi_sql/engine/write_client.py``); until then they are expected to fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import hudi_sql
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiConfigError, HudiFileFormatError
from hudi_sql.index.bucket import (  # importing it registers the BUCKET index
    bucket_file_id,
    bucket_hash_fields,
    bucket_id_column,
    bucket_id_of_file_id,
    bucket_num,
    plan_bucket_writes,
)
from hudi_sql.model.file_group import BaseFile, FileGroupId, FileSlice
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.write.plan import BucketType, PartitionWorkload, WorkloadProfile

pytestmark = pytest.mark.spark

SCHEMA = "id string, name string, p string, ts long, v string"


def _java_hash_keys(record_key: str, fields: list[str]) -> list[str | None]:
    """Hudi 0.14 ``BucketIdentifier.getHashKeys``, restated."""
    if ":" not in record_key:
        return [record_key]
    pairs = dict(part.split(":")[:2] for part in record_key.split(","))
    return [pairs.get(f) for f in fields]


def _java_bucket(spark: Any, record_key: str, fields: list[str], num_buckets: int) -> int:
    """``(hashKeys.hashCode() & Integer.MAX_VALUE) % numBuckets``, hashed by the JVM."""
    values = spark.sparkContext._jvm.java.util.ArrayList()
    for value in _java_hash_keys(record_key, fields):
        values.add(value)
    return int((values.hashCode() & 0x7FFFFFFF) % num_buckets)


KEYS = ["", "a", "k07", "hello world", "é日本😀", "202401011200_dev7", "id:1,name:Alice", "id:42,name:Bob",
        "name:Z,id:3", "id:__null__,name:x", "weird:value", "id:9", "x" * 300]


@pytest.mark.parametrize("num_buckets", [1, 4, 7, 256])
@pytest.mark.parametrize("fields", [["id"], ["id", "name"], ["name"]], ids=",".join)
def test_bucket_id_column_matches_java(spark: Any, num_buckets: int, fields: list[str]) -> None:
    from pyspark.sql import functions as F

    frame = spark.createDataFrame([(k,) for k in KEYS], "k string")
    got = {r.k: r.b for r in frame.select("k", bucket_id_column(F.col("k"), fields, num_buckets).alias("b")).collect()}
    assert got == {k: _java_bucket(spark, k, fields, num_buckets) for k in KEYS}


def test_bucket_file_id_names_the_bucket() -> None:
    file_id = bucket_file_id(3, "8b2c4c1e-1f3a-4c1e-9f3a-0d5e6f7a8b9c")
    assert file_id == "00000003-1f3a-4c1e-9f3a-0d5e6f7a8b9c-0"
    assert BaseFileName.parse(f"{file_id}_0-1-2_20240101000000000.parquet").file_id == file_id
    assert bucket_id_of_file_id(file_id) == 3
    assert bucket_id_of_file_id("00000255-0000-0000-0000-000000000000-0") == 255
    with pytest.raises(HudiFileFormatError, match="not named by a bucket number"):
        bucket_id_of_file_id("8b2c4c1e-1f3a-4c1e-9f3a-0d5e6f7a8b9c-0", partition_path="a")


def test_bucket_config_is_validated() -> None:
    assert bucket_hash_fields(Resolved.of({}).index, ("id", "name")) == ("id", "name")
    assert bucket_hash_fields(Resolved.of({"hoodie.bucket.index.hash.field": "name"}).index, ("id", "name")) == ("name",)
    with pytest.raises(HudiConfigError, match="subset"):
        bucket_hash_fields(Resolved.of({"hoodie.bucket.index.hash.field": "p"}).index, ("id",))
    assert bucket_num(Resolved.of({"hoodie.bucket.index.num.buckets": "8"}).index) == 8
    with pytest.raises(HudiConfigError, match="num.buckets"):
        bucket_num(Resolved.of({"hoodie.bucket.index.num.buckets": "0"}).index)


def _slice(partition: str, file_id: str) -> FileSlice:
    name = BaseFileName(file_id, "0-1-2", "20240101000000000")
    return FileSlice(FileGroupId(partition, file_id), "20240101000000000",
                     BaseFile(f"/t/{partition}/{name.name}", 100, name))


def test_plan_bucket_writes_one_group_per_bucket() -> None:
    existing = "00000001-aaaa-aaaa-aaaa-aaaaaaaaaaaa-0"
    ids = {("a", 0): "00000000-new0-0000-0000-000000000000-0", ("a", 1): existing,
           ("a", 2): "00000002-new2-0000-0000-000000000000-0"}
    profile = WorkloadProfile({"a": PartitionWorkload("a", inserts=5, updates_by_file_id={existing: 3})})

    buckets, ranges = plan_bucket_writes(profile, {"a": [_slice("a", existing)]}, ids)

    assert [(b.bucket_type, b.file_id) for b in buckets] == [
        (BucketType.UPDATE, existing), (BucketType.INSERT, ids[("a", 0)]), (BucketType.INSERT, ids[("a", 2)])]
    assert buckets[0].base_file_path is not None and buckets[0].prev_commit == "20240101000000000"
    assert [(r.partition_path, r.lo, r.hi, r.bucket_id) for r in ranges] == [("a", 0, 1, 1), ("a", 2, 3, 2)]


# --------------------------------------------------------------------------------------------
# Writes
# --------------------------------------------------------------------------------------------


def _options(**extra: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "p",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.index.type": "BUCKET",
        "hoodie.bucket.index.num.buckets": "4",
        **extra,
    }


def _write(spark: Any, path: Path, rows: list[tuple[Any, ...]], options: dict[str, str]) -> hudi_sql.WriteResult:
    return hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), options)


def _snapshot(spark: Any, path: Path) -> list[tuple[str, str, str, str]]:
    """(record key, partition, file id, v), asserting unique keys and that the Rust reader agrees."""
    from hudi import HudiTableBuilder

    columns = ("_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name", "v")
    ours = sorted(tuple(r) for r in hudi_sql.read(spark, str(path)).select(*columns).collect())
    rust = pa.Table.from_batches(HudiTableBuilder.from_base_uri(str(path)).build().read())
    assert ours == sorted(zip(*(rust.column(c).to_pylist() for c in columns))), "the Rust reader disagrees"
    keys = [r[0] for r in ours]
    assert len(keys) == len(set(keys)), "duplicate record keys in the snapshot"
    return [(k, p, BaseFileName.parse(name).file_id, v) for k, p, name, v in ours]


def _groups(snapshot: list[tuple[str, str, str, str]]) -> set[tuple[str, str]]:
    return {(p, f) for _, p, f, _ in snapshot}


def _assert_bucketed(spark: Any, snapshot: list[tuple[str, str, str, str]], fields: list[str], num: int) -> None:
    for key, partition, file_id, _ in snapshot:
        assert bucket_id_of_file_id(file_id) == _java_bucket(spark, key, fields, num), (key, file_id)
    per_bucket: dict[tuple[str, int], set[str]] = {}
    for _, partition, file_id, _ in snapshot:
        per_bucket.setdefault((partition, bucket_id_of_file_id(file_id)), set()).add(file_id)
    assert all(len(ids) == 1 for ids in per_bucket.values()), "a bucket has more than one file group"


def test_bucket_upserts_keep_file_groups(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    rows = [(f"k{i:02d}", "n", "a" if i % 2 else "b", 1, "v1") for i in range(40)]
    result = _write(spark, path, rows, _options())
    assert result.num_inserted == 40
    first = _snapshot(spark, path)
    _assert_bucketed(spark, first, ["id"], 4)
    groups = _groups(first)
    assert len(groups) == 8  # 4 buckets in each of 2 partitions

    for round_ in (2, 3):
        updates = [(f"k{i:02d}", "n", "a" if i % 2 else "b", round_, f"v{round_}") for i in range(0, 40, 3)]
        inserts = [(f"k{i:02d}", "n", "a" if i % 2 else "b", round_, f"v{round_}")
                   for i in range(40 + 10 * (round_ - 2), 50 + 10 * (round_ - 2))]
        result = _write(spark, path, updates + inserts, _options())
        assert (result.num_updated, result.num_inserted) == (len(updates), len(inserts))
        snapshot = _snapshot(spark, path)
        assert _groups(snapshot) == groups, "upserts must reuse the buckets' file groups"
        _assert_bucketed(spark, snapshot, ["id"], 4)
    assert len(snapshot) == 60


def test_bucket_new_buckets_get_new_groups(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _write(spark, path, [("k00", "n", "a", 1, "v1")], _options(**{"hoodie.bucket.index.num.buckets": "8"}))
    one = _groups(_snapshot(spark, path))
    assert len(one) == 1

    rows = [(f"k{i:02d}", "n", "a", 2, "v2") for i in range(30)]
    result = _write(spark, path, rows, _options(**{"hoodie.bucket.index.num.buckets": "8"}))
    snapshot = _snapshot(spark, path)
    assert one < _groups(snapshot)
    _assert_bucketed(spark, snapshot, ["id"], 8)
    assert (result.num_updated, result.num_inserted) == (1, 29)


def test_bucket_complex_key_hashes_the_hash_field(spark: Any, tmp_path: Path) -> None:
    options = _options(**{"hoodie.datasource.write.recordkey.field": "id,name",
                          "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
                          "hoodie.bucket.index.hash.field": "name"})
    path = tmp_path / "t"
    rows = [(f"{i}", f"n{i % 3}", "a", 1, "v1") for i in range(20)]
    _write(spark, path, rows, options)
    result = _write(spark, path, [("1", "n1", "a", 2, "v2"), ("99", "n0", "a", 2, "v2")], options)

    snapshot = _snapshot(spark, path)
    _assert_bucketed(spark, snapshot, ["name"], 4)
    by_name: dict[str, set[str]] = {}
    for key, _, file_id, _ in snapshot:
        by_name.setdefault(key.split("name:")[1], set()).add(file_id)
    assert all(len(ids) == 1 for ids in by_name.values()), "one name, one bucket"
    assert (result.num_updated, result.num_inserted) == (1, 1)


def test_bucket_insert_operation_routes_by_bucket(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i:02d}", "n", "a", 1, "v1") for i in range(20)], _options())
    groups = _groups(_snapshot(spark, path))
    assert len(groups) == 4

    result = _write(spark, path, [(f"k{i:02d}", "n", "a", 2, "v2") for i in range(20, 30)],
                    _options(**{"hoodie.datasource.write.operation": "insert"}))
    snapshot = _snapshot(spark, path)
    assert (result.num_inserted, len(snapshot)) == (10, 30)
    assert _groups(snapshot) == groups
    _assert_bucketed(spark, snapshot, ["id"], 4)


def test_bucket_delete(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i:02d}", "n", "a", 1, "v1") for i in range(10)], _options())
    result = _write(spark, path, [("k01", "n", "a", 2, "x"), ("k05", "n", "a", 2, "x"), ("zz", "n", "a", 2, "x")],
                    _options(**{"hoodie.datasource.write.operation": "delete"}))
    assert result.num_deleted == 2
    assert sorted(k for k, _, _, _ in _snapshot(spark, path)) == [f"k{i:02d}" for i in range(10) if i not in (1, 5)]


def test_bucket_index_rejects_table_not_written_by_buckets(spark: Any, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    # A fixed uuid file id: a random one starts with 8 digits (a valid bucket id) 2% of the time.
    monkeypatch.setattr(importlib.import_module("hudi_sql.engine.write_client"), "new_file_id",
                        lambda: "8b2c4c1e-1f3a-4c1e-9f3a-0d5e6f7a8b9c-0")
    path = tmp_path / "t"
    _write(spark, path, [("k1", "n", "a", 1, "v1")], _options(**{"hoodie.index.type": "SIMPLE"}))
    with pytest.raises(HudiFileFormatError, match="not named by a bucket number"):
        _write(spark, path, [("k1", "n", "a", 2, "v2")], _options())


@pytest.mark.parametrize("operation", ["insert_overwrite", "insert_overwrite_table"])
def test_bucket_overwrite_writes_its_records_to_new_file_groups(spark: Any, tmp_path: Path, operation: str) -> None:
    # The replaced groups take no records: an overwrite whose records hash to a bucket that has a
    # file group used to plan nothing for them and commit an empty table.
    options = {"hoodie.table.name": "ow", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "part", "hoodie.datasource.write.precombine.field": "ts",
               "hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "2"}
    schema = "id BIGINT, part STRING, ts INT"
    hudi_sql.write(spark.createDataFrame([(10, "a", 32), (11, "a", 0)], schema), str(tmp_path),
                   {**options, "hoodie.datasource.write.operation": "insert"})
    hudi_sql.write(spark.createDataFrame([(10, "a", 0)], schema), str(tmp_path),
                   {**options, "hoodie.datasource.write.operation": operation})
    rows = spark.read.format("hudi").load(str(tmp_path)).select("id", "ts", "_hoodie_file_name").collect()
    assert [(r["id"], r["ts"]) for r in rows] == [(10, 0)]
