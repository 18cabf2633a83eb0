"""MERGE INTO: clause order, any join condition, NOT MATCHED BY SOURCE, cardinality, partial updates."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sql_session import fresh_database, rows
from table_helpers import log_data_blocks

from hudi_sql.errors import HudiSqlError

pytestmark = pytest.mark.spark

DATABASE = "sql_merge"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        yield session


def commits(db: Any, table: str) -> int:
    return len(db.sql(f"CALL show_commits(table => '{table}', limit => 100)").collect())


def source(db: Any, name: str, data: list[tuple[Any, ...]], schema: str) -> None:
    db.spark.createDataFrame(data, schema).createOrReplaceTempView(name)


def test_merge_clauses_first_match_wins_on_the_record_key(db: Any) -> None:
    db.sql(
        "CREATE TABLE tgt (id INT, name STRING, qty INT, ts BIGINT) USING hudi "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')"
    )
    db.sql("INSERT INTO tgt VALUES (1, 'a', 1, 1), (2, 'b', 2, 1), (3, 'c', 3, 1), (4, 'd', 4, 1)")
    source(
        db,
        "changes",
        [
            (1, "A", 10, "del", 2),
            (2, "B", 20, "upd", 2),
            (3, "C", 30, "other", 2),
            (5, "E", 50, "ins", 2),
            (6, "F", 60, "skip", 2),
        ],
        "id int, name string, qty int, op string, ts bigint",
    )
    result = db.sql("""
        MERGE INTO tgt t USING changes s ON t.id = s.id
        WHEN MATCHED AND s.op = 'del' THEN DELETE
        WHEN MATCHED AND s.op = 'upd' THEN UPDATE SET name = s.name, qty = s.qty, ts = s.ts
        WHEN MATCHED THEN UPDATE SET qty = t.qty + 100
        WHEN NOT MATCHED AND s.op = 'ins' THEN INSERT (id, name, qty, ts) VALUES (s.id, s.name, s.qty, s.ts)
    """).collect()[0]
    assert (result["num_inserted_rows"], result["num_updated_rows"], result["num_deleted_rows"]) == (1, 2, 1)
    # Partial UPDATE SET keeps the other columns: row 3 keeps name 'c' and ts 1.
    assert rows(db, "SELECT id, name, qty, ts FROM tgt ORDER BY id") == [
        (2, "B", 20, 2),
        (3, "c", 103, 1),
        (4, "d", 4, 1),
        (5, "E", 50, 2),
    ]


def test_merge_into_copy_on_write_leaves_rows_whose_stored_ordering_value_is_higher(db: Any) -> None:
    """As Apache Hudi's ExpressionPayload: the incoming ordering value is the source's, and a
    matched row stored with a higher one is neither updated nor deleted."""
    db.sql("CREATE TABLE ordered (id INT, name STRING, ts BIGINT) USING hudi "
           "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')")
    db.sql("INSERT INTO ordered VALUES (1, 'a', 5), (2, 'b', 5), (3, 'c', 5)")
    source(db, "late", [(1, "older", 3), (2, "newer", 7), (3, "gone", 1), (4, "new", 0)],
           "id int, name string, ts bigint")
    db.sql("MERGE INTO ordered t USING late s ON t.id = s.id "
           "WHEN MATCHED AND s.id = 3 THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    db.sql("MERGE INTO ordered t USING late s ON t.id = s.id "  # an upsert of the source (no join)
           "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    db.sql("MERGE INTO ordered t USING late s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name")
    assert rows(db, "SELECT id, name, ts FROM ordered ORDER BY id") == [
        (1, "a", 5), (2, "newer", 7), (3, "c", 5), (4, "new", 0)]
    # The ordering value may come from the source column UPDATE SET assigns to the field.
    source(db, "versioned", [(1, "v9", 9), (2, "v1", 1)], "id int, name string, version bigint")
    db.sql("MERGE INTO ordered t USING versioned s ON t.id = s.id "
           "WHEN MATCHED THEN UPDATE SET name = s.name, ts = s.version")
    assert rows(db, "SELECT id, name, ts FROM ordered WHERE id IN (1, 2) ORDER BY id") == [(1, "v9", 9), (2, "newer", 7)]
    source(db, "unordered", [(1, "x")], "id int, name string")
    with pytest.raises(HudiSqlError, match="failed to resolve pre-combine field `ts`"):
        db.sql("MERGE INTO ordered t USING unordered s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name")


def test_merge_on_any_condition_and_not_matched_by_source(db: Any) -> None:
    db.sql(
        "CREATE TABLE people (id INT, email STRING, status STRING, p STRING) USING hudi PARTITIONED BY (p) "
        "TBLPROPERTIES (primaryKey = 'id', type = 'mor')"
    )
    db.sql("INSERT INTO people VALUES (1, 'a@x', 'new', 'x'), (2, 'b@x', 'new', 'x'), (3, 'c@y', 'new', 'y')")
    source(db, "crm", [("A@X", "vip"), ("c@y", "gone")], "mail string, status string")
    # Not a key condition (Apache Hudi 0.14 refuses those): rows are matched by email.
    db.sql("""
        MERGE INTO people USING crm ON lower(people.email) = lower(crm.mail)
        WHEN MATCHED AND crm.status = 'gone' THEN DELETE
        WHEN MATCHED THEN UPDATE SET status = crm.status
        WHEN NOT MATCHED BY SOURCE AND people.status = 'new' THEN UPDATE SET status = 'stale'
    """)
    assert rows(db, "SELECT id, status FROM people ORDER BY id") == [(1, "vip"), (2, "stale")]
    db.sql(
        "MERGE INTO people t USING (SELECT 1 AS id) s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE"
    )
    assert rows(db, "SELECT id, status FROM people ORDER BY id") == [(1, "vip")]


def test_merge_star_actions_move_rows_between_partitions_under_a_global_index_only(db: Any) -> None:
    db.sql(
        "CREATE TABLE stars (id INT, v STRING, p STRING) USING hudi PARTITIONED BY (p) "
        "TBLPROPERTIES (primaryKey = 'id', hoodie.index.type = 'GLOBAL_SIMPLE')"
    )
    db.sql("INSERT INTO stars VALUES (1, 'a', 'x'), (2, 'b', 'x')")
    db.sql(
        "MERGE INTO stars t USING (SELECT 1 AS id, 'a2' AS v, 'y' AS p UNION ALL SELECT 3, 'c', 'y') s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    assert rows(db, "SELECT id, v, p, _hoodie_partition_path FROM stars ORDER BY id") == [
        (1, "a2", "y", "p=y"),
        (2, "b", "x", "p=x"),
        (3, "c", "y", "p=y"),
    ]
    # Under a partition-scoped index (SIMPLE, the default) the updated row is a new record in its
    # new partition and the old one stays, as Apache Hudi 0.15 and 1.2 write it (the oracle's
    # merge_moves_a_key_to_another_partition regressions).
    db.sql(
        "CREATE TABLE scoped (id INT, v STRING, p STRING) USING hudi PARTITIONED BY (p) "
        "TBLPROPERTIES (primaryKey = 'id')"
    )
    db.sql("INSERT INTO scoped VALUES (1, 'a', 'x')")
    db.sql("MERGE INTO scoped t USING (SELECT 1 AS id, 'a2' AS v, 'y' AS p) s "
           "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    assert rows(db, "SELECT id, v, p FROM scoped ORDER BY p") == [(1, "a", "x"), (1, "a2", "y")]
    # With the partition in the ON condition only the source's partitions are read.
    plan = db.sql(
        "EXPLAIN MERGE INTO stars t USING (SELECT 2 AS id, 'b2' AS v, 'x' AS p) s "
        "ON t.id = s.id AND t.p = s.p WHEN MATCHED THEN UPDATE SET *"
    ).collect()[0][0]
    assert "target partitions read (pruned by the ON condition): 1" in plan and "1 updates" in plan
    db.sql(
        "MERGE INTO stars t USING (SELECT 2 AS id, 'b2' AS v, 'x' AS p UNION ALL SELECT 4, 'd', 'w') s "
        "ON t.id = s.id AND t.p = s.p WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    assert rows(db, "SELECT id, v, p FROM stars ORDER BY id") == [
        (1, "a2", "y"),
        (2, "b2", "x"),
        (3, "c", "y"),
        (4, "d", "w"),
    ]
    with pytest.raises(HudiSqlError, match="INSERT \\* needs a source column 'p'"):
        db.sql(
            "MERGE INTO stars t USING (SELECT 9 AS id, 'z' AS v) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *"
        )


def test_target_row_matched_twice_is_an_error_unless_ordering_decides(db: Any) -> None:
    db.sql("CREATE TABLE card (id INT, v STRING) USING hudi TBLPROPERTIES (primaryKey = 'id')")
    db.sql("INSERT INTO card VALUES (1, 'a')")
    before = commits(db, "card")
    with pytest.raises(HudiSqlError, match="matched by more than one source row"):
        db.sql(
            "MERGE INTO card t USING (SELECT 1 AS id, 'x' AS v UNION ALL SELECT 1, 'y') s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET v = s.v"
        )
    assert commits(db, "card") == before
    assert rows(db, "SELECT id, v FROM card") == [(1, "a")]

    db.sql(
        "CREATE TABLE card_ts (id INT, v STRING, ts INT) USING hudi "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')"
    )
    db.sql("INSERT INTO card_ts VALUES (1, 'a', 0)")
    db.sql(
        "MERGE INTO card_ts t USING (SELECT 1 AS id, 'late' AS v, 5 AS ts UNION ALL SELECT 1, 'early', 3) s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET *"
    )
    assert rows(db, "SELECT id, v, ts FROM card_ts") == [(1, "late", 5)]


def test_key_merge_of_whole_rows_runs_as_an_upsert_with_the_join_paths_result(db: Any) -> None:
    """``ON`` the key (and partition), ``UPDATE SET *`` / ``INSERT *``: Hudi runs this as an upsert
    of the source; a clause condition sends the same statement through the join. Both agree."""
    source(
        db,
        "feed",
        [(1, "late", 9, "x"), (1, "early", 3, "x"), (2, "b2", 2, "x"), (5, "e", 1, "y"), (6, "f", 1, "z")],
        "id int, v string, ts int, p string",
    )
    outcomes = []
    for table, matched in (("upserted", "WHEN MATCHED"), ("joined", "WHEN MATCHED AND s.v IS NOT NULL")):
        db.sql(
            f"CREATE TABLE {table} (id INT, v STRING, ts INT, p STRING) USING hudi PARTITIONED BY (p) "
            "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')"
        )
        db.sql(f"INSERT INTO {table} VALUES (1, 'a', 1, 'x'), (2, 'b', 1, 'x'), (3, 'c', 1, 'y')")
        before = commits(db, table)
        metrics = db.sql(
            f"MERGE INTO {table} t USING feed s ON t.id = s.id AND t.p = s.p "
            f"{matched} THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        ).collect()[0]
        assert commits(db, table) == before + 1
        outcomes.append((
            (metrics["num_inserted_rows"], metrics["num_updated_rows"], metrics["num_deleted_rows"]),
            rows(db, f"SELECT id, v, ts, p FROM {table} ORDER BY id"),
        ))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] == (
        (2, 2, 0),
        [(1, "late", 9, "x"), (2, "b2", 2, "x"), (3, "c", 1, "y"), (5, "e", 1, "y"), (6, "f", 1, "z")],
    )


def test_update_only_key_merge_leaves_unmatched_source_rows_out(db: Any) -> None:
    db.sql(
        "CREATE TABLE upd_only (id INT, v STRING, ts INT) USING hudi "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')"
    )
    db.sql("INSERT INTO upd_only VALUES (1, 'a', 1)")
    metrics = db.sql(
        "MERGE INTO upd_only t USING (SELECT 1 AS id, 'a2' AS v, 2 AS ts UNION ALL SELECT 2, 'new', 2) s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET *"
    ).collect()[0]
    assert (metrics["num_inserted_rows"], metrics["num_updated_rows"]) == (0, 1)
    assert rows(db, "SELECT id, v, ts FROM upd_only") == [(1, "a2", 2)]


def _log_blocks(location: str) -> list[tuple[bool, list[str]]]:
    """(IS_PARTIAL, data columns) of the data blocks in the table's log files, oldest first, an entry
    equal to the one before left out (one write's blocks in several partitions)."""
    found: list[tuple[bool, list[str]]] = []
    for _, block in log_data_blocks(Path(location)):
        entry = (block.is_partial, [c for c in block.records.column_names if not c.startswith("_hoodie")])
        if not found or found[-1] != entry:
            found.append(entry)
    return found


def test_an_update_of_some_columns_logs_only_those_on_a_version_8_merge_on_read_table(db: Any, tmp_path: Any) -> None:
    location = str(tmp_path / "partial")
    db.sql(f"CREATE TABLE partial_mor (id INT, name STRING, price DOUBLE, ts BIGINT, city STRING) USING hudi "
           f"PARTITIONED BY (city) LOCATION '{location}' TBLPROPERTIES (type = 'mor', primaryKey = 'id', "
           "preCombineField = 'ts', 'hoodie.write.table.version' = '8')")
    db.sql("INSERT INTO partial_mor VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'sf'), (3, 'c', 30.0, 1, 'la')")
    source(db, "price_changes", [(1, 11.0, 2, "sf"), (3, 0.5, 0, "la"), (9, 90.0, 2, "sf")],
           "id int, price double, ts bigint, city string")

    db.sql("MERGE INTO partial_mor t USING price_changes s ON t.id = s.id "
           "WHEN MATCHED THEN UPDATE SET price = s.price, ts = s.ts")
    assert rows(db, "SELECT id, name, price, ts FROM partial_mor ORDER BY id") == [
        (1, "a", 11.0, 2), (2, "b", 20.0, 1), (3, "c", 30.0, 1)]  # id 3's update was late (ts 0 against 1)
    db.sql("MERGE INTO partial_mor t USING price_changes s ON t.id = s.id AND t.city = s.city "
           "WHEN MATCHED THEN UPDATE SET id = s.id, name = 'all', price = s.price, ts = s.ts + 10, city = s.city "
           "WHEN NOT MATCHED THEN INSERT (id, price, ts, city) VALUES (s.id, s.price, s.ts, s.city)")

    # the first MERGE logged price and ts; the second whole records (its UPDATE SET assigns every column)
    assert _log_blocks(location) == [(True, ["price", "ts"]), (False, ["id", "name", "price", "ts", "city"])]
    assert rows(db, "SELECT id, name, price, ts, city FROM partial_mor ORDER BY id") == [
        (1, "all", 11.0, 12, "sf"), (2, "b", 20.0, 1, "sf"), (3, "all", 0.5, 10, "la"), (9, None, 90.0, 2, "sf")]
    db.sql("CALL run_compaction(op => 'run', table => 'partial_mor', "
           "options => 'hoodie.compact.inline.max.delta.commits=1')")
    assert rows(db, "SELECT id, name, price FROM partial_mor ORDER BY id") == [
        (1, "all", 11.0), (2, "b", 20.0), (3, "all", 0.5), (9, None, 90.0)]
