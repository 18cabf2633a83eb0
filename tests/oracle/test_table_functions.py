"""Apache Hudi 1.2's table-valued functions, answered alike by hudi-sql on the same table.

``hudi_query_timeline('table' | 'path' [, 'true'])``: Apache Hudi 1.2 writes a Merge-On-Read table
(inserts, an update, a delete, a compaction) and hudi-sql a Copy-On-Write one; both engines list
both timelines, row for row: every instant file's time, action, state, completion time and file
name, and the write totals of its commit metadata.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle
from sql_session import fresh_database

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

COLUMNS = "id INT, name STRING, price DOUBLE, ts BIGINT, city STRING"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, "oracle_table_functions") as session:
        yield session


def _create(name: str, path: Path, table_type: str) -> str:
    return (f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
            f"TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', preCombineField = 'ts', "
            "'hoodie.write.table.version' = '8')")


def _statements(name: str) -> list[str]:
    return [f"INSERT INTO {name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc')",
            f"INSERT INTO {name} VALUES (3, 'c', 30.0, 1, 'sf')",
            f"UPDATE {name} SET price = price + 1, ts = 2 WHERE id = 1",
            f"DELETE FROM {name} WHERE id = 2"]


@pytest.fixture(scope="module")
def tables(db: Any, oracle_v1: Oracle, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Apache Hudi's Merge-On-Read table (compacted at the end) and our Copy-On-Write one."""
    root = tmp_path_factory.mktemp("table-functions")
    theirs, mine = f"tf_theirs_{uuid.uuid4().hex[:6]}", f"tf_ours_{uuid.uuid4().hex[:6]}"
    oracle_v1.run([{"sql": "SET hoodie.write.table.version=8"}, {"sql": _create(theirs, root / theirs, "mor")},
                   *({"sql": s} for s in _statements(theirs)),
                   {"sql": f"CALL run_compaction(op => 'scheduleAndExecute', table => '{theirs}')"},
                   {"sql": "RESET hoodie.write.table.version"}])
    db.sql(_create(mine, root / mine, "cow"))
    for statement in _statements(mine):
        db.sql(statement)
    return {"theirs": root / theirs, "ours": root / mine}


def _sorted(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in rows), key=lambda r: (str(r[0]), str(r[2]), str(r[4])))


@pytest.mark.parametrize("whose", ["theirs", "ours"])
def test_hudi_query_timeline_lists_what_apache_hudi_lists(db: Any, oracle_v1: Oracle, tables: dict[str, Path],
                                                          whose: str) -> None:
    query = f"SELECT * FROM hudi_query_timeline('{tables[whose]}', 'false')"
    theirs = oracle_v1.run([{"sql": query}])[0]
    ours = db.sql(query)
    assert [c.lower() for c in ours.columns] == [c.lower() for c in theirs["columns"]]
    assert _sorted(ours.collect()) == _sorted(theirs["rows"])
    assert len({r[0] for r in theirs["rows"]}) >= 4, "the statements' instants are listed"
