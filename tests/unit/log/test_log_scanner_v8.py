"""Table version 8 log blocks: partial updates (header ``IS_PARTIAL=true``, only the assigned
columns) are kept by the slice scan and merged column by column, as Apache Hudi 1.x merges them."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from hudi_sql.log.block import BlockType, DataBlock, HeaderKey
from hudi_sql.log.format import encode_avro_data_content, frame_block
from hudi_sql.log.scanner import merge_log_records, scan_file_slice_logs

KEY = "_hoodie_record_key"
SCHEMA = json.dumps({"type": "record", "name": "t_record", "namespace": "hoodie.t", "fields": [
    {"name": KEY, "type": ["null", "string"], "default": None},
    {"name": "v", "type": ["null", "string"], "default": None}]})
I1, I2, I3 = "20250101000000001", "20250101000000002", "20250101000000003"


def _block(is_partial: str | None) -> bytes:
    header = {HeaderKey.INSTANT_TIME: I1, HeaderKey.SCHEMA: SCHEMA}
    if is_partial is not None:
        header[HeaderKey.IS_PARTIAL] = is_partial
    return frame_block(BlockType.AVRO_DATA, header, encode_avro_data_content(SCHEMA, [{KEY: "a", "v": "x"}]))


@pytest.mark.parametrize("is_partial", [None, "false", "true"])
def test_scan_file_slice_logs_keeps_full_and_partial_blocks(is_partial: str | None) -> None:
    result = scan_file_slice_logs([(".f-0_1.log.1_0-1-0", _block(is_partial))], completed_instants={I1})
    assert len(result.blocks) == 1
    assert result.data_blocks[0].is_partial is (is_partial == "true")


def test_scan_file_slice_logs_partial_block_of_failed_write_is_skipped() -> None:
    result = scan_file_slice_logs([(".f-0_1.log.1_0-1-0", _block("true"))], completed_instants=set())
    assert result.blocks == ()


def _rows(instant: str, partial: bool, **columns: list[object]) -> DataBlock:
    header = {HeaderKey.IS_PARTIAL: "true"} if partial else {}
    return DataBlock(instant, SCHEMA, pa.table(columns), header=header)


def _by_key(merged: pa.Table) -> dict[str, dict[str, object]]:
    return {row[KEY]: {k: v for k, v in row.items() if k != KEY} for row in merged.to_pylist()}


def test_a_partial_update_keeps_the_columns_it_has_and_takes_the_rest_from_the_record_before() -> None:
    full = _rows(I1, False, **{KEY: ["a", "b"], "ts": [1, 1], "price": [10.0, 20.0], "name": ["x", "y"]})
    price = _rows(I2, True, **{KEY: ["a"], "ts": [2], "price": [11.0]})

    merged = merge_log_records([full, price], ordering_field="ts")

    assert _by_key(merged.records) == {"a": {"ts": 2, "price": 11.0, "name": "x"},
                                       "b": {"ts": 1, "price": 20.0, "name": "y"}}
    assert merged.absent == {}


def test_a_partial_update_losing_on_ordering_leaves_the_stored_record() -> None:
    full = _rows(I1, False, **{KEY: ["a"], "ts": [5], "price": [10.0], "name": ["x"]})
    late = _rows(I2, True, **{KEY: ["a"], "ts": [2], "price": [11.0]})

    assert _by_key(merge_log_records([full, late], ordering_field="ts").records) == {
        "a": {"ts": 5, "price": 10.0, "name": "x"}}


def test_partial_updates_of_different_columns_add_up() -> None:
    price = _rows(I1, True, **{KEY: ["a"], "ts": [1], "price": [11.0]})
    name = _rows(I2, True, **{KEY: ["a"], "ts": [2], "name": ["z"]})
    price_again = _rows(I3, True, **{KEY: ["a"], "ts": [3], "price": [12.0]})

    merged = merge_log_records([price, name, price_again], ordering_field="ts")

    assert _by_key(merged.records) == {"a": {"ts": 3, "price": 12.0, "name": "z"}}
    assert merged.absent == {}


def test_what_no_log_record_has_is_left_to_the_base_file() -> None:
    price = _rows(I1, True, **{KEY: ["a", "b"], "ts": [1, 1], "price": [11.0, 21.0]})
    full = _rows(I2, False, **{KEY: ["b"], "ts": [2], "price": [22.0], "name": ["n"]})

    merged = merge_log_records([price, full], ordering_field="ts", columns=[KEY, "id", "ts", "price", "name"])

    assert _by_key(merged.records)["b"] == {"ts": 2, "price": 22.0, "name": "n"}
    keys = merged.records.column(KEY).to_pylist()
    assert dict(zip(keys, merged.absent["name"].to_pylist())) == {"a": True, "b": False}
    # a column no block has (a partial block's schema names only the assigned columns)
    assert dict(zip(keys, merged.absent["id"].to_pylist())) == {"a": True, "b": False}
