"""INSERT / INSERT OVERWRITE / UPDATE / DELETE through ``hudi_sql.connect().sql`` on real tables."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterator
from typing import Any

import pytest
from sql_session import fresh_database, rows

from hudi_sql.errors import HudiKeyError, HudiSqlError

pytestmark = pytest.mark.spark

DATABASE = "sql_dml"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        yield session


def metrics(db: Any, sql: str) -> dict[str, Any]:
    return db.sql(sql).collect()[0].asDict()


def operations(db: Any, table: str) -> list[str]:
    """Operation types of the table's completed commits, oldest first."""
    from hudi_sql.table.meta_client import TableMetaClient

    location = db.sql(f"DESCRIBE EXTENDED {table}").where("col_name = 'Location'").collect()[0]["data_type"]
    meta = TableMetaClient.load(location)
    return [meta.commit_metadata(i).operation_type for i in meta.timeline.completed_writes()]


def test_insert_into_timestamp_key_generator_offset_z_writes_every_row_and_refuses_unparseable(db: Any) -> None:
    db.sql(
        "CREATE TABLE ts_keyed (id INT, name STRING, ts_str STRING) USING hudi TBLPROPERTIES ("
        "primaryKey = 'id', "
        "'hoodie.table.keygenerator.class' = 'org.apache.hudi.keygen.TimestampBasedKeyGenerator', "
        "'hoodie.keygen.timebased.timestamp.type' = 'DATE_STRING', "
        "'hoodie.keygen.timebased.input.dateformat' = \"yyyy-MM-dd'T'HH:mm:ss.SSSZ\", "
        "'hoodie.keygen.timebased.output.dateformat' = 'yyyy/MM/dd/HH') PARTITIONED BY (ts_str)"
    )
    values = ", ".join(f"({i}, 'n{i}', '2023-04-01T12:01:00.123Z')" for i in range(3))
    assert metrics(db, f"INSERT INTO ts_keyed VALUES {values}")["num_affected_rows"] == 3
    stored = [("ts_str=2023/04/01/12", i) for i in range(3)]  # SQL tables are hive-style, as Apache Hudi's
    assert rows(db, "SELECT _hoodie_partition_path, id FROM ts_keyed ORDER BY id") == stored
    with pytest.raises(HudiKeyError, match=r"ts_str='2023-04-01 12:01'.*input\.dateformat"):
        db.sql("INSERT INTO ts_keyed VALUES (3, 'n3', '2023-04-01T13:01:00.000Z'), (4, 'n4', '2023-04-01 12:01')")
    assert rows(db, "SELECT _hoodie_partition_path, id FROM ts_keyed ORDER BY id") == stored


def test_insert_into_upserts_with_precombine_and_inserts_without(db: Any) -> None:
    db.sql(
        "CREATE TABLE keyed (id INT, name STRING, ts BIGINT) USING hudi "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')"
    )
    first = metrics(db, "INSERT INTO keyed VALUES (1, 'a', 1), (2, 'b', 1)")
    assert (first["num_affected_rows"], first["num_inserted_rows"]) == (2, 2)
    assert len(first["instant_time"]) == 17
    second = metrics(db, "INSERT INTO keyed SELECT 1, 'a2', 2")
    assert (second["num_updated_rows"], second["num_inserted_rows"]) == (1, 0)
    assert rows(db, "SELECT id, name FROM keyed ORDER BY id") == [(1, "a2"), (2, "b")]

    db.sql("CREATE TABLE plain (id INT, name STRING) USING hudi TBLPROPERTIES (primaryKey = 'id')")
    db.sql("INSERT INTO plain SELECT * FROM (SELECT id, name FROM keyed WHERE id = 1)")
    # SELECT * from a Hudi table brings its meta columns; INSERT drops them, as Hudi does.
    db.sql("CREATE TABLE copied USING hudi TBLPROPERTIES (primaryKey = 'id') AS SELECT * FROM keyed")
    assert rows(db, "SELECT id, name, ts FROM copied ORDER BY id") == [(1, "a2", 2), (2, "b", 1)]
    assert operations(db, "keyed") == ["UPSERT", "UPSERT"]
    assert operations(db, "plain") == ["INSERT"]
    assert rows(db, "SELECT id, name FROM plain") == [(1, "a2")]


