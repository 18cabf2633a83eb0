"""Apache Hudi 1.2's table-valued functions and procedures, answered alike by hudi-sql.

Apache Hudi 1.2 writes a Merge-On-Read table (inserts, an update, a delete, a compaction, a clean,
an update logged after them) and hudi-sql a Copy-On-Write one (the same statements, then a
clustering and a clean); on both tables both engines:

* ``hudi_query_timeline('table' | 'path' [, 'true'])`` lists the same rows: every instant file's
  time, action, state, completion time and file name, and the write totals of its commit metadata;
* the read-only procedures 1.2 added or reshaped (``stats_wa``, ``show_commit_files``,
  ``show_commit_partitions``, ``show_commit_write_stats``, ``show_clustering``, ``show_cleans``
  with and without a ``filter``, ``show_cleans_metadata``, ``show_clean_plans``,
  ``show_fs_path_detail`` of the table, its entries and a glob of its base files) answer the same
  columns and rows;
* ``show_logfile_metadata`` and ``show_logfile_records`` show the same blocks and records of
  Apache Hudi's log files.

The procedures that change a table (``drop_partition``, ``truncate_table``) run on a table of each
engine's own: the same answer, the same rows left.
"""

from __future__ import annotations

import json
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
    """Apache Hudi's Merge-On-Read table (compacted and cleaned, then logs again) and our
    Copy-On-Write one."""
    root = tmp_path_factory.mktemp("table-functions")
    theirs, mine = f"tf_theirs_{uuid.uuid4().hex[:6]}", f"tf_ours_{uuid.uuid4().hex[:6]}"
    oracle_v1.run([{"sql": "SET hoodie.write.table.version=8"}, {"sql": _create(theirs, root / theirs, "mor")},
                   *({"sql": s} for s in _statements(theirs)),
                   {"sql": f"CALL run_compaction(op => 'scheduleAndExecute', table => '{theirs}')"},
                   {"sql": f"CALL run_clean(table => '{theirs}', retain_commits => 1)"},
                   {"sql": f"UPDATE {theirs} SET price = price + 5, ts = 3 WHERE id IN (1, 3)"},
                   {"sql": "RESET hoodie.write.table.version"}])
    db.sql(_create(mine, root / mine, "cow"))
    for statement in _statements(mine):
        db.sql(statement)
    db.sql(f"CALL run_clustering(table => '{mine}')")
    db.sql(f"CALL run_clean(table => '{mine}', retain_commits => 1)")
    # each engine's catalog names both tables (procedures that take a table name only)
    oracle_v1.sql(f"CREATE TABLE {mine} USING hudi LOCATION '{root / mine}'")
    db.sql(f"CREATE TABLE {theirs} USING hudi LOCATION '{root / theirs}'")
    return {"theirs": root / theirs, "ours": root / mine}


def _sorted(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in rows), key=lambda r: tuple(str(v) for v in r))


@pytest.mark.parametrize("whose", ["theirs", "ours"])
def test_hudi_query_timeline_lists_what_apache_hudi_lists(db: Any, oracle_v1: Oracle, tables: dict[str, Path],
                                                          whose: str) -> None:
    query = f"SELECT * FROM hudi_query_timeline('{tables[whose]}', 'false')"
    theirs = oracle_v1.run([{"sql": query}])[0]
    ours = db.sql(query)
    assert [c.lower() for c in ours.columns] == [c.lower() for c in theirs["columns"]]
    assert _sorted(ours.collect()) == _sorted(theirs["rows"])
    assert len({r[0] for r in theirs["rows"]}) >= 4, "the statements' instants are listed"


def _latest_write(path: Path) -> str:
    """The requested time of the table's latest completed write (a file of .hoodie/timeline)."""
    names = [p.name for p in (path / ".hoodie" / "timeline").iterdir()
             if "_" in p.name.split(".")[0] and p.name.split(".", 1)[1] in ("commit", "deltacommit", "replacecommit")]
    return max(names).split("_")[0]


READ_ONLY_CALLS = [
    "CALL stats_wa(table => '{name}')",
    "CALL show_commit_files(table => '{name}', instant_time => '{latest}')",
    "CALL show_commit_partitions(table => '{name}', instant_time => '{latest}')",
    "CALL show_commit_write_stats(table => '{name}', instant_time => '{latest}')",
    "CALL show_clustering(path => '{path}')",
    "CALL show_clustering(path => '{path}', show_involved_partition => true)",
    "CALL show_cleans(table => '{name}')",
    "CALL show_cleans(table => '{name}', filter => 'total_files_deleted > 0 AND version >= 1')",
    "CALL show_cleans_metadata(table => '{name}')",
    "CALL show_clean_plans(table => '{name}')",
    "CALL show_fs_path_detail(path => '{path}')",
    "CALL show_fs_path_detail(path => '{path}', is_sub => true, sort => false)",
    "CALL show_fs_path_detail(path => '{path}/*/*.parquet')",
]


