"""Hudi DDL through SQL: CREATE (columns, CTAS, over an existing table), DROP, ALTER, TRUNCATE,
SHOW PARTITIONS / CREATE TABLE, DESCRIBE; the catalog records what the table holds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sql_session import fresh_database, rows

from hudi_sql.errors import HudiConfigError, HudiSqlError, TableAlreadyExistsError, TableNotFoundError

pytestmark = pytest.mark.spark

DATABASE = "sql_ddl"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        yield session


def properties(path: str | Path) -> dict[str, str]:
    from hudi_sql.table.meta_client import TableMetaClient

    return TableMetaClient.load(str(path)).properties


def describe(db: Any, table: str) -> dict[str, str]:
    return {r[0]: r[1] for r in rows(db, f"DESCRIBE EXTENDED {table}")}


def test_create_table_clauses_in_any_order_external_location(db: Any, tmp_path: Path) -> None:
    location = tmp_path / "ext"
    db.sql(f"""CREATE TABLE ext (id INT, dt STRING, name STRING, ts BIGINT)
        USING hudi LOCATION '{location}' PARTITIONED BY (dt) COMMENT 'external'
        TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', 'hoodie.metadata.enable' = 'false')""")
    props = properties(location)
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.recordkey.fields"] == "id"
    assert props["hoodie.table.partition.fields"] == "dt"
    assert props["hoodie.datasource.write.hive_style_partitioning"] == "true"
    assert props["hoodie.database.name"] == DATABASE
    info = describe(db, "ext")
    assert info["Type"] == "EXTERNAL" and info["Location"].endswith("/ext")
    # Partition columns are last, as Spark orders a datasource table's columns.
    assert [r[0] for r in rows(db, "DESCRIBE ext")][5:9] == ["id", "name", "ts", "dt"]
    db.sql(f"CREATE TABLE IF NOT EXISTS ext (x INT) USING hudi LOCATION '{location}'")
    with pytest.raises(TableAlreadyExistsError, match="already exists"):
        db.sql("CREATE TABLE ext (x INT) USING hudi TBLPROPERTIES (primaryKey = 'x')")
    with pytest.raises(HudiConfigError, match="Did you mean 'hoodie.metadata.enable'"):
        db.sql(
            "CREATE TABLE bad (id INT) USING hudi TBLPROPERTIES (primaryKey = 'id', 'hoodie.metadata.enabled' = 'x')"
        )
    assert not db.spark.catalog.tableExists(f"{DATABASE}.bad")

    db.sql("DROP TABLE ext")
    assert location.exists()  # external: data stays
    db.sql(f"CREATE TABLE ext_again USING hudi LOCATION '{location}'")
    assert [r[0] for r in rows(db, "DESCRIBE ext_again")][5:] == [
        "id",
        "name",
        "ts",
        "dt",
        "# Partition Information",
        "# col_name",
        "dt",
    ]
    with pytest.raises(HudiSqlError, match="column 'name' is declared int but the table .* stores string"):
        db.sql(
            f"CREATE TABLE ext_wrong (id INT, name INT, ts BIGINT, dt STRING) USING hudi LOCATION '{location}'"
        )
    db.sql("DROP TABLE ext_again PURGE")
    assert not location.exists()


def test_ctas_bulk_inserts_and_managed_tables_live_in_the_warehouse(db: Any) -> None:
    db.sql(
        "CREATE TABLE made USING hudi PARTITIONED BY (p) TBLPROPERTIES (primaryKey = 'id') "
        "AS SELECT 1 AS id, 'x' AS p, 'a' AS name UNION ALL SELECT 2, 'y', 'b'"
    )
    assert rows(db, "SELECT id, name, p FROM made ORDER BY id") == [(1, "a", "x"), (2, "b", "y")]
    location = describe(db, "made")["Location"]
    assert location.endswith(f"/{DATABASE}.db/made")
    ops = [r[2] for r in rows(db, "CALL show_commits(table => 'made')")]
    assert ops == ["commit"]
    from hudi_sql.table.meta_client import TableMetaClient

    meta = TableMetaClient.load(location)
    assert meta.commit_metadata(meta.timeline.completed_writes().last).operation_type == "BULK_INSERT"
    db.sql("DROP TABLE made")
    assert not os.path.exists(location.removeprefix("file:"))


def test_alter_table_forms_show_and_truncate(db: Any) -> None:
    db.sql(
        "CREATE TABLE alt (id INT, name STRING, p STRING) USING hudi PARTITIONED BY (p) "
        "TBLPROPERTIES (primaryKey = 'id')"
    )
    db.sql("INSERT INTO alt VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'z')")
    db.sql("ALTER TABLE alt ADD COLUMNS (score DOUBLE COMMENT 'new')")
    db.sql("INSERT INTO alt VALUES (4, 'd', 9.5, 'x')")  # the new column comes before the partition column
    assert rows(db, "SELECT id, score, p FROM alt ORDER BY id") == [
        (1, None, "x"),
        (2, None, "y"),
        (3, None, "z"),
        (4, 9.5, "x"),
    ]

    db.sql(
        "ALTER TABLE alt SET TBLPROPERTIES ('hoodie.parquet.compression.codec' = 'snappy', 'owner_team' = 'x')"
    )
    assert "hoodie.parquet.compression.codec=snappy" in describe(db, "alt")["Table Properties"]
    with pytest.raises(HudiSqlError, match="'primaryKey' is fixed"):
        db.sql("ALTER TABLE alt SET TBLPROPERTIES (primaryKey = 'name')")

    assert rows(db, "SHOW PARTITIONS alt") == [("p=x",), ("p=y",), ("p=z",)]
    assert rows(db, "SHOW PARTITIONS alt PARTITION (p = 'y')") == [("p=y",)]
    db.sql("ALTER TABLE alt DROP PARTITION (p = 'y')")
    with pytest.raises(HudiSqlError, match="does not exist"):
        db.sql("ALTER TABLE alt DROP PARTITION (p = 'nope')")
    db.sql("ALTER TABLE alt DROP IF EXISTS PARTITION (p = 'nope')")
    db.sql("TRUNCATE TABLE alt PARTITION (p = 'z')")
    assert rows(db, "SHOW PARTITIONS alt") == [("p=x",)]

    db.sql("ALTER TABLE alt RENAME TO alt2")
    assert properties(describe(db, "alt2")["Location"])["hoodie.table.name"] == "alt2"
    with pytest.raises(TableNotFoundError, match="Did you mean 'alt2'"):
        db.sql("SELECT * FROM alt")
    create = rows(db, "SHOW CREATE TABLE alt2")[0][0]
    assert (
        "USING hudi" in create
        and "PARTITIONED BY (`p`)" in create
        and "`score` DOUBLE COMMENT 'new'" in create
    )
    db.sql("TRUNCATE TABLE alt2")
    assert rows(db, "SELECT count(*) FROM alt2") == [(0,)]