def test_insert_dup_policy_drop_skips_and_fail_refuses_existing_keys(db: Any) -> None:
    db.sql("CREATE TABLE dups (id INT, name STRING) USING hudi TBLPROPERTIES (primaryKey = 'id')")
    db.sql("INSERT INTO dups VALUES (1, 'a')")
    db.sql("SET hoodie.datasource.insert.dup.policy = drop")
    try:
        db.sql("INSERT INTO dups VALUES (1, 'changed'), (2, 'b')")
        assert rows(db, "SELECT id, name FROM dups ORDER BY id") == [(1, "a"), (2, "b")]
        db.sql("SET hoodie.datasource.insert.dup.policy = fail")
        with pytest.raises(HudiSqlError, match="Duplicate key found for insert statement, key is: 2"):
            db.sql("INSERT INTO dups VALUES (3, 'c'), (2, 'again')")
    finally:
        db.sql("RESET hoodie.datasource.insert.dup.policy")
    assert rows(db, "SELECT id, name FROM dups ORDER BY id") == [(1, "a"), (2, "b")]
    assert operations(db, "dups") == ["INSERT", "INSERT"]


def test_insert_into_operation_option_and_partition_specs(db: Any) -> None:
    db.sql(
        "CREATE TABLE parts (id INT, p STRING, name STRING, ts BIGINT) USING hudi PARTITIONED BY (p) "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', "
        "'hoodie.spark.sql.insert.into.operation' = 'bulk_insert')"
    )
    # The table's columns are (id, name, ts, p): partition columns last, as in Spark.
    db.sql("INSERT INTO parts PARTITION (p = 'x') VALUES (1, 'a', 1)")
    db.sql("INSERT INTO parts PARTITION (p) SELECT 2, 'b', 1, 'y'")
    db.sql("INSERT INTO parts (ts, p, id) VALUES (5, 'z', 3)")
    assert rows(db, "SELECT id, name, ts, p, _hoodie_partition_path FROM parts ORDER BY id") == [
        (1, "a", 1, "x", "p=x"),
        (2, "b", 1, "y", "p=y"),
        (3, None, 5, "z", "p=z"),
    ]
    assert operations(db, "parts") == ["BULK_INSERT"] * 3
    with pytest.raises(HudiSqlError, match="the query gives 3 columns but the table expects 4"):
        db.sql("INSERT INTO parts VALUES (1, 'a', 1)")
    with pytest.raises(HudiSqlError, match="column 'ts' is bigint but query column 3 .* is date"):
        db.sql("INSERT INTO parts VALUES (1, 'a', DATE '2024-01-01', 'x')")


def test_complex_literals_round_trip_exactly(db: Any) -> None:
    db.sql("""CREATE TABLE typed (
        id INT, b TINYINT, s SMALLINT, f FLOAT, d DECIMAL(10, 5), dt DATE, tsf TIMESTAMP, bin BINARY,
        arr ARRAY<STRUCT<f1: STRING, f2: INT>>, m MAP<STRING, STRUCT<x: DOUBLE, y: BOOLEAN>>,
        st STRUCT<a: STRING, child: STRUCT<c: DOUBLE, d: BOOLEAN>>
    ) USING hudi TBLPROPERTIES (primaryKey = 'id')""")
    db.sql("""INSERT INTO typed VALUES (1, 10, 300, 1.5, 12345.67890, CAST('2023-04-01' AS DATE),
        CAST('2023-04-01 12:01:00' AS TIMESTAMP), CAST('binary data' AS BINARY),
        ARRAY(STRUCT('red', 100), STRUCT('blue', 200)), MAP('k1', STRUCT(123.456, true)),
        STRUCT('Alice', STRUCT(789.012, false)))""")
    row = db.sql("SELECT * FROM typed").collect()[0]
    assert (row["id"], row["b"], row["s"], row["f"]) == (1, 10, 300, 1.5)
    assert row["d"] == decimal.Decimal("12345.67890")
    assert row["dt"] == datetime.date(2023, 4, 1)
    assert row["tsf"] == datetime.datetime(2023, 4, 1, 12, 1)
    assert bytes(row["bin"]) == b"binary data"
    assert [tuple(x) for x in row["arr"]] == [("red", 100), ("blue", 200)]
    assert {k: tuple(v) for k, v in row["m"].items()} == {"k1": (123.456, True)}
    assert row["st"]["a"] == "Alice" and tuple(row["st"]["child"]) == (789.012, False)


