"""``df.write.format("hudi").saveAsTable(...)``: a catalog Hudi table from a DataFrame, with
Spark's save modes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sql_session import fresh_database, rows

from hudi_sql.errors import TableAlreadyExistsError

pytestmark = pytest.mark.spark

DATABASE = "sql_save_as_table"
KEYS = {
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
}


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        yield session


def _frame(spark: Any, data: list[tuple[int, str, int, str]]) -> Any:
    return spark.createDataFrame(data, "id int, name string, ts long, city string")


def test_a_new_table_is_created_partitioned_and_keyed_from_the_writer(db: Any, spark: Any) -> None:
    first = [(1, "a", 1, "sf"), (2, "b", 1, "nyc")]
    _frame(spark, first).write.format("hudi").options(**KEYS).partitionBy("city").saveAsTable("people")

    assert rows(db, "SELECT id, name, ts, city FROM people ORDER BY id") == first
    assert sorted(rows(db, "SHOW PARTITIONS people")) == [("city=nyc",), ("city=sf",)]
    # It is a Hudi table of the catalog, keyed as the options said: SQL updates by key work.
    db.sql("UPDATE people SET name = 'a2', ts = 2 WHERE id = 1")
    assert rows(db, "SELECT name FROM people WHERE id = 1") == [("a2",)]
    properties = dict(rows(db, "SHOW TBLPROPERTIES people"))
    assert properties.get("primaryKey", properties.get("hoodie.datasource.write.recordkey.field")) == "id"


def test_save_modes_follow_spark(db: Any, spark: Any) -> None:
    _frame(spark, [(1, "a", 1, "sf")]).write.format("hudi").options(**KEYS).saveAsTable("modes")
    with pytest.raises(TableAlreadyExistsError, match="already exists"):
        _frame(spark, [(9, "x", 1, "sf")]).write.format("hudi").options(**KEYS).saveAsTable("modes")
    _frame(spark, [(9, "x", 1, "sf")]).write.format("hudi").mode("ignore").saveAsTable("modes")
    assert rows(db, "SELECT id, name FROM modes") == [(1, "a")]

    # append: the DataFrame write's default operation, an upsert by key.
    _frame(spark, [(1, "a-new", 2, "sf"), (2, "b", 1, "sf")]).write.format("hudi").mode("append") \
        .saveAsTable(f"{DATABASE}.modes")
    assert rows(db, "SELECT id, name FROM modes ORDER BY id") == [(1, "a-new"), (2, "b")]

    # overwrite: the table is made anew from the DataFrame.
    _frame(spark, [(7, "z", 1, "la")]).write.format("hudi").options(**KEYS).mode("overwrite").saveAsTable("modes")
    assert rows(db, "SELECT id, name, city FROM modes") == [(7, "z", "la")]


def test_a_path_option_makes_an_external_table_there(db: Any, spark: Any, tmp_path: Path) -> None:
    import hudi_sql

    location = str(tmp_path / "external_people")
    _frame(spark, [(1, "a", 1, "sf")]).write.format("hudi").options(**KEYS) \
        .option("path", location).saveAsTable("external_people")
    assert (tmp_path / "external_people" / ".hoodie" / "hoodie.properties").exists()
    by_path = hudi_sql.read(spark, location).select("id", "name").collect()
    assert [tuple(r) for r in by_path] == rows(db, "SELECT id, name FROM external_people") == [(1, "a")]
    db.sql("DROP TABLE external_people")
    assert (tmp_path / "external_people" / ".hoodie").exists()  # external: the files stay
