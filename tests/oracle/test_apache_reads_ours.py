"""Apache Hudi reads the tables hudi-sql writes: snapshot, read-optimized, incremental and time travel.

Every read runs through both engines on the same files and must give the same rows, meta
columns included (commit time, sequence number, record key, partition path, file name). Apache
Hudi reads with its defaults, so its file listings come from the metadata table hudi-sql kept;
its own validation (``validate_metadata_table_files``) must then find that table in step with
storage, file by file and size by size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from oracle_tables import SCHEMA, batch, options, spark_rows

pytestmark = [pytest.mark.oracle, pytest.mark.spark]


def _write(spark: Any, path: Path, rows: list[list[Any]], opts: dict[str, str], operation: str) -> str:
    import hudi_sql

    df = spark.createDataFrame(spark_rows(rows), SCHEMA)
    result = hudi_sql.write(df, str(path), {**opts, "hoodie.datasource.write.operation": operation})
    assert result.instant_time
    return result.instant_time


def _insert_then_upsert(spark: Any, path: Path, opts: dict[str, str]) -> list[str]:
    """Commit 1 inserts ids 0-11; commit 2 updates ids 0-3 (log files on MOR) and inserts 12-13."""
    first = _write(spark, path, batch(range(12), 1, "v1"), opts, "insert")
    second = _write(spark, path, batch([0, 1, 2, 3, 12, 13], 2, "v2"), opts, "upsert")
    return [first, second]


def _compacted(spark: Any, path: Path, opts: dict[str, str]) -> list[str]:
    import hudi_sql

    instants = _insert_then_upsert(spark, path, opts)
    assert hudi_sql.compact(spark, str(path), opts)
    return instants


def _rolled_back(spark: Any, path: Path, opts: dict[str, str]) -> list[str]:
    """Three commits, the third (updates and a delete) rolled back: reads must show commit 2's state."""
    import hudi_sql

    instants = _insert_then_upsert(spark, path, opts)
    _write(spark, path, batch([0, 4, 5], 3, "v3"), opts, "upsert")
    _write(spark, path, batch([6], 3, "v3"), opts, "delete")
    hudi_sql.rollback(str(path))
    hudi_sql.rollback(str(path))
    return instants


def _late_update(spark: Any, path: Path, opts: dict[str, str]) -> list[str]:
    """Event-time merging: commit 2 updates ids 0-3 with a lower ordering value than the stored rows
    (they lose in the snapshot) and ids 4-5 with a higher one. An incremental read of commit 2
    merges only what the range wrote, so the losing updates are in it (issue 37, item 3)."""
    event_time = {**opts, "hoodie.datasource.write.payload.class":
                  "org.apache.hudi.common.model.DefaultHoodieRecordPayload"}
    first = _write(spark, path, batch(range(12), 10, "v1"), event_time, "insert")
    second = _write(spark, path, batch([0, 1, 2, 3], 5, "late") + batch([4, 5, 12], 20, "v2"), event_time,
                    "upsert")
    return [first, second]


# (name, table type, key generator, hive-style, how the table is made)
SCENARIOS: list[tuple[str, str, str, bool, Callable[[Any, Path, dict[str, str]], list[str]]]] = [
    ("cow_simple_hive", "COPY_ON_WRITE", "simple", True, _insert_then_upsert),
    ("cow_non_partitioned", "COPY_ON_WRITE", "non_partitioned", False, _insert_then_upsert),
    ("mor_simple", "MERGE_ON_READ", "simple", False, _insert_then_upsert),
    ("mor_complex_hive", "MERGE_ON_READ", "complex", True, _insert_then_upsert),
    ("mor_compacted", "MERGE_ON_READ", "simple", True, _compacted),
    ("cow_rolled_back", "COPY_ON_WRITE", "simple", False, _rolled_back),
    ("mor_rolled_back", "MERGE_ON_READ", "complex", False, _rolled_back),
    ("mor_late_update", "MERGE_ON_READ", "simple", False, _late_update),
]


def _reads(table_type: str, instants: list[str]) -> list[tuple[str, dict[str, str]]]:
    reads: list[tuple[str, dict[str, str]]] = [("snapshot", {})]
    if table_type == "MERGE_ON_READ":
        reads.append(("read_optimized", {"hoodie.datasource.query.type": "read_optimized"}))
    reads.append(("incremental", {"hoodie.datasource.query.type": "incremental",
                                  "hoodie.datasource.read.begin.instanttime": instants[0]}))
    reads.append(("time_travel", {"as.of.instant": instants[0]}))
    return reads


@pytest.mark.parametrize(("name", "table_type", "keygen", "hive_style", "make"), SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])
def test_apache_hudi_reads_ours_same_rows(spark: Any, oracle: Oracle, tmp_path: Path, name: str,
                                          table_type: str, keygen: str, hive_style: bool,
                                          make: Callable[[Any, Path, dict[str, str]], list[str]]) -> None:
    path = tmp_path / name
    opts = options(name, table_type=table_type, keygen=keygen, hive_style=hive_style)
    instants = make(spark, path, opts)
    reads = _reads(table_type, instants)
    theirs = oracle.run([{"read": {"path": str(path), "options": o}} for _, o in reads])
    # Every read here has rows to compare: the snapshot, and commit 2's changes after commit 1.
    assert all(result["rows"] for result in theirs), [read for (read, _), r in zip(reads, theirs) if not r["rows"]]
    failures = []
    for (read, read_options), their_rows in zip(reads, theirs):
        mine = ours(spark.read.format("hudi").options(**read_options).load(str(path)))
        try:
            assert_same_rows(mine, their_rows, what=f"{name}/{read}")
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)
    assert apache_metadata_table_disagreements(oracle, path) == []


def apache_metadata_table_disagreements(oracle: Oracle, path: Path) -> list[Any]:
    """The files on which Apache Hudi finds the metadata table and storage disagree (its own check)."""
    view = f"mdt_check_{abs(hash(str(path)))}"
    oracle.sql(f"DROP TABLE IF EXISTS {view}")
    oracle.sql(f"CREATE TABLE {view} USING hudi LOCATION '{path}'")
    try:
        return oracle.sql(f"CALL validate_metadata_table_files(table => '{view}', verbose => false)")["rows"]
    finally:
        oracle.sql(f"DROP TABLE IF EXISTS {view}")