def test_insert_overwrite_static_dynamic_and_whole_table(db: Any) -> None:
    db.sql(
        "CREATE TABLE ow (id INT, name STRING, p STRING) USING hudi PARTITIONED BY (p) "
        "TBLPROPERTIES (primaryKey = 'id')"
    )
    db.sql("INSERT INTO ow VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'z')")
    db.sql("INSERT OVERWRITE TABLE ow PARTITION (p = 'x') SELECT 10, 'ten'")
    db.sql("SET spark.sql.sources.partitionOverwriteMode = dynamic")
    try:
        db.sql("INSERT OVERWRITE ow PARTITION (p) SELECT 20, 'twenty', 'y'")  # dynamic: only p=y replaced
    finally:
        db.sql("SET spark.sql.sources.partitionOverwriteMode = static")
    assert rows(db, "SELECT id, p FROM ow ORDER BY id") == [(3, "z"), (10, "x"), (20, "y")]
    db.sql("INSERT OVERWRITE ow PARTITION (p = 'z') SELECT id, name FROM ow WHERE id < 0")  # empties p=z
    assert rows(db, "SELECT id, p FROM ow ORDER BY id") == [(10, "x"), (20, "y")]

    # static mode (Spark's default), no partition value: every partition is replaced, as in
    # Apache Hudi and Spark
    db.sql("INSERT INTO ow VALUES (1, 'a', 'x'), (3, 'c', 'z')")
    db.sql("INSERT OVERWRITE ow PARTITION (p) SELECT 30, 'thirty', 'y'")
    assert rows(db, "SELECT id, p FROM ow ORDER BY id") == [(30, "y")]
    assert operations(db, "ow")[-1] == "INSERT_OVERWRITE_TABLE"

    db.sql("CREATE TABLE ow_flat (id INT, name STRING) USING hudi TBLPROPERTIES (primaryKey = 'id')")
    db.sql("INSERT INTO ow_flat VALUES (1, 'a'), (2, 'b')")
    result = metrics(db, "INSERT OVERWRITE ow_flat SELECT 7, 'seven'")
    assert result["num_affected_rows"] == 1
    assert rows(db, "SELECT id, name FROM ow_flat") == [(7, "seven")]
    assert operations(db, "ow_flat")[-1] == "INSERT_OVERWRITE_TABLE"


def test_insert_overwrite_partly_static_replaces_every_partition_under_the_static_value(db: Any) -> None:
    db.sql(
        "CREATE TABLE ow2 (id INT, region STRING, dt STRING) USING hudi PARTITIONED BY (region, dt) "
        "TBLPROPERTIES (primaryKey = 'id')"
    )
    db.sql("INSERT INTO ow2 VALUES (1, 'eu', 'd1'), (2, 'eu', 'd2'), (3, 'us', 'd1')")
    commits = len(operations(db, "ow2"))
    db.sql("INSERT OVERWRITE ow2 PARTITION (region = 'eu', dt) SELECT 4, 'd3'")
    assert rows(db, "SELECT id, region, dt FROM ow2 ORDER BY id") == [(3, "us", "d1"), (4, "eu", "d3")]
    # a static partition the query writes nothing into is emptied in the same replacecommit
    db.sql("INSERT OVERWRITE ow2 PARTITION (region = 'us', dt = 'd1') SELECT id FROM ow2 WHERE id < 0")
    assert rows(db, "SELECT id FROM ow2 ORDER BY id") == [(4,)]
    assert operations(db, "ow2")[commits:] == ["INSERT_OVERWRITE", "INSERT_OVERWRITE"]
    # hoodie.datasource.overwrite.mode = DYNAMIC: only the partitions written are replaced
    db.sql("INSERT INTO ow2 VALUES (5, 'eu', 'd1')")
    db.sql("SET hoodie.datasource.overwrite.mode = DYNAMIC")
    try:
        db.sql("INSERT OVERWRITE ow2 PARTITION (region = 'eu', dt) SELECT 6, 'd3'")
    finally:
        db.sql("SET hoodie.datasource.overwrite.mode = STATIC")
    assert rows(db, "SELECT id, region, dt FROM ow2 ORDER BY id") == [(5, "eu", "d1"), (6, "eu", "d3")]


