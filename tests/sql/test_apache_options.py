"""An Apache Hudi option hudi-sql does not implement, in TBLPROPERTIES: the table is created,
written and read as without it (Apache Hudi's DDL runs unchanged); a misspelt key still fails."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sql_session import fresh_database, rows

from hudi_sql.errors import HudiConfigError

pytestmark = pytest.mark.spark

DATABASE = "sql_apache_options"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        yield session


def test_create_table_apache_record_index_option_insert_select_works(db: Any, tmp_path: Path) -> None:
    db.sql(f"""CREATE TABLE rli (id INT, name STRING, ts BIGINT) USING hudi LOCATION '{tmp_path / "rli"}'
        TBLPROPERTIES ('hoodie.metadata.record.index.enable' = 'true', primaryKey = 'id', preCombineField = 'ts')""")
    db.sql("INSERT INTO rli VALUES (1, 'a', 10), (2, 'b', 10)")
    db.sql("INSERT INTO rli VALUES (2, 'B', 20)")
    assert rows(db, "SELECT id, name, ts FROM rli ORDER BY id") == [(1, "a", 10), (2, "B", 20)]


def test_create_table_misspelt_apache_option_fails_table_not_created(db: Any) -> None:
    with pytest.raises(HudiConfigError, match="Did you mean 'hoodie.metadata.record.index.enable'"):
        db.sql("""CREATE TABLE typo (id INT) USING hudi
            TBLPROPERTIES ('hoodie.metadata.record.index.enabled' = 'true', primaryKey = 'id')""")
    assert not db.spark.catalog.tableExists(f"{DATABASE}.typo")
