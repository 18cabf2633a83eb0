"""The metadata table in use: data skipping, the bloom index reading from it, its procedures.

One table of four commits (four base files per partition, each holding a distinct range of
``n``), column statistics and bloom filters on, is shared by the tests. A query's answer must be
the same with data skipping as without, while reading only the files whose ranges overlap its
filter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sql_session import fresh_database

import hudi_sql

pytestmark = pytest.mark.spark

SCHEMA = "id string, p string, ts long, n long, s string"
OPTIONS = {
    "hoodie.table.name": "skip_t",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.parquet.small.file.limit": "0",
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.metadata.index.bloom.filter.enable": "true",
}


def _batch(start: int, ts: int = 1) -> list[tuple[Any, ...]]:
    return [(f"k{i:03d}", f"p{i % 2}", ts, i, f"s{i:03d}") for i in range(start, start + 10)]


@pytest.fixture(scope="module")
def table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    path = tmp_path_factory.mktemp("metadata_table") / "skip_t"
    for start in range(0, 40, 10):
        hudi_sql.write(spark.createDataFrame(_batch(start), SCHEMA), str(path), OPTIONS)
    with fresh_database(spark, "metadata_table_tests") as db:
        db.sql(f"CREATE TABLE skip_t USING hudi LOCATION '{path}'")
        yield db, path


def _explain_skipping(db: Any, query: str) -> tuple[int, int]:
    plan = db.sql(f"EXPLAIN {query}").collect()[0][0]
    found = re.search(r"data skipping: (\d+) of (\d+) file slices skipped", plan)
    assert found, plan
    return int(found.group(1)), int(found.group(2))


def _read(db: Any, query: str) -> tuple[list[tuple[Any, ...]], int]:
    """The sorted rows of *query*, and the files Spark's Parquet scans read for them, from their
    own metric (``numFiles``), which knows nothing of the metadata table."""
    frame = db.sql(query)
    rows = sorted(tuple(r) for r in frame.collect())
    files, nodes = 0, [frame._jdf.queryExecution().executedPlan()]
    while nodes:
        node = nodes.pop()
        if node.nodeName().startswith("Scan parquet"):
            files += int(node.metrics().apply("numFiles").value())
        children = node.children().iterator()
        while children.hasNext():
            nodes.append(children.next())
    return rows, files


@pytest.mark.parametrize(("where", "kept"), [
    ("n >= 12 AND n < 18", 2),  # the second commit's two files: [10, 18] and [11, 19]
    ("n IN (3, 35)", 4),  # [0, 8], [1, 9], [30, 38], [31, 39]
    ("s = 's021'", 2),  # ['s020', 's028'] and ['s021', 's029']
    ("n > 100", 0),
    ("n IS NULL", 0),
    ("n + 0 = 12", 8),  # not a column against literals: every file is read
])
def test_data_skipping_reads_only_overlapping_files_and_returns_the_same_rows(
        table: tuple[Any, Path], where: str, kept: int) -> None:
    db, _ = table
    query = f"SELECT id, n FROM skip_t WHERE {where}"
    without, files_read_without = _read(db, query)
    db.sql("SET hoodie.enable.data.skipping=true")
    try:
        skipped, total = _explain_skipping(db, query)
        with_skipping, files_read = _read(db, query)
    finally:
        db.sql("RESET hoodie.enable.data.skipping")
    assert with_skipping == without
    assert files_read_without == 8
    assert (total - skipped, total) == (kept, 8)
    assert files_read == kept


def test_procedures_show_and_validate_the_metadata_table(table: tuple[Any, Path]) -> None:
    db, path = table
    partitions = [r[0] for r in db.sql("CALL show_metadata_table_partitions(table => 'skip_t')").collect()]
    assert partitions == ["p0", "p1"]
    files = {r[0] for r in db.sql("CALL show_metadata_table_files(table => 'skip_t', partition => 'p0')").collect()}
    assert files == {f.name for f in (path / "p0").glob("*.parquet")}
    assert db.sql("CALL validate_metadata_table_files(table => 'skip_t')").collect() == []
    assert len(db.sql("CALL validate_metadata_table_files(table => 'skip_t', verbose => true)").collect()) == 8
    stats = db.sql("CALL show_metadata_table_column_stats(table => 'skip_t', partition => 'p1', "
                   "targetColumns => 'n')").collect()
    assert sorted((r["min_value"], r["max_value"]) for r in stats) == [
        ("1", "9"), ("11", "19"), ("21", "29"), ("31", "39")]


def test_bloom_index_reads_key_ranges_and_bloom_filters_from_the_metadata_table(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hudi_sql.index import bloom

    monkeypatch.setattr(bloom, "_KEY_RANGES", {})
    path = tmp_path / "bloom_mdt"
    options = {**OPTIONS, "hoodie.index.type": "BLOOM", "hoodie.bloom.index.use.metadata": "true"}
    for start in range(0, 30, 10):
        hudi_sql.write(spark.createDataFrame(_batch(start), SCHEMA), str(path), options)
    result = hudi_sql.write(spark.createDataFrame(_batch(5, ts=2) + _batch(40, ts=2), SCHEMA), str(path), options)
    stats = result.index_stats
    assert isinstance(stats, bloom.BloomIndexStats)
    assert (result.num_updated, result.num_inserted) == (10, 10)
    assert stats.candidate_files == 6 and stats.footers_read == 0, "every range came from the metadata table"
    assert stats.files_range_matched == 4 and stats.bloom_filters_loaded == 4
    rows = {r["id"]: r["ts"] for r in hudi_sql.read(spark, str(path)).collect()}
    assert len(rows) == 40 and sum(1 for ts in rows.values() if ts == 2) == 20


def test_create_and_delete_metadata_table_procedures(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "no_mdt"
    hudi_sql.write(spark.createDataFrame(_batch(0), SCHEMA), str(path), {**OPTIONS, "hoodie.metadata.enable": "false",
                   "hoodie.metadata.index.column.stats.enable": "false",
                   "hoodie.metadata.index.bloom.filter.enable": "false"})
    with fresh_database(spark, "metadata_table_procs") as db:
        db.sql(f"CREATE TABLE no_mdt USING hudi LOCATION '{path}'")
        assert not (path / ".hoodie" / "metadata").exists()
        message = db.sql("CALL create_metadata_table(table => 'no_mdt')").collect()[0][0]
        assert "(files)" in message
        assert db.sql("CALL validate_metadata_table_files(table => 'no_mdt')").collect() == []
        db.sql("CALL delete_metadata_table(table => 'no_mdt')").collect()
        assert not (path / ".hoodie" / "metadata").exists()
        assert db.sql("SELECT count(*) FROM no_mdt").collect()[0][0] == 10
