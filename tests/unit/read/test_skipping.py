"""Data skipping's rules: a file is left out only when its statistics prove no row can match."""

from __future__ import annotations

import datetime
import decimal
import math

import pytest

from hudi_sql.metadata.records import ColumnStats, StatKind, StatValue
from hudi_sql.model.file_group import BaseFile, FileGroupId, FileSlice, LogFile
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.read.skipping import ColumnPredicate as P
from hudi_sql.read.skipping import column_types, might_match, skip_file_slices

SCHEMA = ('{"type":"record","name":"r","fields":[{"name":"n","type":["null","long"]},'
          '{"name":"x","type":["null","double"]},{"name":"s","type":["null","string"]},'
          '{"name":"d","type":["null",{"type":"int","logicalType":"date"}]},'
          '{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}]},'
          '{"name":"b","type":["null","bytes"]}]}')


def _stats(kind: StatKind, low: object, high: object, values: int = 10, nulls: int = 0) -> ColumnStats:
    wrap = (lambda v: StatValue(kind, v) if v is not None else None)
    return ColumnStats("f.parquet", "c", wrap(low), wrap(high), values, nulls)


LONGS = _stats(StatKind.LONG, 10, 20)


@pytest.mark.parametrize(("predicate", "expected"), [
    (P("n", "=", (15,)), True), (P("n", "=", (21,)), False), (P("n", "=", (9,)), False),
    (P("n", "in", (1, 2, 20)), True), (P("n", "in", (1, 2)), False),
    (P("n", "<", (10,)), False), (P("n", "<=", (10,)), True), (P("n", ">", (20,)), False), (P("n", ">=", (20,)), True),
    (P("n", ">", (decimal.Decimal("19.5"),)), True), (P("n", "!=", (15,)), True),
    (P("n", "=", ("15",)), True),  # a string for a number: Spark casts, we cannot tell
    (P("n", "is_null"), False), (P("n", "is_not_null"), True),
])
def test_long_column_ranges(predicate: P, expected: bool) -> None:
    assert might_match(predicate, LONGS, "long") is expected


def test_not_equal_rules_out_only_a_file_of_that_one_value() -> None:
    assert not might_match(P("n", "!=", (7,)), _stats(StatKind.LONG, 7, 7))
    assert not might_match(P("n", "!=", (7,)), _stats(StatKind.LONG, 7, 7, nulls=1))  # NULL <> 7 is not true
    assert might_match(P("n", "!=", (7,)), _stats(StatKind.LONG, 7, 8))


def test_all_null_file_matches_only_is_null() -> None:
    nulls = _stats(StatKind.LONG, None, None, values=4, nulls=4)
    assert not might_match(P("n", "=", (1,)), nulls)
    assert might_match(P("n", "is_null"), nulls)
    assert not might_match(P("n", "is_not_null"), nulls)


def test_doubles_never_rule_out_greater_than_because_of_nan() -> None:
    doubles = _stats(StatKind.DOUBLE, -1.0, 3.0)
    assert might_match(P("x", ">", (5.0,)), doubles)
    assert not might_match(P("x", "<", (-2.0,)), doubles)
    assert might_match(P("x", "=", (math.nan,)), doubles)


def test_strings_dates_and_timestamps() -> None:
    assert not might_match(P("s", "=", ("zzz",)), _stats(StatKind.STRING, "a", "m"), "string")
    days = _stats(StatKind.DATE, 19723, 19725)  # 2024-01-01 .. 2024-01-03
    assert might_match(P("d", "=", (datetime.date(2024, 1, 2),)), days, "date")
    assert not might_match(P("d", ">", (datetime.date(2024, 1, 3),)), days, "date")
    micros = _stats(StatKind.LONG, 0, 1_000_000)
    late = datetime.datetime(1970, 1, 1, 0, 0, 2, tzinfo=datetime.timezone.utc)
    assert not might_match(P("ts", ">=", (late,)), micros, "timestamp-micros")
    assert might_match(P("ts", ">=", (late,)), micros, "long")  # a datetime for a plain long: unknown
    assert might_match(P("ts", ">=", (late.replace(tzinfo=None),)), micros, "timestamp-micros")  # no zone: unknown


def test_bytes_are_never_compared() -> None:
    assert might_match(P("b", "=", (b"\x00",)), _stats(StatKind.BYTES, b"\x01", b"\x02"), "bytes")


def test_a_decimal_range_stored_as_unscaled_bytes_is_compared_as_decimals() -> None:
    def raw(value: str) -> bytes:
        return int(decimal.Decimal(value).scaleb(15)).to_bytes(8, "big", signed=True)

    stored = _stats(StatKind.BYTES, raw("-1.5"), raw("19.15"))
    assert not might_match(P("amount", ">", (decimal.Decimal(20),)), stored, "decimal")
    assert might_match(P("amount", "=", (decimal.Decimal("-1.5"),)), stored, "decimal")


def _slice(partition: str, base: str | None, *logs: str) -> FileSlice:
    base_file = BaseFile(f"/t/{partition}/{base}", 1, BaseFileName.parse(base)) if base else None
    log_files = tuple(LogFile(f"/t/{partition}/{n}", 1, LogFileName.parse(n)) for n in logs)
    file_id = (base_file.file_id if base_file else log_files[0].file_id)
    return FileSlice(FileGroupId(partition, file_id), "20240101000000000", base_file, log_files)


def test_slices_are_kept_when_any_of_their_files_may_match() -> None:
    low = _slice("p", "a-0_0-1-1_20240101000000000.parquet")
    high = _slice("p", "b-0_0-1-1_20240101000000000.parquet")
    logged = _slice("p", "c-0_0-1-1_20240101000000000.parquet", ".c-0_20240101000000000.log.1_0-1-1")
    unknown = _slice("p", "d-0_0-1-1_20240101000000000.parquet")
    stats = {("p", s.base_file.file_name): {"n": _stats(StatKind.LONG, lo, hi)}  # type: ignore[union-attr]
             for s, (lo, hi) in ((low, (1, 5)), (high, (50, 60)), (logged, (1, 5)))}
    result = skip_file_slices([low, high, logged, unknown], [P("N", ">", (40,))], stats, column_types(SCHEMA))
    assert result.kept == (high, logged, unknown)  # the log file has no statistics: it may match
    assert (result.skipped, result.total) == (1, 4)


def test_predicates_on_unknown_columns_are_ignored() -> None:
    only = _slice("p", "a-0_0-1-1_20240101000000000.parquet")
    result = skip_file_slices([only], [P("nope", "=", (1,))], {}, column_types(SCHEMA))
    assert result.kept == (only,) and result.predicates == ()
