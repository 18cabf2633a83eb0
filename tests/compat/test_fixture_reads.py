"""Tables written by Apache Hudi read by our reader exactly as by the Rust reader.

For every fixture table: the snapshot (meta columns included), read-optimized for MOR, each
incremental range between consecutive instants, and time travel to the first instant.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from fixture_tables import SampleTable
from table_helpers import META, data_rows, our_table, rows_of, rust_table

from hudi_sql.table.meta_client import TableMetaClient

pytestmark = [pytest.mark.compat, pytest.mark.spark]

TABLES = list(SampleTable)


def _key(table: SampleTable) -> str:
    return "uuid" if "trips" in table.value else "id"


def _compare(ours: Any, rust: Any, table: SampleTable) -> None:
    meta_on = "no_metafields" not in table.value
    if meta_on and rust.num_rows:
        assert rows_of(ours, list(rust.column_names)) == rows_of(rust)
    else:
        assert data_rows(ours, _key(table)) == data_rows(rust.select([c for c in rust.column_names if c not in META]),
                                                         _key(table))


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.value)
def test_fixture_snapshot_equals_rust_reader(spark: Any, table: SampleTable) -> None:
    path = str(table.path())
    _compare(our_table(spark, path), rust_table(path), table)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.value)
def test_fixture_time_travel_to_first_instant_equals_rust_reader(spark: Any, table: SampleTable) -> None:
    path = str(table.path())
    writes = TableMetaClient.load(path).timeline.completed_writes().times()
    if not writes:
        pytest.skip(f"{table.value} has no commit to travel to")
    ours = our_table(spark, path, {"as.of.instant": writes[0]})
    _compare(ours, rust_table(path, as_of=writes[0]), table)


@pytest.mark.parametrize("table", [t for t in TABLES if "no_metafields" not in t.value], ids=lambda t: t.value)
def test_fixture_incremental_ranges_equal_rust_reader(spark: Any, table: SampleTable) -> None:
    path = str(table.path())
    writes = TableMetaClient.load(path).timeline.completed_writes().times()
    if len(writes) < 2:
        pytest.skip(f"{table.value} has fewer than two commits")
    for begin, end in itertools.pairwise(writes):
        options = {"hoodie.datasource.query.type": "incremental",
                   "hoodie.datasource.read.begin.instanttime": begin,
                   "hoodie.datasource.read.end.instanttime": end}
        ours = our_table(spark, path, options)
        rust = rust_table(path, begin=begin, end=end)
        assert ours.num_rows > 0
        _compare(ours, rust, table)


@pytest.mark.parametrize("table", SampleTable.mor_tables(), ids=lambda t: t.value)
def test_fixture_mor_read_optimized_reads_base_files_only(spark: Any, table: SampleTable) -> None:
    path = str(table.path())
    meta = TableMetaClient.load(path)
    ours = our_table(spark, path, {"hoodie.datasource.query.type": "read_optimized"})
    import pyarrow.parquet as pq

    from hudi_sql.table.fs_view import FileSystemView

    expected = sum(pq.ParquetFile(s.base_file.path).metadata.num_rows
                   for s in FileSystemView(meta).latest_file_slices() if s.base_file)
    assert ours.num_rows == expected
