"""The metadata table between the two engines: each reads the other's, and they take turns keeping it.

* Apache Hudi reads a table hudi-sql wrote with the ``column_stats`` and ``bloom_filters``
  partitions on: its validation finds the ``files`` partition in step with storage, its data
  skipping on our column statistics returns our rows while reading fewer files.
* hudi-sql reads a table Apache Hudi wrote the same way: the index records we would write for its
  files are the records it wrote (statistics, bloom filters, keys), and our data skipping on its
  column statistics returns its rows, skipping files.
* The engines take turns upserting one table with both indexes and the bloom index reading from
  the metadata table: after every commit the rows agree and Apache Hudi's validation passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from oracle_tables import SCHEMA, batch, options, spark_rows
from test_apache_reads_ours import apache_metadata_table_disagreements

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

INDEXES = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.metadata.index.bloom.filter.enable": "true",
    "hoodie.metadata.compact.max.delta.commits": "3",
    "hoodie.parquet.small.file.limit": "0",  # a new file group per commit and partition: files to skip
}
SKIPPING = {"hoodie.metadata.enable": "true", "hoodie.enable.data.skipping": "true"}
#: Selective on a data column: ids 20-23 of 40 (price = id * 1.25 + ts).
FILTER = "price > 27.0 AND price < 33.0"

# Apache Hudi's rows and the number of files its scan read, for one filtered read (a PySpark
# snippet run in its session: the scan's "number of files read" metric after the query ran).
_APACHE_FILTERED_READ = """
df = spark.read.format('hudi').options(**opts).load(path).where(condition)
rows = df.collect()

def scans(plan):
    name = plan.getClass().getSimpleName()
    if name == 'AdaptiveSparkPlanExec':
        return scans(plan.executedPlan())
    found = [plan] if name.endswith('ScanExec') else []
    children = plan.children().iterator()
    while children.hasNext():
        found += scans(children.next())
    return found

read = 0
for scan in scans(df._jdf.queryExecution().executedPlan()):
    metrics = scan.metrics()
    if metrics.contains('numFiles'):
        read += int(metrics.apply('numFiles').value())
result = df.withColumn('_files_read', __import__('pyspark.sql.functions', fromlist=['lit']).lit(read))
"""


def _write(spark: Any, path: Path, rows: list[list[Any]], opts: dict[str, str], operation: str = "upsert") -> str:
    import hudi_sql

    result = hudi_sql.write(spark.createDataFrame(spark_rows(rows), SCHEMA), str(path),
                            {**opts, "hoodie.datasource.write.operation": operation})
    assert result.instant_time
    return result.instant_time


def _apache_write(oracle: Oracle, path: Path, rows: list[list[Any]], opts: dict[str, str],
                  operation: str = "upsert") -> None:
    oracle.run([{"write": {"path": str(path), "schema": SCHEMA, "mode": "append", "rows": rows,
                           "options": {**opts, "hoodie.datasource.write.operation": operation}}}])


def _apache_filtered(oracle: Oracle, path: Path) -> tuple[dict[str, Any], int]:
    """Apache Hudi's filtered rows (without the helper column) and the files its scan read."""
    result = oracle.python(_APACHE_FILTERED_READ, path=str(path), opts=SKIPPING, condition=FILTER)
    position = result["columns"].index("_files_read")
    files_read = result["rows"][0][position] if result["rows"] else 0
    rows = {"columns": result["columns"][:position],
            "rows": [row[:position] for row in result["rows"]]}
    return rows, files_read


def _our_filtered(spark: Any, path: Path) -> tuple[dict[str, Any], int, int]:
    """Our filtered rows through SQL, and the file slices skipped of the total (EXPLAIN's line)."""
    import re

    import hudi_sql

    db = hudi_sql.connect(spark)
    for key, value in SKIPPING.items():
        db.sql(f"SET {key}={value}")
    try:
        query = f"SELECT * FROM hudi.`{path}` WHERE {FILTER}"
        plan = db.sql(f"EXPLAIN {query}").collect()[0][0]
        found = re.search(r"data skipping: (\d+) of (\d+) file slices skipped", plan)
        assert found, plan
        return ours(db.sql(query)), int(found.group(1)), int(found.group(2))
    finally:
        for key in SKIPPING:
            db.sql(f"RESET {key}")


def _base_files(path: Path) -> list[tuple[str, Path]]:
    return sorted((p.parent.relative_to(path).as_posix(), p) for p in path.rglob("*.parquet")
                  if ".hoodie" not in p.parts)


def _live_base_files(path: Path) -> set[tuple[str, str]]:
    """(partition, name) of the latest base files, from a listing of storage."""
    from hudi_sql.table.fs_view import FileSystemView
    from hudi_sql.table.meta_client import TableMetaClient

    view = FileSystemView(TableMetaClient.load(str(path)), use_metadata=False)
    return {(s.partition_path, s.base_file.file_name) for s in view.latest_file_slices() if s.base_file is not None}


