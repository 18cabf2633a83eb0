"""``CustomKeyGenerator`` tables (``region:SIMPLE,event_time:TIMESTAMP``) shared with Apache Hudi 0.15.

Each engine creates one table with the same DataFrame options and rows, then the other engine
upserts it (updates and new keys). Afterwards:

* both engines read both tables alike, meta columns included;
* the two tables hold the same record keys under the same partition paths, in the same folders
  (the timestamp part formatted with the output format and time zone, the simple part as is);
* ``hoodie.properties`` declares the key generator and its partition fields the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from oracle_tables import keygen_properties

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

SCHEMA = "id INT, name STRING, ts BIGINT, region STRING, event_time STRING"
# (name, table type, hive-style, output date format, output time zone)
CASES = [
    ("cow_plain_paths", "COPY_ON_WRITE", False, "yyyy/MM/dd", "Asia/Tokyo"),
    ("mor_hive_style", "MERGE_ON_READ", True, "yyyyMMdd", "UTC"),
]
# Apache Hudi 0.15's lazy file index cannot map a path like "us/2024/03/11" onto the two partition
# columns and fails ("likely non-encoded slashes ... switching listing mode to eager"); its eager
# listing, which it names as the workaround, reads the columns from the files.
APACHE_READ = {"hoodie.metadata.enable": "false", "hoodie.datasource.read.file.index.listing.mode": "eager"}


def _rows(ids: list[int], ts: int, tag: str) -> list[list[Any]]:
    """Late-evening UTC times, so an output zone east of UTC moves some rows to the next day."""
    return [[i, f"{tag}-{i}", ts, ("us", "eu")[i % 2], f"2024-03-{10 + i % 5:02d} {18 + i % 6:02d}:15:00"]
            for i in ids]


def _options(name: str, table_type: str, hive_style: bool, output_format: str, output_zone: str,
             operation: str) -> dict[str, str]:
    return {
        "hoodie.table.name": name,
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.operation": operation,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "region:SIMPLE,event_time:TIMESTAMP",
        "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.CustomKeyGenerator",
        "hoodie.datasource.write.hive_style_partitioning": str(hive_style).lower(),
        "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
        "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd HH:mm:ss",
        "hoodie.keygen.timebased.input.timezone": "UTC",
        "hoodie.keygen.timebased.output.dateformat": output_format,
        "hoodie.keygen.timebased.output.timezone": output_zone,
    }


def _ours_write(spark: Any, path: Path, rows: list[list[Any]], options: dict[str, str]) -> None:
    import hudi_sql

    assert hudi_sql.write(spark.createDataFrame([tuple(r) for r in rows], SCHEMA), str(path), options).instant_time


def _theirs_write(oracle: Oracle, path: Path, rows: list[list[Any]], options: dict[str, str]) -> None:
    oracle.run([{"write": {"path": str(path), "options": options, "mode": "append", "rows": rows,
                           "schema": SCHEMA}}])


def _partition_folders(path: Path) -> set[str]:
    """Folders below the base path that hold data files (base or log), as relative paths."""
    data = [f for f in path.rglob("*") if f.is_file() and ".hoodie" not in f.relative_to(path).parts
            and (f.suffix == ".parquet" or ".log." in f.name)]
    return {str(f.parent.relative_to(path)) for f in data}


@pytest.mark.parametrize(("name", "table_type", "hive_style", "output_format", "output_zone"), CASES,
                         ids=[c[0] for c in CASES])
def test_custom_key_generator_tables_shared_with_apache_hudi(
        spark: Any, oracle: Oracle, tmp_path: Path, name: str, table_type: str, hive_style: bool,
        output_format: str, output_zone: str) -> None:
    theirs, mine = tmp_path / "created_by_apache_hudi", tmp_path / "created_by_hudi_sql"
    insert = _options(name, table_type, hive_style, output_format, output_zone, "insert")
    upsert = {**insert, "hoodie.datasource.write.operation": "upsert"}
    first, second = _rows(list(range(10)), 1, "v1"), _rows([0, 1, 2, 3, 10, 11], 2, "v2")
    _theirs_write(oracle, theirs, first, insert)
    _ours_write(spark, mine, first, insert)
    _ours_write(spark, theirs, second, upsert)  # each engine upserts the table the other created
    _theirs_write(oracle, mine, second, upsert)

    failures = []
    for table in (theirs, mine):
        their_read = oracle.read(table, APACHE_READ)
        try:
            assert_same_rows(ours(spark.read.format("hudi").load(str(table))), their_read,
                             what=f"{name}/{table.name}/snapshot")
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)

    columns = ["_hoodie_record_key", "_hoodie_partition_path", "id", "name", "ts", "region", "event_time"]
    snapshot = {t: ours(spark.read.format("hudi").load(str(t)).select(*columns)) for t in (theirs, mine)}
    assert_same_rows(snapshot[mine], snapshot[theirs], what=f"{name}: the two tables")
    assert len(snapshot[mine]["rows"]) == 12
    assert _partition_folders(mine) == _partition_folders(theirs)
    assert keygen_properties(mine, "hoodie.table.type") == keygen_properties(theirs, "hoodie.table.type")
