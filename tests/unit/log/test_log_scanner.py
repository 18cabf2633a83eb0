"""Which blocks of a file slice count, and the per-key merge of their records (sections 6.2, 9)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from hudi_sql.errors import HudiSchemaError
from hudi_sql.log.block import (
    NATURAL_ORDER,
    BlockType,
    DataBlock,
    DeleteBlock,
    DeleteRecord,
    OrderingKind,
    OrderingValue,
)
from hudi_sql.log.format import encode_avro_data_block, encode_delete_block, encode_rollback_block
from hudi_sql.log.scanner import RecordBlock, merge_log_records, scan_file_slice_logs

KEY = "_hoodie_record_key"
SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "t_record",
        "namespace": "hoodie.t",
        "fields": [
            {"name": KEY, "type": ["null", "string"], "doc": "", "default": None},
            {"name": "ts", "type": ["null", "long"], "default": None},
            {"name": "v", "type": ["null", "string"], "default": None},
        ],
    }
)
I1, I2, I3, R = "20250101000000001", "20250101000000002", "20250101000000003", "20250101000000009"


def _avro(instant: str, *rows: tuple[str, int, str]) -> bytes:
    return encode_avro_data_block(instant, SCHEMA, [{KEY: k, "ts": ts, "v": v} for k, ts, v in rows])


def _delete(instant: str, *keys: str) -> bytes:
    return encode_delete_block(instant, SCHEMA, [DeleteRecord(k, "") for k in keys])


def _data(instant: str, *rows: tuple[str, int | None, str]) -> DataBlock:
    table = pa.table(
        {
            KEY: [r[0] for r in rows],
            "ts": pa.array([r[1] for r in rows], pa.int64()),
            "v": [r[2] for r in rows],
        }
    )
    return DataBlock(instant, SCHEMA, table)


def _deletes(instant: str, *records: DeleteRecord) -> DeleteBlock:
    return DeleteBlock(instant, SCHEMA, records)


def _values(result_records: pa.Table) -> dict[str, str]:
    return dict(zip(result_records.column(KEY).to_pylist(), result_records.column("v").to_pylist()))


def test_scan_file_slice_logs_rollback_target_drops_blocks_in_every_file() -> None:
    files = [
        (".f_0.log.1_0-1-0", _avro(I1, ("a", 1, "first"))),
        (".f_0.log.2_0-1-0", _avro(I2, ("a", 2, "failed")) + _delete(I2, "b")),
        (".f_0.log.3_1-0-1", encode_rollback_block(R, I2)),
        (".f_0.log.4_0-1-0", _avro(I3, ("c", 3, "later"))),
    ]

    result = scan_file_slice_logs(files, completed_instants={I1, I2, I3})

    assert [b.instant_time for b in result.blocks] == [I1, I3]
    assert (result.total_blocks, result.rollback_blocks, result.skipped_blocks) == (5, 1, 2)
    assert result.rolled_back_instants == frozenset({I2})
    assert result.delete_records == ()


def test_scan_file_slice_logs_rollback_before_target_block_still_drops_it() -> None:
    # V2 / hudi-rs semantics: targets are collected first, wherever the command block sits.
    files = [("a", encode_rollback_block(R, I2)), ("b", _avro(I2, ("a", 2, "x")))]

    result = scan_file_slice_logs(files, completed_instants={I2})

    assert result.blocks == ()


def test_scan_file_slice_logs_incomplete_instant_skipped() -> None:
    files = [("a", _avro(I1, ("a", 1, "x")) + _avro(I2, ("b", 1, "y")))]

    result = scan_file_slice_logs(files, completed_instants={I1})

    assert [b.instant_time for b in result.blocks] == [I1]
    assert result.skipped_blocks == 1


def test_scan_file_slice_logs_beyond_max_instant_skipped() -> None:
    files = [("a", _avro(I1, ("a", 1, "x")) + _avro(I3, ("a", 3, "y")) + encode_rollback_block(R, I1))]

    result = scan_file_slice_logs(files, completed_instants={I1, I3}, max_instant=I2)

    assert [b.instant_time for b in result.blocks] == [I1]
    assert result.rollback_blocks == 0


def test_scan_file_slice_logs_archived_instant_counts_as_completed() -> None:
    files = [("a", _avro(I1, ("a", 1, "x")) + _avro(I3, ("a", 3, "y")))]

    result = scan_file_slice_logs(files, completed_instants={I3}, timeline_start=I2)

    assert [b.instant_time for b in result.blocks] == [I1, I3]


def test_scan_file_slice_logs_corrupt_block_counted_and_skipped() -> None:
    torn = _avro(I2, ("b", 2, "torn"))
    files = [("a", _avro(I1, ("a", 1, "x")) + torn[:-5]), ("b", _delete(I3, "a"))]

    result = scan_file_slice_logs(files, completed_instants={I1, I2, I3})

    assert (result.total_blocks, result.corrupt_blocks) == (3, 1)
    assert [type(b) for b in result.blocks] == [DataBlock, DeleteBlock]
    assert result.data_blocks[0].block_type is BlockType.AVRO_DATA
    assert result.delete_records == (DeleteRecord("a", "", NATURAL_ORDER),)


def test_merge_log_records_greater_ordering_wins_over_later() -> None:
    blocks = [_data(I1, ("a", 5, "high")), _data(I2, ("a", 3, "low"))]

    merged = merge_log_records(blocks, ordering_field="ts")

    assert _values(merged.records) == {"a": "high"}


def test_merge_log_records_tie_goes_to_later() -> None:
    blocks = [_data(I1, ("a", 5, "old")), _data(I2, ("a", 5, "new"))]

    assert _values(merge_log_records(blocks, ordering_field="ts").records) == {"a": "new"}


def test_merge_log_records_without_ordering_field_later_wins() -> None:
    blocks = [_data(I1, ("a", 5, "old")), _data(I2, ("a", 3, "new"))]

    assert _values(merge_log_records(blocks).records) == {"a": "new"}


def test_merge_log_records_null_ordering_value_later_wins() -> None:
    blocks = [_data(I1, ("a", 5, "old")), _data(I2, ("a", None, "new"))]

    assert _values(merge_log_records(blocks, ordering_field="ts").records) == {"a": "new"}


def test_merge_log_records_natural_delete_wins_over_greater_ordering() -> None:
    blocks: list[RecordBlock] = [
        _data(I1, ("a", 10**12, "x"), ("b", 1, "y")),
        _deletes(I2, DeleteRecord("a", "p", NATURAL_ORDER)),
    ]

    merged = merge_log_records(blocks, ordering_field="ts")

    assert _values(merged.records) == {"b": "y"}
    assert merged.deletes == (DeleteRecord("a", "p", NATURAL_ORDER),)
    assert merged.deleted_keys == frozenset({"a"})


def test_merge_log_records_none_ordering_delete_is_natural() -> None:
    blocks: list[RecordBlock] = [_data(I1, ("a", 10, "x")), _deletes(I2, DeleteRecord("a", "p"))]

    assert merge_log_records(blocks, ordering_field="ts").deleted_keys == frozenset({"a"})


def test_merge_log_records_event_time_delete_lower_same_type_ignored() -> None:
    delete = DeleteRecord("a", "p", OrderingValue(OrderingKind.LONG, 5))
    blocks: list[RecordBlock] = [_data(I1, ("a", 10, "kept")), _deletes(I2, delete)]

    merged = merge_log_records(blocks, ordering_field="ts")

    assert _values(merged.records) == {"a": "kept"}
    assert merged.deletes == ()


def test_merge_log_records_event_time_delete_equal_applied() -> None:
    blocks: list[RecordBlock] = [
        _data(I1, ("a", 10, "x")),
        _deletes(I2, DeleteRecord("a", "p", OrderingValue(OrderingKind.LONG, 10))),
    ]

    assert merge_log_records(blocks, ordering_field="ts").deleted_keys == frozenset({"a"})


def test_merge_log_records_event_time_delete_other_type_applied() -> None:
    # IntWrapper(5) against a long ts: Java's same-class test fails, so the delete applies (E7).
    blocks: list[RecordBlock] = [
        _data(I1, ("a", 10, "x")),
        _deletes(I2, DeleteRecord("a", "p", OrderingValue(OrderingKind.INT, 5))),
    ]

    assert merge_log_records(blocks, ordering_field="ts").deleted_keys == frozenset({"a"})


def test_merge_log_records_lower_delete_loses_to_the_logged_record_and_applies_without_ordering() -> None:
    delete = DeleteRecord("a", "p", OrderingValue(OrderingKind.LONG, 5))
    blocks: list[RecordBlock] = [_data(I1, ("a", 10, "x")), _deletes(I2, delete)]

    assert merge_log_records(blocks, ordering_field="ts").deletes == ()
    # commit-time ordering (no ordering field): records carry no value, every delete applies
    assert merge_log_records(blocks, ordering_field=None).deletes == (delete,)


def test_merge_log_records_record_after_delete_wins() -> None:
    blocks: list[RecordBlock] = [
        _data(I1, ("a", 10, "x")),
        _deletes(I2, DeleteRecord("a", "p")),
        _data(I3, ("a", 1, "back")),
    ]

    merged = merge_log_records(blocks, ordering_field="ts")

    assert _values(merged.records) == {"a": "back"}
    assert merged.deletes == ()


def test_merge_log_records_delete_after_greater_event_time_delete_ignored() -> None:
    first = DeleteRecord("a", "p", OrderingValue(OrderingKind.LONG, 9))
    second = DeleteRecord("a", "p", OrderingValue(OrderingKind.LONG, 3))

    merged = merge_log_records([_deletes(I1, first), _deletes(I2, second)], ordering_field="ts")

    assert merged.deletes == (first,)


def test_merge_log_records_rows_in_first_appearance_order_across_blocks() -> None:
    blocks = [_data(I1, ("a", 1, "a1"), ("b", 1, "b1")), _data(I2, ("c", 1, "c2"), ("a", 2, "a2"))]

    merged = merge_log_records(blocks, ordering_field="ts")

    assert merged.records.column(KEY).to_pylist() == ["a", "b", "c"]
    assert merged.records.column("v").to_pylist() == ["a2", "b1", "c2"]


def test_merge_log_records_blocks_with_different_columns_promoted() -> None:
    wider = DataBlock(
        I2, SCHEMA, pa.table({KEY: ["b"], "ts": pa.array([1], pa.int64()), "v": ["b"], "extra": [7]})
    )

    merged = merge_log_records([_data(I1, ("a", 1, "a")), wider])

    assert merged.records.column("extra").to_pylist() == [None, 7]


def test_merge_log_records_timestamp_ordering_compared_as_micros() -> None:
    def block(instant: str, micros: int, v: str) -> DataBlock:
        at = pa.array([micros], pa.timestamp("us", tz="UTC"))
        return DataBlock(instant, SCHEMA, pa.table({KEY: ["a"], "at": at, "v": [v]}))

    merged = merge_log_records([block(I1, 20, "late"), block(I2, 10, "early")], ordering_field="at")
    kept = merge_log_records(
        [block(I1, 20, "x"), _deletes(I2, DeleteRecord("a", "", OrderingValue(OrderingKind.LONG, 15)))],
        ordering_field="at",
    )

    assert _values(merged.records) == {"a": "late"}
    assert kept.deletes == ()


def test_merge_log_records_only_deletes_gives_empty_records() -> None:
    merged = merge_log_records([_deletes(I1, DeleteRecord("a", ""))])

    assert merged.records.num_rows == 0
    assert merged.deleted_keys == frozenset({"a"})


def test_merge_log_records_missing_ordering_column_raises() -> None:
    with pytest.raises(HudiSchemaError, match="no column 'price'"):
        merge_log_records([_data(I1, ("a", 1, "x"))], ordering_field="price")


def test_merge_log_records_scan_result_end_to_end() -> None:
    files = [
        ("1", _avro(I1, ("a", 1, "a1"), ("b", 1, "b1"))),
        ("2", _avro(I2, ("a", 2, "a2")) + _delete(I2, "b")),
    ]

    merged = merge_log_records(
        scan_file_slice_logs(files, completed_instants={I1, I2}).blocks, ordering_field="ts"
    )

    assert _values(merged.records) == {"a": "a2"}
    assert merged.deleted_keys == frozenset({"b"})
