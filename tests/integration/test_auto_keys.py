"""Tables without a record key: keys generated in the write tasks, as Apache Hudi 0.15 does.

Keys are ``<instantTime>_<sparkPartitionId>_<rowId>``; ``hoodie.properties`` records no record
key fields; an upsert cannot match a generated key, so it inserts; rows an UPDATE, DELETE or
MERGE rewrites keep their stored keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sql_session import fresh_database

import hudi_sql
from hudi_sql.config import HudiTableConfig, HudiWriteConfig
from hudi_sql.errors import HudiConfigError
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

SCHEMA = "id INT, name STRING, city STRING"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, "auto_keys") as session:
        yield session


def _keys(spark: Any, path: Path) -> list[tuple[str, str, int]]:
    rows = spark.read.format("hudi").load(str(path)).select("_hoodie_record_key", "_hoodie_commit_time", "id")
    return [(r[0], r[1], r[2]) for r in rows.collect()]


def _options(**extra: str) -> dict[str, str]:
    return {HudiTableConfig.NAME.key: "auto", HudiWriteConfig.PARTITION_PATH_FIELDS.key: "city", **extra}


def test_auto_keys_two_inserts_unique_keys_of_their_instants(db: Any, spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    db.sql(f"CREATE TABLE two_inserts (id INT, name STRING, city STRING) USING hudi "
           f"PARTITIONED BY (city) LOCATION '{path}'")
    db.sql("INSERT INTO two_inserts VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')")
    db.sql("INSERT INTO two_inserts VALUES (4, 'd', 'x'), (5, 'e', 'y')")
    keys = _keys(spark, path)
    assert len(keys) == 5
    assert len({k for k, _, _ in keys}) == 5
    for key, commit_time, _ in keys:
        assert re.fullmatch(rf"{commit_time}_\d+_\d+", key), key
    assert len({commit for _, commit, _ in keys}) == 2


def test_auto_keys_hoodie_properties_without_record_key_fields(db: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    db.sql(f"CREATE TABLE props (id INT, city STRING) USING hudi PARTITIONED BY (city) LOCATION '{path}'")
    properties = TableMetaClient.load(str(path)).properties
    assert HudiTableConfig.RECORD_KEY_FIELDS.key not in properties
    assert properties[HudiTableConfig.KEY_GENERATOR_CLASS.key] == "org.apache.hudi.keygen.SimpleKeyGenerator"
    assert properties[HudiTableConfig.PARTITION_FIELDS.key] == "city"


def test_auto_keys_dataframe_write_without_operation_is_bulk_insert(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "a", "x"), (2, "b", "y")], SCHEMA)
    result = hudi_sql.write(df, str(tmp_path / "t"), _options())
    assert result.operation == "BULK_INSERT"


def test_auto_keys_upsert_inserts_new_records(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    hudi_sql.write(spark.createDataFrame([(1, "a", "x")], SCHEMA), path, _options())
    hudi_sql.write(spark.createDataFrame([(1, "a2", "x")], SCHEMA), path,
                   _options(**{HudiWriteConfig.OPERATION.key: "upsert"}))
    names = sorted(r["name"] for r in spark.read.format("hudi").load(path).collect())
    assert names == ["a", "a2"]


def test_auto_keys_combine_before_insert_refused(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "a", "x")], SCHEMA)
    with pytest.raises(HudiConfigError, match="auto generation of record keys"):
        hudi_sql.write(df, str(tmp_path / "t"), _options(**{HudiWriteConfig.COMBINE_BEFORE_INSERT.key: "true"}))
    assert not TableMetaClient.exists(str(tmp_path / "t"))


def test_auto_keys_update_delete_merge_keep_stored_keys(db: Any, spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    db.sql(f"CREATE TABLE dml (id INT, name STRING, city STRING) USING hudi PARTITIONED BY (city) "
           f"LOCATION '{path}'")
    db.sql("INSERT INTO dml VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')")
    before = {i: k for k, _, i in _keys(spark, path)}
    db.sql("UPDATE dml SET name = 'u' WHERE id = 1")
    db.sql("DELETE FROM dml WHERE id = 2")
    db.sql("MERGE INTO dml t USING (SELECT 3 AS id, 'm' AS name, 'x' AS city UNION ALL SELECT 4, 'n', 'y') s "
           "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    after = {i: k for k, _, i in _keys(spark, path)}
    assert sorted(after) == [1, 3, 4]
    assert after[1] == before[1] and after[3] == before[3]
    assert after[4] not in before.values()
    names = {r["id"]: r["name"] for r in spark.read.format("hudi").load(str(path)).collect()}
    assert names == {1: "u", 3: "m", 4: "n"}
