"""What the catalog says about a Hudi table: SHOW TBLPROPERTIES and DESCRIBE answer the same rows as
Apache Hudi 0.15's Spark SQL, for a table created with and without properties and by CTAS
(which must not copy the table's name or database into its properties)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from oracle_harness import TALLY, Oracle, assert_same_rows, only_columns, ours
from sql_session import fresh_database

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

CREATES = {
    "mor_with_properties": (
        "CREATE TABLE {t} (id INT, name STRING, ts BIGINT, dt STRING) USING hudi PARTITIONED BY (dt) "
        "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', "
        "'hoodie.index.type' = 'BLOOM', 'foo' = 'bar')"
    ),
    "cow_without_properties": "CREATE TABLE {t} (id INT, ts BIGINT) USING hudi",
    "cow_by_ctas": ("CREATE TABLE {t} USING hudi PARTITIONED BY (dt) TBLPROPERTIES (primaryKey = 'id') "
                    "AS SELECT 1 AS id, 'a' AS name, 1L AS ts, '2024-01-01' AS dt"),
}


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, "oracle_tblproperties") as session:
        yield session


@pytest.mark.parametrize("kind", sorted(CREATES))
def test_show_tblproperties_same_rows_as_apache_hudi(oracle: Oracle, db: Any, kind: str) -> None:
    table = f"tblprops_{kind}_{uuid.uuid4().hex[:6]}"
    create = CREATES[kind].format(t=table)
    db.sql(create)
    oracle.sql(create)
    for statement in (f"SHOW TBLPROPERTIES {table}", f"SHOW TBLPROPERTIES {table} ('type')"):
        assert_same_rows(ours(db.sql(statement)), oracle.sql(statement), what=statement,
                         tally=TALLY.script_steps)
    describe = f"DESCRIBE {table}"
    columns = ["col_name", "data_type"]
    assert_same_rows(only_columns(ours(db.sql(describe)), columns), only_columns(oracle.sql(describe), columns),
                     what=describe, tally=TALLY.script_steps)