def test_update_and_delete_with_any_predicate(db: Any) -> None:
    db.sql(
        "CREATE TABLE emp (id INT, name STRING, salary INT, dept STRING) USING hudi PARTITIONED BY (dept) "
        "TBLPROPERTIES (primaryKey = 'id', type = 'mor')"
    )
    db.sql(
        "INSERT INTO emp VALUES (1, 'a', 10, 'eng'), (2, 'b', 20, 'eng'), (3, 'c', 30, 'ops'), (4, 'd', 5, 'ops')"
    )
    db.spark.createDataFrame([(1,), (3,)], "id int").createOrReplaceTempView("raises")
    result = metrics(db, "UPDATE emp e SET salary = salary * 2 WHERE e.id IN (SELECT id FROM raises)")
    assert (result["num_affected_rows"], result["num_updated_rows"]) == (2, 2)
    # Moving a row to another partition deletes it from the old one.
    moved = metrics(db, "UPDATE emp SET dept = 'ops', name = upper(name) WHERE id = 2")
    assert (moved["num_affected_rows"], moved["num_updated_rows"]) == (1, 1)
    assert rows(db, "SELECT id, name, salary, dept, _hoodie_partition_path FROM emp ORDER BY id") == [
        (1, "a", 20, "eng", "dept=eng"),
        (2, "B", 20, "ops", "dept=ops"),
        (3, "c", 60, "ops", "dept=ops"),
        (4, "d", 5, "ops", "dept=ops"),
    ]
    with pytest.raises(HudiSqlError, match="column 'id' is part of the record key"):
        db.sql("UPDATE emp SET id = 9 WHERE id = 1")
    deleted = metrics(db, "DELETE FROM emp WHERE salary > 10 AND name <> 'B'")
    assert deleted["num_deleted_rows"] == 2
    assert rows(db, "SELECT id FROM emp ORDER BY id") == [(2,), (4,)]
    db.sql("DELETE FROM emp")
    assert rows(db, "SELECT count(*) FROM emp") == [(0,)]


def test_dml_matching_nothing_commits_an_empty_commit_as_apache_hudi_does(db: Any) -> None:
    # Found by the generative test: Apache Hudi commits (hoodie.allow.empty.commit), so the next
    # savepoint or rollback of "the latest commit" meant different commits in the two engines.
    db.sql("CREATE TABLE quiet (id INT, v STRING, ts BIGINT) USING hudi "
           "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', type = 'mor')")
    db.sql("INSERT INTO quiet VALUES (1, 'a', 1)")
    statements = ["UPDATE quiet SET v = 'x' WHERE id = 9", "DELETE FROM quiet WHERE id = 9",
                  ("MERGE INTO quiet t USING (SELECT 9 AS id, 'z' AS v, 5L AS ts) s ON t.id = s.id "
                   "WHEN MATCHED THEN UPDATE SET *")]
    instants = [metrics(db, statement)["instant_time"] for statement in statements]
    assert all(instants) and len(set(instants)) == 3
    assert len(operations(db, "quiet")) == 4
    db.sql("SET hoodie.allow.empty.commit = false")
    try:
        assert metrics(db, statements[0])["instant_time"] is None
    finally:
        db.sql("RESET hoodie.allow.empty.commit")
    assert len(operations(db, "quiet")) == 4
    assert rows(db, "SELECT id, v FROM quiet") == [(1, "a")]


def test_failed_dml_leaves_the_table_unchanged(db: Any) -> None:
    from hudi_sql.table.meta_client import TableMetaClient

    db.sql(
        "CREATE TABLE safe (id INT, name STRING, ts BIGINT) USING hudi "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')"
    )
    db.sql("INSERT INTO safe VALUES (1, 'a', 1)")
    with pytest.raises(HudiKeyError, match="null or empty record key"):
        db.sql("INSERT INTO safe VALUES (2, 'b', 1), (NULL, 'c', 1)")
    location = db.sql("DESCRIBE EXTENDED safe").where("col_name = 'Location'").collect()[0]["data_type"]
    meta = TableMetaClient.load(location)
    assert not meta.timeline.pending_writes().instants
    assert rows(db, "SELECT id, name FROM safe") == [(1, "a")]