def _index_records(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(column statistics, bloom filters) of the table's metadata table, live records by key."""
    from hudi_sql.metadata.layout import MetadataPartition
    from hudi_sql.metadata.reader import MetadataTableReader
    from hudi_sql.table.meta_client import TableMetaClient

    reader = MetadataTableReader.open(TableMetaClient.load(str(path)))
    assert reader is not None
    stats = {k: r for k, r in reader.read(MetadataPartition.COLUMN_STATS).items() if not r.is_tombstone}
    blooms = {k: r for k, r in reader.read(MetadataPartition.BLOOM_FILTERS).items() if not r.is_tombstone}
    return stats, blooms


def _as_written(stats: Any) -> Any:
    """*stats* with a decimal range Apache Hudi's compaction rewrote as unscaled bytes (scale 15)
    back as the decimals its writer stored (docs/compatibility.md)."""
    import dataclasses
    import decimal

    from hudi_sql.metadata.records import StatKind, StatValue

    def decimal_of(value: Any) -> Any:
        if value is None or value.kind is not StatKind.BYTES or stats.column_name != "amount":
            return value
        return StatValue(StatKind.DECIMAL, decimal.Decimal(int.from_bytes(value.value, "big", signed=True)).scaleb(-15))

    return dataclasses.replace(stats, min_value=decimal_of(stats.min_value), max_value=decimal_of(stats.max_value))


def test_apache_hudi_reads_our_index_partitions_and_skips_files_with_our_statistics(
        spark: Any, oracle: Oracle, tmp_path: Path) -> None:
    path = tmp_path / "ours_indexed"
    opts = options("ours_indexed", table_type="COPY_ON_WRITE", **INDEXES)
    for start in range(0, 40, 10):  # four commits of ten ids each: one base file per partition each
        _write(spark, path, batch(range(start, start + 10), 1, "v1"), opts, "insert")
    _write(spark, path, batch([1, 22], 2, "v2"), opts)
    assert apache_metadata_table_disagreements(oracle, path) == []
    theirs, files_read = _apache_filtered(oracle, path)
    mine, skipped, total = _our_filtered(spark, path)
    assert_same_rows(mine, theirs, what="data skipping on our column statistics")
    assert mine["rows"], "the filter matches rows"
    assert 0 < files_read < len(_live_base_files(path)), "Apache Hudi read every file"
    assert 0 < skipped < total


def test_we_read_apache_hudis_index_partitions_and_write_the_same_records(
        spark: Any, oracle: Oracle, tmp_path: Path) -> None:
    from hudi_sql.metadata.index_keys import bloom_filter_key, column_stats_key
    from hudi_sql.metadata.writer.file_stats import footer_bloom_filter, parquet_column_stats
    from hudi_sql.model.schema import META_FIELDS
    from hudi_sql.storage.fs import Storage

    path = tmp_path / "theirs_indexed"
    opts = options("theirs_indexed", table_type="COPY_ON_WRITE", **INDEXES)
    for start in range(0, 40, 10):
        _apache_write(oracle, path, batch(range(start, start + 10), 1, "v1"), opts, "insert")
    _apache_write(oracle, path, batch([1, 22], 2, "v2"), opts)
    stats, blooms = _index_records(path)
    live = {name for _, name in _live_base_files(path)}
    columns = list(META_FIELDS) + [c.split()[0] for c in SCHEMA.split(", ")]
    expected_stats, expected_blooms = {}, {}
    for partition, file in _base_files(path):
        if file.name not in live:
            continue
        for entry in parquet_column_stats(str(file), file.name, columns, Storage()):
            expected_stats[column_stats_key(partition, file.name, entry.column_name)] = entry
        type_code, text = footer_bloom_filter(str(file), Storage()) or ("", b"")
        expected_blooms[bloom_filter_key(partition, file.name)] = (type_code, text)
    assert {k: _as_written(r.column_stats) for k, r in stats.items() if k in expected_stats} == expected_stats
    assert {k: (r.bloom_filter.type_code, r.bloom_filter.bloom_filter) for k, r in blooms.items()
            if k in expected_blooms} == expected_blooms
    theirs, _ = _apache_filtered(oracle, path)
    mine, skipped, total = _our_filtered(spark, path)
    assert_same_rows(mine, theirs, what="our data skipping on Apache Hudi's column statistics")
    assert 0 < skipped < total


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_engines_take_turns_keeping_one_metadata_table_with_both_indexes(
        spark: Any, oracle: Oracle, tmp_path: Path, table_type: str) -> None:
    name = f"turns_{table_type.lower()}"
    path = tmp_path / name
    opts = options(name, table_type=table_type, **INDEXES, **{
        "hoodie.index.type": "BLOOM", "hoodie.bloom.index.use.metadata": "true"})
    steps = [
        ("apache insert", lambda: _apache_write(oracle, path, batch(range(20), 1, "a1"), opts, "insert")),
        ("our upsert", lambda: _write(spark, path, batch([0, 5, 20, 21], 2, "o2"), opts)),
        ("apache upsert", lambda: _apache_write(oracle, path, batch([1, 5, 22], 3, "a3"), opts)),
        ("our delete", lambda: _write(spark, path, batch([2, 20], 4, "o4"), opts, "delete")),
        ("our upsert", lambda: _write(spark, path, batch([3, 23], 5, "o5"), opts)),
        ("apache upsert", lambda: _apache_write(oracle, path, batch([4, 24], 6, "a6"), opts)),
    ]
    failures = []
    for what, step in steps:
        step()
        theirs = oracle.read(path)
        try:
            assert_same_rows(ours(spark.read.format("hudi").load(str(path))), theirs, what=f"{name}: {what}")
        except AssertionError as exc:
            failures.append(str(exc))
        disagreements = apache_metadata_table_disagreements(oracle, path)
        if disagreements:
            failures.append(f"{name}: after {what}, Apache Hudi's validation: {disagreements[:3]}")
    assert not failures, "\n".join(failures)
    from hudi_sql.metadata.index_keys import bloom_filter_key, column_stats_key

    stats, blooms = _index_records(path)
    live = _live_base_files(path)
    assert {bloom_filter_key(p, n) for p, n in live} <= set(blooms), "a live base file has no bloom filter record"
    import pyarrow.parquet as pq

    with_rows = {(p, n) for p, n in live if pq.read_metadata(path / p / n).num_rows}  # an emptied group has none
    assert {column_stats_key(p, n, "price") for p, n in with_rows} <= set(stats), "a live base file has no statistics"
