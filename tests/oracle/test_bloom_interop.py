"""Apache Hudi's bloom index on files hudi-sql wrote, and ours on Apache Hudi's.

An upsert with the bloom index decides update or insert from the bloom filter and key range in
each base file's footer, then confirms candidates by reading the file. A filter the other
engine cannot read, or a key range it reads wrongly, shows up as a duplicate key (an update
taken for an insert) or as an error. So each engine upserts, with ``hoodie.index.type=BLOOM``
(and its metadata table off, so the footers are what it reads), into a table the other one
wrote; the keys must stay unique and both engines must read the same rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours

import hudi_sql

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

SCHEMA = "id INT, name STRING, price DOUBLE, ts BIGINT, city STRING"
OPTIONS = {
    "hoodie.table.name": "bloom_t",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.operation": "upsert",
    "hoodie.index.type": "BLOOM",
    "hoodie.metadata.enable": "false",
    "hoodie.bloom.index.use.metadata": "false",
}
#: 200 keys over two partitions: enough rows for real key ranges and filters.
FIRST = [(i, f"n{i}", float(i), 1, "sf" if i % 2 else "la") for i in range(200)]
#: Half updates of existing keys (both partitions), half new keys.
SECOND = [(i, f"u{i}", i + 0.5, 2, "sf" if i % 2 else "la") for i in range(100, 300)]


def _rows(data: list[tuple[Any, ...]]) -> list[list[Any]]:
    return [list(r) for r in data]


def _both_read(spark: Any, oracle: Oracle, path: Path, what: str) -> None:
    mine = ours(spark.read.format("hudi").load(str(path)).select("id", "name", "price", "ts", "city"))
    theirs = oracle.python(
        "result = spark.read.format('hudi').option('hoodie.metadata.enable', 'false').load(path)"
        ".select('id', 'name', 'price', 'ts', 'city')", path=str(path))
    assert_same_rows(mine, theirs, what=what)
    keys = [row[0] for row in mine["rows"]]
    assert len(keys) == len(set(keys)) == 300, f"{what}: {len(keys)} rows for {len(set(keys))} keys"


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_apache_hudi_bloom_index_finds_keys_in_our_files(spark: Any, oracle: Oracle, tmp_path: Path,
                                                         table_type: str) -> None:
    path = tmp_path / "ours_first"
    options = {**OPTIONS, "hoodie.datasource.write.table.type": table_type}
    hudi_sql.write(spark.createDataFrame(FIRST, SCHEMA), str(path), options)
    oracle.run([{"write": {"path": str(path), "schema": SCHEMA, "rows": _rows(SECOND), "options": options}}])
    _both_read(spark, oracle, path, f"{table_type}: Apache Hudi upserted into ours")


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_our_bloom_index_finds_keys_in_apache_hudi_files(spark: Any, oracle: Oracle, tmp_path: Path,
                                                         table_type: str) -> None:
    path = tmp_path / "apache_first"
    options = {**OPTIONS, "hoodie.datasource.write.table.type": table_type}
    oracle.run([{"write": {"path": str(path), "schema": SCHEMA, "rows": _rows(FIRST), "options": options}}])
    hudi_sql.write(spark.createDataFrame(SECOND, SCHEMA), str(path), options)
    _both_read(spark, oracle, path, f"{table_type}: hudi-sql upserted into Apache Hudi's")
