"""Table version 9 (Apache Hudi 1.1 / 1.2's default) written by hudi-sql, checked by Apache Hudi 1.2.

* **A new table records merging as Apache Hudi 1.2 records it.** The same ``CREATE TABLE`` through
  both engines at version 9 gives the same ``hoodie.properties`` (merge mode, ordering fields,
  legacy payload class, no payload class or built-in strategy id), for an ordering field, none,
  and payload classes 1.2 turns into merge modes.
* **Apache Hudi 1.2 reads what we write**: ``test_v8_writes`` runs its statements on a version 9
  Merge-On-Read table of ours, step by step.
* **Upgrade and downgrade.** Our version 8 table moved to 9 and back to 8: Apache Hudi 1.2 writes it
  at each version, and both engines read the same rows.
* **The next night's upsert** (Apache Hudi 1.2 creates a table at its default version and the two
  engines take turns writing it, its partial updates among them) is in ``test_partial_updates``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle
from sql_session import fresh_database
from test_v8_writes import COLUMNS, _agree, _properties, _register

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

#: The entries that say how the table is laid out and how its records merge (each present in both
#: files with the same value, or in neither).
COMPARED = ("hoodie.table.version", "hoodie.table.initial.version", "hoodie.timeline.layout.version",
            "hoodie.timeline.path", "hoodie.table.format", "hoodie.record.merge.mode", "hoodie.record.merge.strategy.id",
            "hoodie.compaction.payload.class", "hoodie.table.legacy.payload.class", "hoodie.table.precombine.field",
            "hoodie.table.ordering.fields", "hoodie.table.partial.update.mode", "hoodie.table.recordkey.fields",
            "hoodie.table.partition.fields")

PAYLOADS = "org.apache.hudi.common.model"
#: (table type, TBLPROPERTIES beyond type and key): an ordering field; none; payload classes that
#: version 9 records as a merge mode with the class kept as the legacy payload.
CREATED = [
    ("cow", "preCombineField = 'ts'"),
    ("mor", ""),
    ("mor", f"preCombineField = 'ts', payloadClass = '{PAYLOADS}.OverwriteWithLatestAvroPayload'"),
    ("cow", f"preCombineField = 'ts', payloadClass = '{PAYLOADS}.EventTimeAvroPayload'"),
]


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, "oracle_v9_writes") as session:
        yield session


def _create(name: str, path: Path, table_type: str, extra: str) -> str:
    props = ", ".join(p for p in (f"type = '{table_type}'", "primaryKey = 'id'", extra,
                                  "'hoodie.write.table.version' = '9'") if p)
    return (f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
            f"TBLPROPERTIES ({props})")


@pytest.mark.parametrize(("table_type", "extra"), CREATED, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CREATED)])
def test_a_new_version_9_table_records_merging_as_apache_hudi_1_2_does(
        db: Any, oracle_v9: Oracle, tmp_path: Path, table_type: str, extra: str) -> None:
    name = f"v9_new_{uuid.uuid4().hex[:6]}"
    theirs, mine = tmp_path / "apache" / name, tmp_path / "ours" / name
    oracle_v9.sql(_create(name, theirs, table_type, extra))
    db.sql(_create(name, mine, table_type, extra))
    expected = {k: v for k, v in _properties(theirs).items()
                if k in COMPARED or k.startswith("hoodie.record.merge.property.")}
    assert {k: v for k, v in _properties(mine).items()
            if k in COMPARED or k.startswith("hoodie.record.merge.property.")} == expected


def test_a_table_we_move_to_version_9_and_back_is_written_by_apache_hudi_1_2_at_each_version(
        spark: Any, db: Any, oracle_v9: Oracle, tmp_path: Path) -> None:
    """Our version 8 Merge-On-Read table, upgraded to 9 by ``CALL upgrade_table`` and downgraded to
    8 again: after each move Apache Hudi 1.2 writes it at that version and both engines read the
    same rows."""
    name = f"v9_moved_{uuid.uuid4().hex[:6]}"
    path = tmp_path / name
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
           "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', 'hoodie.write.table.version' = '8')")
    db.sql(f"INSERT INTO {name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc')")
    db.sql(f"UPDATE {name} SET price = 11.0, ts = 2 WHERE id = 1")
    failures: list[str] = []
    for version, apache_write in ((9, f"UPDATE {name} SET name = 'nine', ts = 3 WHERE id = 2"),
                                  (8, f"INSERT INTO {name} VALUES (3, 'eight', 30.0, 4, 'sf')")):
        verb = "upgrade_table" if version == 9 else "downgrade_table"
        db.sql(f"CALL {verb}(table => '{name}', to_version => {version})")
        props = _properties(path)
        assert props["hoodie.table.version"] == str(version)
        assert ("hoodie.table.legacy.payload.class" in props) == (version == 9)
        table = _register(oracle_v9, name, path)
        oracle_v9.run([{"sql": f"SET hoodie.write.table.version={version}"},
                       {"sql": apache_write.replace(name, table)}, {"sql": "SET hoodie.write.table.version=9"}])
        assert _properties(path)["hoodie.table.version"] == str(version), "Apache Hudi wrote it at its version"
        failures += _agree(spark, oracle_v9, path, f"{name}/after the move to {version} and Apache Hudi's write")
    assert not failures, "\n".join(failures)
    rows = {r["id"]: (r["name"], r["ts"]) for r in spark.read.format("hudi").load(str(path)).collect()}
    assert rows == {1: ("a", 2), 2: ("nine", 3), 3: ("eight", 4)}
