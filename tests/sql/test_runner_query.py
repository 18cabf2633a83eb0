"""Queries: fresh snapshots per statement, joins with Spark tables, time travel, incremental reads,
read hints, session options, EXPLAIN, and the errors of the SQL layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sql_session import fresh_database, rows

from hudi_sql.errors import HudiConfigError, HudiSqlError, TableNotFoundError, UnsupportedFeatureError

pytestmark = pytest.mark.spark

DATABASE = "sql_query"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        session.sql(
            "CREATE TABLE trips (id INT, rider STRING, fare DOUBLE, ts BIGINT) USING hudi "
            "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')"
        )
        yield session


@pytest.fixture(scope="module")
def instants(db: Any) -> list[str]:
    """Two commits: an insert, then an update of rider 1 (a log file on the MERGE_ON_READ table)."""
    first = db.sql("INSERT INTO trips VALUES (1, 'r1', 10.0, 1), (2, 'r2', 20.0, 1)").collect()[0][
        "instant_time"
    ]
    second = db.sql("UPDATE trips SET fare = 11.0, ts = 2 WHERE id = 1").collect()[0]["instant_time"]
    return [first, second]


def test_snapshot_join_with_spark_tables_and_views(db: Any, instants: list[str]) -> None:
    db.sql(
        "CREATE TABLE riders USING parquet AS SELECT 'r1' AS rider, 'Ann' AS name UNION ALL SELECT 'r2', 'Bo'"
    )
    db.sql("INSERT INTO riders VALUES ('r3', 'Cy')")  # not a Hudi table: Spark's own INSERT
    db.spark.createDataFrame([(1, "card")], "id int, pay string").createOrReplaceTempView("payments")
    assert rows(
        db,
        "SELECT t.id, r.name, t.fare, p.pay FROM trips t JOIN riders r ON t.rider = r.rider "
        "LEFT JOIN payments p ON p.id = t.id ORDER BY t.id",
    ) == [(1, "Ann", 11.0, "card"), (2, "Bo", 20.0, None)]
    # A temporary view over a Hudi table keeps working after the statement that made it (on the
    # snapshot read when it was created).
    db.sql("CREATE TEMPORARY VIEW cheap AS SELECT id FROM trips WHERE fare < 15")
    assert rows(db, "SELECT * FROM cheap") == [(1,)]
    # Spark alone reads the catalog table too, through the `hudi` data source (the location
    # travels in the table's schema): the same snapshot, log updates merged.
    assert sorted(tuple(r) for r in db.spark.sql("SELECT id, fare FROM trips").collect()) == rows(
        db, "SELECT id, fare FROM trips ORDER BY id")


def test_time_travel_incremental_and_read_hints(db: Any, instants: list[str]) -> None:
    first, _ = instants
    assert rows(db, f"SELECT id, fare FROM trips TIMESTAMP AS OF '{first}' ORDER BY id") == [
        (1, 10.0),
        (2, 20.0),
    ]
    assert rows(db, f"SELECT /*+ AS_OF(t, '{first}') */ t.fare FROM trips t WHERE id = 1") == [(10.0,)]
    assert rows(db, f"SELECT id FROM hudi_table_changes('trips', 'latest_state', '{first}')") == [(1,)]
    assert rows(
        db,
        f"SELECT count(*) FROM hudi_table_changes('{DATABASE}.trips', 'latest_state', 'earliest', '{first}')",
    ) == [(2,)]
    assert rows(db, f"SELECT /*+ INCREMENTAL(t, '{first}') */ id FROM trips t") == [(1,)]
    location = db.sql("DESCRIBE EXTENDED trips").where("col_name = 'Location'").collect()[0]["data_type"]
    assert rows(db, f"SELECT id FROM hudi_table_changes('{location}', 'latest_state', '{first}')") == [(1,)]
    # Read-optimized: base files only, the update in the log file is not seen.
    assert rows(db, "SELECT /*+ READ_OPTIMIZED(t) */ fare FROM trips t WHERE id = 1") == [(10.0,)]
    assert rows(db, "SELECT /*+ SNAPSHOT(t) */ fare FROM trips t WHERE id = 1") == [(11.0,)]


def test_session_options_set_and_reset(db: Any, instants: list[str]) -> None:
    db.sql("SET hoodie.datasource.query.type = incremental")
    db.sql(f"SET hoodie.datasource.read.begin.instanttime = {instants[0]}")
    try:
        assert rows(db, "SET hoodie.datasource.query.type") == [
            ("hoodie.datasource.query.type", "incremental")
        ]
        assert rows(db, "SELECT id FROM trips") == [(1,)]
    finally:
        db.sql("RESET hoodie.datasource.query.type")
        db.sql("RESET hoodie.datasource.read.begin.instanttime")
    assert rows(db, "SELECT count(*) FROM trips") == [(2,)]
    with pytest.raises(HudiConfigError, match="Did you mean 'hoodie.datasource.query.type'"):
        db.sql("SET hoodie.datasource.query.typ = snapshot")
    with pytest.raises(HudiConfigError, match="hoodie.datasource.query.type"):
        db.sql("SET hoodie.datasource.query.type = sideways")


def test_explain_shows_read_and_write_plans_and_writes_nothing(db: Any, instants: list[str]) -> None:
    plan = rows(db, "EXPLAIN SELECT * FROM trips WHERE id = 1")[0][0]
    assert "== Hudi read: sql_query.trips ==" in plan
    assert "file slices merged with log files: 1" in plan
    assert "== Physical Plan ==" in plan
    write = rows(
        db,
        "EXPLAIN MERGE INTO trips t USING (SELECT 2 AS id, 'r2' AS rider, 1.0 AS fare, 9L AS ts "
        "UNION ALL SELECT 3, 'r3', 3.0, 9) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    )[0][0]
    assert "operation: upsert" in write and "1 updates, 1 inserts" in write
    assert "file groups to append log files to: 1" in write
    assert len(db.sql("CALL show_commits(table => 'trips')").collect()) == 2


def test_refresh_table_of_a_hudi_table_is_accepted_and_reads_stay_fresh(db: Any, instants: list[str]) -> None:
    """Apache Hudi's scripts REFRESH a table after a CALL rewrote its files; here every statement
    reads the timeline afresh, so REFRESH does nothing, and says nothing."""
    before = rows(db, "SELECT count(*) FROM trips")
    assert db.sql("REFRESH TABLE trips").collect() == []
    assert db.sql("REFRESH TABLE sql_query.trips").collect() == []
    assert rows(db, "SELECT count(*) FROM trips") == before


def test_sql_errors_name_the_problem(db: Any, instants: list[str]) -> None:
    with pytest.raises(HudiSqlError, match=r"syntax error: .*\(line 2, column 6\)\n  FORM trips\n       \^"):
        db.sql("SELECT *\nFORM trips")
    with pytest.raises(
        TableNotFoundError, match="'trip' not found in database 'sql_query'. Did you mean 'trips'"
    ):
        db.sql("SELECT * FROM trip")
    with pytest.raises(
        UnsupportedFeatureError, match="not supported: ALTER TABLE ... DROP COLUMN on Hudi table"
    ):
        db.sql("ALTER TABLE trips DROP COLUMN fare")
    with pytest.raises(UnsupportedFeatureError, match="not supported: CREATE OR REPLACE TABLE"):
        db.sql("CREATE OR REPLACE TABLE x (id INT) USING hudi")
    with pytest.raises(HudiSqlError, match="not a Hudi table"):
        db.sql("SELECT /*+ READ_OPTIMIZED(p) */ * FROM payments p")
