"""Partial updates on Merge-On-Read (table version 8 on), checked against Apache Hudi 1.2.

Since 1.0, Apache Hudi's ``MERGE INTO … WHEN MATCHED THEN UPDATE SET`` of some of the columns writes
a log block holding only those columns (header ``IS_PARTIAL=true``); a reader takes the others from
the record it updates.

* **We read and compact what Apache Hudi writes: the next night's upsert.** Apache Hudi 1.2 creates a
  table at its default version (9) and the two engines take turns writing it: Apache Hudi's partial
  updates of different columns, with a late one among them (its ordering value lower than the stored
  one's: the stored record stays), its whole-record writes, and ours between them, a compaction by us;
  both engines read the same rows after every turn, the table stays version 9, and the rows are the
  ones the statements say.
* **Apache Hudi reads and compacts what we write.** Our ``MERGE … UPDATE SET`` of some columns on a
  version 9 table logs partial-update blocks (checked in the files); Apache Hudi 1.2 reads the table
  after each turn, writes its own partial updates between ours, and compacts it; we read the result.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle
from sql_session import fresh_database
from table_helpers import log_data_blocks
from test_v8_writes import COLUMNS, COMPACT_NOW, _agree, _completed, _properties, _register, take_turns

pytestmark = [pytest.mark.oracle, pytest.mark.spark]


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, "oracle_partial_updates") as session:
        yield session


def _partial_blocks(path: Path) -> list[str]:
    """The log files of *path* holding a partial-update block (the scenario is real only with some)."""
    return [name for name, block in log_data_blocks(path) if block.is_partial]


def _merge(table: str, assignments: str, *rows: str) -> str:
    """A ``MERGE INTO`` updating matched rows by *assignments* from a source of *rows* (each naming its
    partition: Apache Hudi's partition-scoped index finds no record without it, and the MERGE writes
    nothing)."""
    return (f"MERGE INTO {table} t USING ({' UNION ALL '.join(rows)}) s ON t.id = s.id "
            f"WHEN MATCHED THEN UPDATE SET {assignments}")


def test_we_take_turns_with_apache_hudi_1_2_on_a_table_it_created_its_partial_updates_among_them(
        spark: Any, db: Any, oracle_v9: Oracle, tmp_path: Path) -> None:
    """The next night's upsert: Apache Hudi 1.2 creates the table at its default version (9, its
    metadata table on, Merge-On-Read: log files named by either engine, a compaction by us) and the
    engines take turns, Apache Hudi's partial updates of different columns among them."""
    name = f"v9_mixed_{uuid.uuid4().hex[:6]}"
    path = tmp_path / name
    oracle_v9.sql(f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
               "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')")
    price = "price = s.price, ts = s.ts"
    turns: list[tuple[str, str]] = [
        ("apache", f"INSERT INTO {name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'la')"),
        ("ours", (f"MERGE INTO {name} t USING (SELECT 1 AS id, 'a2' AS name, 11.0 AS price, 2L AS ts, 'sf' AS city "
                  "UNION ALL SELECT 3, 'late', 0.0, 0L, 'la' UNION ALL SELECT 4, 'd', 40.0, 2L, 'sf') s "
                  "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")),
        # partial: id 3's update is late (ts 0 against 1), the stored record stays
        ("apache", _merge(name, price, "SELECT 1 AS id, 12.0 AS price, 3L AS ts, 'sf' AS city",
                          "SELECT 3, 0.5, 0L, 'la'")),
        ("apache", f"UPDATE {name} SET price = price + 1, ts = 3 WHERE id IN (2, 4)"),
        ("apache", _merge(name, "name = s.name, ts = s.ts", "SELECT 1 AS id, 'a5' AS name, 5L AS ts, 'sf' AS city",
                          "SELECT 2, 'b5', 4L, 'nyc'")),
        ("ours", f"DELETE FROM {name} WHERE id = 2"),
        ("ours", f"CALL run_compaction(op => 'run', table => '{name}', options => '{COMPACT_NOW}')"),
        ("apache", _merge(name, price, "SELECT 4 AS id, 44.0 AS price, 6L AS ts, 'sf' AS city")),
        ("apache", f"INSERT INTO {name} VALUES (5, 'e', 50.0, 4, 'nyc')"),
        ("ours", f"UPDATE {name} SET name = 'ours', ts = 7 WHERE id IN (1, 5)"),
    ]
    failures = take_turns(spark, db, oracle_v9, name, path, turns)
    assert not failures, "\n".join(failures)
    assert _partial_blocks(path), "Apache Hudi 1.2 wrote no partial-update block: the test proves nothing"
    props = _properties(path)
    assert (props["hoodie.table.version"], props["hoodie.record.merge.mode"]) == ("9", "EVENT_TIME_ORDERING")
    rows = {r["id"]: (r["name"], r["price"], r["ts"]) for r in spark.read.format("hudi").load(str(path)).collect()}
    assert rows == {1: ("ours", 12.0, 7), 3: ("c", 30.0, 1), 4: ("d", 44.0, 6), 5: ("ours", 50.0, 7)}


def test_apache_hudi_1_2_reads_and_compacts_the_partial_updates_we_write(
        spark: Any, db: Any, oracle_v9: Oracle, tmp_path: Path) -> None:
    name = f"partial_ours_{uuid.uuid4().hex[:6]}"
    path = tmp_path / name
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
           "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', 'hoodie.write.table.version' = '9')")
    db.sql(f"INSERT INTO {name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'sf')")
    theirs = _register(oracle_v9, name, path)
    price = "price = s.price, ts = s.ts"
    turns: list[tuple[str, str]] = [
        ("ours", _merge(name, price, "SELECT 1 AS id, 11.0 AS price, 2L AS ts, 'sf' AS city",
                        "SELECT 3, 0.5, 0L, 'sf'")),
        ("apache", _merge(theirs, "name = s.name, ts = s.ts", "SELECT 1 AS id, 'a3' AS name, 3L AS ts, 'sf' AS city")),
        ("ours", _merge(name, "name = s.name, ts = s.ts", "SELECT 2 AS id, 'b4' AS name, 4L AS ts, 'nyc' AS city")),
        ("apache", f"CALL run_compaction(op => 'run', table => '{theirs}', options => '{COMPACT_NOW}')"),
    ]
    failures: list[str] = []
    for index, (who, statement) in enumerate(turns, 1):
        (oracle_v9.sql if who == "apache" else db.sql)(statement)
        failures += _agree(spark, oracle_v9, path, f"{name}/{index}-{who}")
    assert not failures, "\n".join(failures)
    assert _partial_blocks(path), "we wrote no partial-update block"
    assert _completed(path)[-1][2] == "commit", "Apache Hudi's compaction completed last"
    rows = {r["id"]: (r["name"], r["price"], r["ts"]) for r in spark.read.format("hudi").load(str(path)).collect()}
    assert rows == {1: ("a3", 11.0, 3), 2: ("b4", 20.0, 4), 3: ("c", 30.0, 1)}