@pytest.mark.parametrize("whose", ["theirs", "ours"])
@pytest.mark.parametrize("call", READ_ONLY_CALLS, ids=[c.split("(")[0][5:] + str(i) for i, c in enumerate(READ_ONLY_CALLS)])
def test_read_only_procedures_answer_as_apache_hudi_does(db: Any, oracle_v1: Oracle, tables: dict[str, Path],
                                                         whose: str, call: str) -> None:
    path = tables[whose]
    text = call.format(path=path, name=path.name, latest=_latest_write(path))
    theirs = oracle_v1.run([{"sql": text}])[0]
    ours = db.sql(text)
    assert ours.columns == theirs["columns"]
    assert _sorted(ours.collect()) == _sorted(theirs["rows"])


def test_log_file_procedures_show_what_apache_hudi_shows(db: Any, oracle_v1: Oracle, tables: dict[str, Path]) -> None:
    """Apache Hudi's log file of an update: every block's instant, type, record count
    and header (a JSON object whose key order Java leaves to a hash map), and their records as
    written and merged (in the order Java's hash maps give, so compared as sets)."""
    path = tables["theirs"]
    # the last update's log files (version 8 names a log file by its deltacommit): the older logs hold
    # the delete's block, which Apache Hudi's show_logfile_metadata cannot list (a scala.MatchError)
    update = max(p.name.split("_")[0] for p in (path / ".hoodie" / "timeline").iterdir()
                 if p.name.endswith(".deltacommit") and "_" in p.name)
    logs = f"{path}/*/.*_{update}.log.*"
    metadata = f"CALL show_logfile_metadata(table => '{path.name}', log_file_path_pattern => '{logs}', limit => 100)"
    theirs, ours = oracle_v1.run([{"sql": metadata}])[0], db.sql(metadata)
    assert ours.columns == theirs["columns"]

    def blocks(rows: list[Any]) -> list[tuple[Any, ...]]:
        return sorted((r[0], r[1], r[2], json.dumps(json.loads(r[3]), sort_keys=True), r[4]) for r in rows)

    assert blocks(ours.collect()) == blocks(theirs["rows"])
    assert [(r[0], r[1]) for r in theirs["rows"]] == [(update, 2)], "the update's block is listed"
    for merge in ("false", "true"):
        records = (f"CALL show_logfile_records(table => '{path.name}', log_file_path_pattern => '{logs}', "
                   f"merge => {merge}, limit => 100)")
        theirs, ours = oracle_v1.run([{"sql": records}])[0], db.sql(records)
        assert ours.columns == theirs["columns"]
        assert _sorted(ours.collect()) == _sorted(theirs["rows"]), merge
        assert theirs["rows"], "the log holds records"


def test_procedures_that_drop_rows_leave_what_apache_hudi_leaves(db: Any, oracle_v1: Oracle,
                                                                 tmp_path: Path) -> None:
    theirs, mine = f"tf_drop_theirs_{uuid.uuid4().hex[:6]}", f"tf_drop_ours_{uuid.uuid4().hex[:6]}"
    oracle_v1.run([{"sql": "SET hoodie.write.table.version=8"}, {"sql": _create(theirs, tmp_path / theirs, "cow")},
                   *({"sql": s} for s in _statements(theirs)[:2])])
    db.sql(_create(mine, tmp_path / mine, "cow"))
    for statement in _statements(mine)[:2]:
        db.sql(statement)
    steps = [("CALL drop_partition(table => '{t}', partition => 'city=nyc')", [("Success",)]),
             ("SELECT id, name FROM {t}", [(1, "a"), (3, "c")]),
             ("CALL truncate_table(table => '{t}')", []),
             ("SELECT id, name FROM {t}", [])]
    for call, expected in steps:
        answer = oracle_v1.run([{"sql": call.format(t=theirs)}])[0]
        ours = db.sql(call.format(t=mine))
        assert (ours.columns, _sorted(ours.collect())) == (answer["columns"], _sorted(answer["rows"])), call
        assert _sorted(ours.collect()) == expected, call
    oracle_v1.sql("RESET hoodie.write.table.version")
