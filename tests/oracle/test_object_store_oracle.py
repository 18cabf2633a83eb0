"""Apache Hudi and hudi-sql on one S3 bucket: each reads what the other writes there, and they take turns.

The bucket is the session's SeaweedFS (tests/conftest.py ``object_store``). Apache Hudi 0.15 reaches
it through Hadoop's S3A connector (``tools/oracle/setup_s3.sh`` puts ``hadoop-aws`` and the AWS SDK
bundle on its classpath) configured with the same Hadoop keys our session carries, so both engines
address the table by the same ``s3a://`` URI. Rows are compared as the oracle tests compare them:
all columns, meta fields included.
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, oracle_dir, ours

import hudi_sql
from tools.s3.seaweedfs import BUCKET, ObjectStoreServer

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

SCHEMA = "id INT, name STRING, ts BIGINT, city STRING"
KEYS = {"hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts"}


@pytest.fixture
def s3_oracle(oracle: Oracle, object_store: ObjectStoreServer) -> Oracle:
    """Apache Hudi with the store's S3A keys on its Hadoop configuration."""
    home = oracle_dir()
    if not (home / "READY_S3").exists():
        reason = (home / "UNAVAILABLE_S3").read_text().strip() if (home / "UNAVAILABLE_S3").exists() else \
            "run tools/oracle/setup_s3.sh"
        pytest.skip(f"Apache Hudi has no S3A connector here: {reason}")
    keys = {k.removeprefix("spark.hadoop."): v for k, v in object_store.hadoop_keys.items()}
    oracle.python("conf = spark.sparkContext._jsc.hadoopConfiguration()\n"
                  "for key, value in keys.items():\n    conf.set(key, value)", keys=keys)
    return oracle


@pytest.fixture
def s3(s3_spark: Any) -> Any:
    """Our shared session with the same keys (tests/conftest.py)."""
    return s3_spark


def _frame(spark: Any, rows: list[tuple[Any, ...]]) -> Any:
    return spark.createDataFrame(rows, SCHEMA)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_apache_hudi_reads_the_table_hudi_sql_keeps_in_the_bucket(
        s3: Any, s3_oracle: Oracle, object_store: ObjectStoreServer, table_type: str) -> None:
    path = f"s3a://{BUCKET}/oracle/ours_{table_type.lower()}"
    options = {"hoodie.table.name": f"ours_{table_type.lower()}", **KEYS,
               "hoodie.datasource.write.table.type": table_type}
    hudi_sql.write(_frame(s3, [(i, f"a{i}", 1, "sf" if i % 2 else "la") for i in range(6)]), path, options)
    hudi_sql.write(_frame(s3, [(1, "b1", 2, "sf"), (2, "b2", 2, "la"), (9, "n9", 2, "la")]), path,
                   {**options, "hoodie.datasource.write.operation": "upsert"})
    hudi_sql.write(_frame(s3, [(3, "", 3, "sf")]), path, {**options, "hoodie.datasource.write.operation": "delete"})
    if table_type == "MERGE_ON_READ":
        keys = object_store.keys_under(f"oracle/ours_{table_type.lower()}/sf")
        assert any(".log." in k for k in keys), keys

    mine = ours(s3.read.format("hudi").load(path))
    assert sorted(r[mine["columns"].index("id")] for r in mine["rows"]) == [0, 1, 2, 4, 5, 9]
    assert_same_rows(mine, s3_oracle.read(path), what=f"Apache Hudi reads our {table_type} table on S3")


def test_apache_hudi_and_hudi_sql_take_turns_on_one_table_in_the_bucket(
        s3: Any, s3_oracle: Oracle, object_store: ObjectStoreServer) -> None:
    """Apache Hudi creates the table (its metadata table on, its markers through its timeline
    server, as it defaults on S3); hudi-sql reads and upserts it; Apache Hudi upserts again and
    both read the same rows after each turn."""
    path = f"s3a://{BUCKET}/oracle/turns"
    options = {"hoodie.table.name": "turns", **KEYS}
    rows = [[i, f"apache{i}", 1, "sf" if i % 2 else "la"] for i in range(4)]
    s3_oracle.run([{"write": {"path": path, "options": options, "mode": "overwrite", "rows": rows,
                              "schema": SCHEMA}}])
    assert "oracle/turns/.hoodie/hoodie.properties" in object_store.keys_under("oracle/turns/.hoodie")
    assert_same_rows(ours(s3.read.format("hudi").load(path)), s3_oracle.read(path), what="after Apache Hudi's insert")

    hudi_sql.write(_frame(s3, [(1, "ours1", 2, "sf"), (7, "ours7", 2, "la")]), path,
                   {**options, "hoodie.datasource.write.operation": "upsert"})
    assert_same_rows(ours(s3.read.format("hudi").load(path)), s3_oracle.read(path), what="after our upsert")

    s3_oracle.run([{"write": {"path": path, "options": {**options, "hoodie.datasource.write.operation": "upsert"},
                              "rows": [[7, "apache7", 3, "la"], [2, "apache2b", 3, "la"]], "schema": SCHEMA}}])
    mine = ours(s3.read.format("hudi").load(path))
    assert_same_rows(mine, s3_oracle.read(path), what="after Apache Hudi's upsert")
    names = {r[mine["columns"].index("id")]: r[mine["columns"].index("name")] for r in mine["rows"]}
    assert names == {0: "apache0", 1: "ours1", 2: "apache2b", 3: "apache3", 7: "apache7"}
