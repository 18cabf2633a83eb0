"""Column statistics and bloom filters from a data file's footer, as Apache Hudi reads them."""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_sql.index.bloom_footer import footer_metadata
from hudi_sql.metadata.records import ColumnStats, StatKind
from hudi_sql.metadata.writer.file_stats import (
    column_stats_of_records,
    footer_bloom_filter,
    parquet_column_stats,
)
from hudi_sql.storage.fs import Storage

D = decimal.Decimal


@pytest.fixture
def table() -> pa.Table:
    return pa.table({
        "i": pa.array([3, None, -7, 12], pa.int32()),
        "l": pa.array([2 ** 40, 5, None, 1], pa.int64()),
        "s": pa.array(["b", "a", "é", None]),
        "d": pa.array([1.5, -2.0, 0.0, None], pa.float64()),
        "day": pa.array([datetime.date(2024, 1, 2), datetime.date(1969, 12, 31), None, None]),
        "ts": pa.array([1_000_000, 5, None, 7], pa.timestamp("us", tz="UTC")),
        "dec": pa.array([D("1.25"), D("-3.50"), None, D("0.00")], pa.decimal128(10, 2)),
        "wide": pa.array([D("1.00000000000000000001"), None, None, None], pa.decimal128(38, 20)),
        "bin": pa.array([b"\x01", b"\xff", None, b"\x00"], pa.binary()),
        "flag": pa.array([True, False, None, None]),
        "nothing": pa.array([None, None, None, None], pa.int32()),
        "nested": pa.array([{"x": 1}, None, {"x": 2}, None]),
    })


def _by_column(stats: list[ColumnStats]) -> dict[str, ColumnStats]:
    return {s.column_name: s for s in stats}


def _range(stats: ColumnStats) -> tuple[object, object]:
    return (stats.min_value.value if stats.min_value else None, stats.max_value.value if stats.max_value else None)


def test_parquet_stats_over_row_groups_take_java_types(tmp_path: Path, table: pa.Table) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, row_group_size=2)
    stats = _by_column(parquet_column_stats(str(path), "f.parquet", table.column_names, Storage()))
    assert _range(stats["i"]) == (-7, 12) and stats["i"].min_value.kind is StatKind.INT  # type: ignore[union-attr]
    assert _range(stats["l"]) == (1, 2 ** 40) and stats["l"].min_value.kind is StatKind.LONG  # type: ignore[union-attr]
    assert _range(stats["s"]) == ("a", "é")
    assert _range(stats["day"]) == (-1, 19724) and stats["day"].min_value.kind is StatKind.DATE  # type: ignore[union-attr]
    assert _range(stats["ts"]) == (5, 1_000_000) and stats["ts"].max_value.kind is StatKind.LONG  # type: ignore[union-attr]
    assert _range(stats["dec"]) == (D("-3.500000000000000"), D("1.250000000000000"))
    # row groups merge as Java compares ByteBuffers, by signed bytes: 0x00 is above 0xff there,
    # so the file's "maximum" is 0x00 (readers do not prune on bytes for that reason)
    assert _range(stats["bin"]) == (b"\x00", b"\x00")
    assert _range(stats["flag"]) == (False, True)
    assert (stats["i"].value_count, stats["i"].null_count) == (4, 1)
    assert stats["i"].total_size > 0 and stats["i"].total_uncompressed_size > 0


def test_all_null_column_has_no_range_and_counts_its_nulls(tmp_path: Path, table: pa.Table) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    stats = _by_column(parquet_column_stats(str(path), "f.parquet", ["nothing"], Storage()))
    assert _range(stats["nothing"]) == (None, None)
    assert (stats["nothing"].value_count, stats["nothing"].null_count) == (4, 4)


def test_unstorable_decimal_and_nested_columns_are_not_indexed(tmp_path: Path, table: pa.Table) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    assert _by_column(parquet_column_stats(str(path), "f.parquet", ["wide", "nested", "i"], Storage())).keys() == {"i"}


def test_record_stats_of_a_log_block_have_no_sizes(table: pa.Table) -> None:
    stats = _by_column(column_stats_of_records(table, ".f_1.log.1_0-0-0", ["i", "s", "ts", "nothing", "missing"]))
    assert _range(stats["i"]) == (-7, 12) and _range(stats["s"]) == ("a", "é")
    assert _range(stats["ts"]) == (5, 1_000_000)
    assert (stats["nothing"].null_count, stats["nothing"].value_count, _range(stats["nothing"])) == (4, 4, (None, None))
    assert stats["i"].total_size == 0 and "missing" not in stats


def test_footer_bloom_filter_is_the_serialised_filter_and_its_type(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    footer = footer_metadata(["k1", "k2"])
    pq.write_table(pa.table({"k": ["k1", "k2"]}).replace_schema_metadata(footer), path)
    found = footer_bloom_filter(str(path), Storage())
    assert found is not None and found[0] == "DYNAMIC_V0"
    assert found[1] == footer[b"org.apache.hudi.bloomfilter"]
    pq.write_table(pa.table({"k": ["k1"]}), tmp_path / "plain.parquet")
    assert footer_bloom_filter(str(tmp_path / "plain.parquet"), Storage()) is None
