"""hudi-sql reads the tables Apache Hudi writes (its SQL and its DataFrame writer, metadata table on).

After every write Apache Hudi makes, our snapshot (and, on Merge-On-Read, read-optimized)
read of the table must equal Apache Hudi's own read of it, and the file listing we read from its
metadata table (``files`` partition) must name exactly the data files in storage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from oracle_tables import SCHEMA, batch, options

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

RO = {"hoodie.datasource.query.type": "read_optimized"}

SQL_STEPS = [
    ("insert", ("INSERT INTO {t} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), "
                "(3, 'c', 30.0, 1, 'sf'), (4, 'd', 40.0, 1, 'la'), (6, 'f', 60.0, 1, 'la')")),
    ("update", "UPDATE {t} SET price = price * 2, ts = 2 WHERE id IN (1, 2)"),
    ("delete", "DELETE FROM {t} WHERE id = 3"),
    ("merge", ("MERGE INTO {t} t USING (SELECT 4 AS id, 'd2' AS name, 44.0 AS price, 3L AS ts, 'la' AS city "
               "UNION ALL SELECT 5, 'e', 50.0, 3L, 'nyc' UNION ALL SELECT 6, 'f', 0.0, 3L, 'la') s "
               "ON t.id = s.id WHEN MATCHED AND s.price = 0.0 THEN DELETE "
               "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")),
]


def _listing_failures(path: Path, what: str) -> list[str]:
    """The metadata table's listing against storage: every partition, every base and log file
    by name, base files by size too (a log file's size there is what its writers appended)."""
    from hudi_sql.metadata.reader import read_metadata_files

    listing = read_metadata_files(str(path))
    if listing is None:
        return [f"{what}: no metadata table listing"]
    on_disk: dict[str, dict[str, int]] = {}
    for file in path.rglob("*"):
        relative = file.relative_to(path)
        if file.is_file() and relative.parts[0] != ".hoodie" and (
                file.suffix == ".parquet" or ".log." in file.name) and not file.name.endswith(".crc"):
            partition = "" if relative.parent == Path(".") else relative.parent.as_posix()
            on_disk.setdefault(partition, {})[file.name] = file.stat().st_size
    failures = []
    if listing.partitions != sorted(on_disk):
        failures.append(f"{what}: partitions {listing.partitions} in the metadata table, {sorted(on_disk)} in storage")
    for partition, files in on_disk.items():
        listed = listing.files(partition)
        if sorted(listed) != sorted(files):
            failures.append(f"{what}: '{partition}' lists {sorted(listed)}, storage holds {sorted(files)}")
        elif any(listed[n] != size for n, size in files.items() if n.endswith(".parquet")):
            failures.append(f"{what}: '{partition}' base file sizes differ: {listed} / {files}")
    return failures


def _compare(spark: Any, oracle: Oracle, path: Path, what: str, mor: bool) -> list[str]:
    reads = [("snapshot", {})] + ([("read_optimized", RO)] if mor else [])
    theirs = oracle.run([{"read": {"path": str(path), "options": o}} for _, o in reads])
    failures = []
    for (read, read_options), their_rows in zip(reads, theirs):
        mine = ours(spark.read.format("hudi").options(**read_options).load(str(path)))
        try:
            assert_same_rows(mine, their_rows, what=f"{what}/{read}")
        except AssertionError as exc:
            failures.append(str(exc))
    return failures + _listing_failures(path, what)


@pytest.mark.parametrize(("table_type", "partitioned"), [("cow", True), ("mor", False)],
                         ids=["cow_partitioned", "mor_non_partitioned"])
def test_we_read_apache_hudi_sql_tables_same_rows(spark: Any, oracle: Oracle, tmp_path: Path,
                                                  table_type: str, partitioned: bool) -> None:
    name = f"their_sql_{table_type}_{'p' if partitioned else 'np'}"
    path = tmp_path / name
    oracle.sql(f"DROP TABLE IF EXISTS {name}")
    oracle.sql(
        f"CREATE TABLE {name} (id INT, name STRING, price DOUBLE, ts BIGINT, city STRING) USING hudi "
        f"{'PARTITIONED BY (city) ' if partitioned else ''}LOCATION '{path}' "
        f"TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', preCombineField = 'ts')")
    failures = []
    for step, sql in SQL_STEPS:
        oracle.sql(sql.format(t=name))
        failures += _compare(spark, oracle, path, f"{name}/{step}", table_type == "mor")
    if table_type == "mor":
        oracle.sql(f"CALL run_compaction(op => 'scheduleAndExecute', table => '{name}')")
        failures += _compare(spark, oracle, path, f"{name}/compaction", mor=True)
    else:
        latest = oracle.sql(f"CALL show_commits(table => '{name}', limit => 1)")
        instant = latest["rows"][0][latest["columns"].index("commit_time")]
        oracle.sql(f"CALL rollback_to_instant(table => '{name}', instant_time => '{instant}')")
        failures += _compare(spark, oracle, path, f"{name}/rollback", mor=False)
    assert (path / ".hoodie" / "metadata").is_dir(), "Apache Hudi wrote no metadata table"
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_we_read_apache_hudi_datasource_tables_same_rows(spark: Any, oracle: Oracle, tmp_path: Path,
                                                         table_type: str) -> None:
    """Its DataFrame writer: complex keys, hive-style paths, timestamps and decimals; upsert then delete."""
    name = f"their_df_{table_type.lower()}"
    path = tmp_path / name
    opts = options(name, table_type=table_type, keygen="complex", hive_style=True)
    writes = [("insert", batch(range(10), 1, "v1")), ("upsert", batch([0, 1, 2, 10], 2, "v2")),
              ("delete", batch([3, 4], 3, "v3"))]
    failures = []
    for operation, rows in writes:
        oracle.run([{"write": {"path": str(path), "rows": rows, "schema": SCHEMA, "mode": "append",
                               "options": {**opts, "hoodie.datasource.write.operation": operation}}}])
        failures += _compare(spark, oracle, path, f"{name}/{operation}", table_type == "MERGE_ON_READ")
    assert not failures, "\n".join(failures)
