"""Permanent views over Hudi tables: stored by hudi-sql, expanded against the latest commit each
time they are queried, from any database, nested, and managed with Spark's own statements."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sql_session import fresh_database, rows

from hudi_sql.errors import HudiSqlError, TableAlreadyExistsError

pytestmark = pytest.mark.spark

DATABASE = "sql_views"
OTHER = "sql_views_other"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        session.sql(
            "CREATE TABLE rides (id INT, fare DOUBLE, ts BIGINT, city STRING) USING hudi "
            "PARTITIONED BY (city) TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')"
        )
        session.sql("INSERT INTO rides VALUES (1, 10.0, 1, 'sf'), (2, 25.0, 1, 'sf'), (3, 30.0, 1, 'nyc')")
        spark.sql(f"DROP DATABASE IF EXISTS {OTHER} CASCADE")
        spark.sql(f"CREATE DATABASE {OTHER}")
        yield session
        spark.sql(f"DROP DATABASE IF EXISTS {OTHER} CASCADE")


def test_a_view_over_a_hudi_table_reads_the_latest_commit_each_time(db: Any) -> None:
    query = "SELECT id, fare FROM rides WHERE fare > 20"
    db.sql(f"CREATE VIEW dear_rides AS {query}")
    assert rows(db, "SELECT * FROM dear_rides ORDER BY id") == rows(db, f"{query} ORDER BY id")
    assert len(rows(db, "SELECT * FROM dear_rides")) == 2

    db.sql("UPDATE rides SET fare = 21.0, ts = 2 WHERE id = 1")  # a log block on this MOR table
    db.sql("DELETE FROM rides WHERE id = 3")
    assert rows(db, "SELECT * FROM dear_rides ORDER BY id") == rows(db, f"{query} ORDER BY id")
    assert [r[0] for r in rows(db, "SELECT * FROM dear_rides ORDER BY id")] == [1, 2]

    # Spark's own statements see it as a view.
    assert ("dear_rides",) in [(r.tableName,) for r in db.sql("SHOW TABLES").collect()]
    assert rows(db, "SELECT count(*) FROM dear_rides d JOIN rides r ON d.id = r.id") == [(2,)]


def test_column_lists_comments_nesting_and_other_databases(db: Any, spark: Any) -> None:
    db.sql("CREATE VIEW by_city (place COMMENT 'where the ride began', rides) COMMENT 'per city' "
           "AS SELECT city, count(*) FROM rides GROUP BY city")
    described = {r.col_name: r.comment for r in db.sql("DESCRIBE by_city").collect()}
    assert described["place"] == "where the ride began" and "rides" in described
    expected = rows(db, "SELECT city, count(*) FROM rides GROUP BY city ORDER BY city")
    assert rows(db, "SELECT place, rides FROM by_city ORDER BY place") == expected

    # A view of a view, joined with a Spark table of the same database.
    spark.sql(f"CREATE TABLE {DATABASE}.cities USING parquet AS SELECT 'sf' AS city, 'CA' AS state")
    db.sql("CREATE VIEW busy AS SELECT b.place, c.state FROM by_city b JOIN cities c ON b.place = c.city")
    # Queried from another database: the unqualified names inside resolve in the view's own.
    spark.catalog.setCurrentDatabase(OTHER)
    try:
        assert rows(db, f"SELECT * FROM {DATABASE}.busy") == [("sf", "CA")]
        db.sql(f"CREATE VIEW elsewhere AS SELECT place FROM {DATABASE}.by_city")
        assert sorted(rows(db, "SELECT * FROM elsewhere")) == [(p,) for p, _ in expected]
    finally:
        spark.catalog.setCurrentDatabase(DATABASE)


def test_create_or_replace_if_not_exists_drop_and_cycles(db: Any) -> None:
    db.sql("CREATE VIEW ids AS SELECT id FROM rides")
    with pytest.raises(TableAlreadyExistsError, match="already exists"):
        db.sql("CREATE VIEW ids AS SELECT id FROM rides")
    db.sql("CREATE VIEW IF NOT EXISTS ids AS SELECT fare FROM rides")  # kept as it was
    assert db.sql("SELECT * FROM ids").columns == ["id"]
    db.sql("CREATE OR REPLACE VIEW ids AS SELECT id, ts FROM rides")
    assert db.sql("SELECT * FROM ids").columns == ["id", "ts"]
    with pytest.raises(TableAlreadyExistsError, match="is a table, not a view"):
        db.sql("CREATE OR REPLACE VIEW rides AS SELECT * FROM ids")

    db.sql("CREATE VIEW over_ids AS SELECT id FROM ids")
    with pytest.raises(HudiSqlError, match="refers to itself"):
        db.sql("CREATE OR REPLACE VIEW ids AS SELECT id FROM over_ids")
    assert db.sql("SELECT * FROM ids").columns == ["id", "ts"]  # the failed replace left it

    with pytest.raises(HudiSqlError, match="names 1 columns, but its query returns 2"):
        db.sql("CREATE VIEW bad (only_one) AS SELECT id, ts FROM rides")
    db.sql("DROP VIEW over_ids")
    db.sql("DROP VIEW ids")
    assert "ids" not in [r.tableName for r in db.sql("SHOW TABLES").collect()]


def test_spark_alone_reads_such_a_view_through_the_hudi_data_source(db: Any, spark: Any) -> None:
    db.sql("CREATE VIEW plain_view AS SELECT id, fare FROM rides")
    # Spark expands the view itself; the table inside is found by the location in its schema.
    by_spark = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {DATABASE}.plain_view").collect())
    assert by_spark == sorted(rows(db, "SELECT * FROM plain_view"))


def test_views_over_spark_tables_stay_sparks_own(db: Any, spark: Any) -> None:
    spark.sql(f"CREATE TABLE {DATABASE}.plain USING parquet AS SELECT 1 AS x")
    db.sql("CREATE VIEW plain_only AS SELECT x FROM plain")
    # Spark itself reads it: it is an ordinary Spark view.
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {DATABASE}.plain_only").collect()] == [(1,)]
