"""SHOW TBLPROPERTIES of Hudi tables, as Apache Hudi 0.15's Spark SQL lists them.

The expected rows are what Apache Hudi 0.15 returned for the same statements (the oracle
comparison is tests/oracle/test_show_tblproperties.py): the catalog properties given at create,
``type`` always present (``cow`` by default), none of hoodie.properties; a missing key is Spark's
"does not have property" row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sql_session import fresh_database, rows

from hudi_sql.errors import TableNotFoundError
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer import analyze
from hudi_sql.sql.dialect import generate, parse_statements

DATABASE = "sql_tblproperties"


def test_analyze_show_tblproperties_with_and_without_key() -> None:
    assert analyze("SHOW TBLPROPERTIES db.t ('primaryKey')") == [
        st.ShowTableProperties(st.TableName("db", "t"), "primaryKey", sql=st.SparkSql(text="SHOW TBLPROPERTIES db.t ('primaryKey')"))
    ]
    [statement] = analyze("show tblproperties t (a.b)")
    assert statement == st.ShowTableProperties(st.TableName(None, "t"), "a.b", sql=st.SparkSql(text="show tblproperties t (a.b)"))
    assert generate(parse_statements("SHOW TBLPROPERTIES `d`.t")[0].expression) == "SHOW TBLPROPERTIES `d`.t"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        session.sql(
            "CREATE TABLE tp (id INT, name STRING, ts BIGINT, dt STRING) USING hudi PARTITIONED BY (dt) "
            "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', "
            "'hoodie.index.type' = 'BLOOM', 'foo' = 'bar')"
        )
        yield session


@pytest.mark.spark
def test_show_tblproperties_hudi_table_lists_create_properties(db: Any) -> None:
    assert rows(db, "SHOW TBLPROPERTIES tp") == [
        ("foo", "bar"),
        ("hoodie.index.type", "BLOOM"),
        ("preCombineField", "ts"),
        ("primaryKey", "id"),
        ("type", "mor"),
    ]
    assert db.sql("SHOW TBLPROPERTIES tp").columns == ["key", "value"]


@pytest.mark.spark
def test_show_tblproperties_one_key_or_missing_key_row(db: Any) -> None:
    assert rows(db, "SHOW TBLPROPERTIES tp ('primaryKey')") == [("primaryKey", "id")]
    assert rows(db, f"SHOW TBLPROPERTIES {DATABASE}.tp ('nope')") == [
        ("nope", f"Table spark_catalog.{DATABASE}.tp does not have property: nope")
    ]


@pytest.mark.spark
def test_show_tblproperties_table_without_properties_has_type_cow(db: Any) -> None:
    db.sql("CREATE TABLE plain_hudi (id INT, ts BIGINT) USING hudi")
    assert rows(db, "SHOW TBLPROPERTIES plain_hudi") == [("type", "cow")]


@pytest.mark.spark
def test_show_tblproperties_after_alter_lists_new_property(db: Any) -> None:
    db.sql("CREATE TABLE altered (id INT, ts BIGINT) USING hudi TBLPROPERTIES (primaryKey = 'id')")
    db.sql("ALTER TABLE altered SET TBLPROPERTIES ('k2' = 'v2')")
    assert ("k2", "v2") in rows(db, "SHOW TBLPROPERTIES altered")


@pytest.mark.spark
def test_show_tblproperties_other_format_runs_in_spark(db: Any) -> None:
    db.sql("CREATE TABLE pq (id INT) USING parquet TBLPROPERTIES ('a' = 'b')")
    assert rows(db, "SHOW TBLPROPERTIES pq") == [("a", "b")]


@pytest.mark.spark
def test_show_tblproperties_unknown_table_is_not_found(db: Any) -> None:
    with pytest.raises(TableNotFoundError, match="'nope'"):
        db.sql("SHOW TBLPROPERTIES nope")
