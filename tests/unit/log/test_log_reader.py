"""Reading log blocks: decoding each type, and Java's corrupt-block rules (format sheet section 8)."""

from __future__ import annotations

import datetime
import decimal
import json
import logging
import struct
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.log.avro_arrow import avro_schema_to_arrow
from hudi_sql.log.block import (
    BlockType,
    CommandBlock,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    DeleteRecord,
    HeaderKey,
    OrderingKind,
    OrderingValue,
    RawBlock,
)
from hudi_sql.log.format import (
    encode_avro_data_block,
    encode_delete_block,
    encode_parquet_data_block,
    encode_rollback_block,
    frame_block,
)
from hudi_sql.log.reader import decode_block, read_log_blocks, read_raw_blocks

INSTANT = "20250331030645735"
META = [
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
]
SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "trips_record",
        "namespace": "hoodie.trips",
        "fields": [{"name": m, "type": ["null", "string"], "doc": "", "default": None} for m in META]
        + [
            {"name": "ts", "type": ["null", "long"], "default": None},
            {"name": "rider", "type": ["null", "string"], "default": None},
            {"name": "fare", "type": ["null", "double"], "default": None},
        ],
    },
    separators=(",", ":"),
)


def _row(key: str, ts: int, fare: float, instant: str = INSTANT) -> dict[str, object]:
    return {
        "_hoodie_commit_time": instant,
        "_hoodie_commit_seqno": f"{instant}_0_1",
        "_hoodie_record_key": key,
        "_hoodie_partition_path": "city=x",
        "_hoodie_file_name": "f-0",
        "ts": ts,
        "rider": f"rider-{key}",
        "fare": fare,
    }


def _data_block(*keys: str, instant: str = INSTANT) -> bytes:
    return encode_avro_data_block(instant, SCHEMA, [_row(k, 1, 1.0, instant) for k in keys])


def test_read_log_blocks_avro_data_block_decodes_rows_as_arrow() -> None:
    data = encode_avro_data_block(INSTANT, SCHEMA, [_row("a", 10, 19.1), _row("b", 11, 27.7)])

    (block,) = list(read_log_blocks(data))

    assert isinstance(block, DataBlock)
    assert (block.instant_time, block.schema, block.block_type) == (INSTANT, SCHEMA, BlockType.AVRO_DATA)
    assert block.to_arrow().schema == avro_schema_to_arrow(SCHEMA)
    assert block.records.column("_hoodie_record_key").to_pylist() == ["a", "b"]
    assert block.records.column("fare").to_pylist() == [19.1, 27.7]
    assert list(block.header) == [HeaderKey.INSTANT_TIME, HeaderKey.SCHEMA]


def test_read_log_blocks_avro_complex_types_reencode_byte_identical() -> None:
    schema = json.dumps(
        {
            "type": "record",
            "name": "r",
            "namespace": "hoodie.t",
            "fields": [
                {
                    "name": "d",
                    "type": [
                        "null",
                        {
                            "type": "fixed",
                            "name": "fixed",
                            "size": 5,
                            "logicalType": "decimal",
                            "precision": 10,
                            "scale": 5,
                        },
                    ],
                    "default": None,
                },
                {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "default": None},
                {
                    "name": "at",
                    "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}],
                    "default": None,
                },
                {"name": "bin", "type": ["null", "bytes"], "default": None},
                {"name": "f", "type": ["null", "float"], "default": None},
                {
                    "name": "arr",
                    "type": [
                        "null",
                        {
                            "type": "array",
                            "items": [
                                "null",
                                {
                                    "type": "record",
                                    "name": "item",
                                    "fields": [{"name": "x", "type": ["null", "int"], "default": None}],
                                },
                            ],
                        },
                    ],
                    "default": None,
                },
                {
                    "name": "m",
                    "type": ["null", {"type": "map", "values": ["null", "double"]}],
                    "default": None,
                },
                {
                    "name": "s",
                    "type": [
                        "null",
                        {
                            "type": "record",
                            "name": "s",
                            "fields": [{"name": "y", "type": ["null", "boolean"], "default": None}],
                        },
                    ],
                    "default": None,
                },
            ],
        }
    )
    rows: list[dict[str, object]] = [
        {
            "d": decimal.Decimal("12345.67890"),
            "day": datetime.date(2023, 4, 1),
            "at": datetime.datetime(2023, 4, 1, 12, 1, tzinfo=datetime.timezone.utc),
            "bin": b"binary data",
            "f": 1.1,
            "arr": [{"x": 100}, None],
            "m": {"key1": 123.456, "key2": None},
            "s": {"y": True},
        },
        {"d": None, "day": None, "at": None, "bin": None, "f": None, "arr": None, "m": None, "s": None},
    ]
    data = encode_avro_data_block(INSTANT, schema, rows)

    (block,) = list(read_log_blocks(data))

    assert isinstance(block, DataBlock)
    assert block.records.schema.field("d").type == pa.decimal128(10, 5)
    assert block.records.schema.field("m").type == pa.map_(pa.string(), pa.float64())
    assert encode_avro_data_block(INSTANT, schema, block.to_avro_records()) == data


def test_avro_schema_to_arrow_multi_branch_union_raises() -> None:
    schema = json.dumps(
        {"type": "record", "name": "r", "fields": [{"name": "u", "type": ["null", "int", "string"]}]}
    )

    with pytest.raises(HudiFileFormatError, match="2 non-null branches"):
        avro_schema_to_arrow(schema)


def test_read_log_blocks_parquet_data_block_decodes_table() -> None:
    table = pa.table({"_hoodie_record_key": ["1", "2"], "id": pa.array([1, 2], pa.int32())})

    (block,) = list(read_log_blocks(encode_parquet_data_block(INSTANT, SCHEMA, table)))

    assert isinstance(block, DataBlock)
    assert block.block_type is BlockType.PARQUET_DATA
    assert block.records.equals(table)


def test_read_log_blocks_delete_block_decodes_wrappers() -> None:
    deletes = (
        DeleteRecord("a", "city=x", OrderingValue(OrderingKind.INT, 0)),
        DeleteRecord("b", "city=x", OrderingValue(OrderingKind.LONG, 1695046462179)),
        DeleteRecord("c", "", OrderingValue(OrderingKind.STRING, "z")),
        DeleteRecord("d", "", OrderingValue(OrderingKind.DECIMAL, decimal.Decimal("1.500000000000000"))),
        DeleteRecord("e", "", OrderingValue(OrderingKind.TIMESTAMP_MICROS, 7)),
    )

    (block,) = list(read_log_blocks(encode_delete_block(INSTANT, SCHEMA, deletes)))

    assert isinstance(block, DeleteBlock)
    assert (block.instant_time, block.schema) == (INSTANT, SCHEMA)
    assert block.records == deletes


def test_read_log_blocks_delete_block_none_ordering_reads_as_int_wrapper_zero() -> None:
    (block,) = list(read_log_blocks(encode_delete_block(INSTANT, SCHEMA, [DeleteRecord("a", "p")])))

    assert isinstance(block, DeleteBlock)
    assert block.records[0].ordering_value == OrderingValue(OrderingKind.INT, 0)


def _delete_block_with_avro(avro: bytes) -> bytes:
    content = struct.pack(">ii", 3, len(avro)) + avro
    return frame_block(BlockType.DELETE, {HeaderKey.INSTANT_TIME: INSTANT, HeaderKey.SCHEMA: SCHEMA}, content)


def test_read_log_blocks_delete_null_ordering_value_tolerated_as_none() -> None:
    avro = bytes.fromhex("020202") + b"k" + bytes.fromhex("000000")  # partition null, ordering null

    (block,) = list(read_log_blocks(_delete_block_with_avro(avro)))

    assert isinstance(block, DeleteBlock)
    assert block.records == (DeleteRecord("k", "", None),)


def test_read_log_blocks_delete_unknown_wrapper_branch_raises() -> None:
    avro = bytes.fromhex("020202") + b"k" + bytes.fromhex("001a0000")  # union index 13, after ArrayWrapper

    with pytest.raises(HudiFileFormatError, match="beyond ArrayWrapper"):
        list(read_log_blocks(_delete_block_with_avro(avro)))


def test_read_log_blocks_delete_kryo_content_version_raises() -> None:
    block = frame_block(
        BlockType.DELETE, {HeaderKey.INSTANT_TIME: INSTANT}, struct.pack(">i", 2) + b"\x00" * 8
    )

    with pytest.raises(HudiFileFormatError, match="content version 2"):
        list(read_log_blocks(block))


def test_read_log_blocks_rollback_block_decodes_target() -> None:
    (block,) = list(read_log_blocks(encode_rollback_block("20250126040936578", "20250126040826878")))

    assert block == CommandBlock("20250126040936578", "20250126040826878")


def test_read_log_blocks_from_path_reads_file(tmp_path: Path) -> None:
    path = tmp_path / ".f-0_20250101000000000.log.1_0-1-0"
    path.write_bytes(_data_block("a") + encode_rollback_block("3", "2"))

    blocks = list(read_log_blocks(path))

    assert [type(b).__name__ for b in blocks] == ["DataBlock", "CommandBlock"]


def test_read_log_blocks_empty_file_yields_nothing() -> None:
    assert list(read_log_blocks(b"")) == []


def test_read_log_blocks_tail_shorter_than_magic_ignored() -> None:
    blocks = list(read_log_blocks(_data_block("a") + b"#HU"))

    assert [type(b) for b in blocks] == [DataBlock]


def test_read_log_blocks_truncated_block_midway_skipped_next_block_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, torn, third = _data_block("a"), _data_block("b"), _data_block("c")
    data = first + torn[: len(torn) // 2] + third

    with caplog.at_level(logging.WARNING, logger="hudi_sql.log.reader"):
        blocks = list(read_log_blocks(data))

    assert [type(b) for b in blocks] == [DataBlock, CorruptBlock, DataBlock]
    assert blocks[1] == CorruptBlock(offset=len(first) + 6, length=len(torn) // 2 - 6)
    assert isinstance(blocks[2], DataBlock)
    assert blocks[2].records.column("_hoodie_record_key").to_pylist() == ["c"]
    assert "corrupt block" in caplog.text


def test_read_log_blocks_truncated_last_block_corrupt_to_end_of_file() -> None:
    first, torn = _data_block("a"), _data_block("b")
    data = first + torn[:-3]

    blocks = list(read_log_blocks(data))

    assert blocks[1] == CorruptBlock(offset=len(first) + 6, length=len(torn) - 3 - 6)


def test_read_log_blocks_flipped_trailer_byte_makes_block_corrupt() -> None:
    block = bytearray(_data_block("a"))
    block[-1] ^= 0xFF

    blocks = list(read_log_blocks(bytes(block)))

    assert blocks == [CorruptBlock(offset=6, length=len(block) - 6)]


def test_read_log_blocks_flipped_trailer_then_valid_block_resyncs() -> None:
    bad = bytearray(_data_block("a"))
    bad[-2] ^= 0x01
    good = _data_block("b")

    blocks = list(read_log_blocks(bytes(bad) + good))

    assert [type(b) for b in blocks] == [CorruptBlock, DataBlock]


def test_read_log_blocks_garbage_after_block_makes_it_corrupt() -> None:
    # Java checks that MAGIC (or EOF) follows the trailer before trusting a block.
    data = _data_block("a") + b"garbage!"

    blocks = list(read_log_blocks(data))

    assert blocks == [CorruptBlock(offset=6, length=len(data) - 6)]


def test_read_log_blocks_length_field_cut_off_is_corrupt() -> None:
    blocks = list(read_log_blocks(b"#HUDI#\x00\x00\x00"))

    assert blocks == [CorruptBlock(offset=6, length=3)]


def test_read_log_blocks_no_magic_at_start_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="no MAGIC at offset 0"):
        list(read_log_blocks(b"PAR1" + b"\x00" * 40))


def _with_int_at(data: bytes, offset: int, value: int) -> bytes:
    return data[:offset] + struct.pack(">i", value) + data[offset + 4 :]


def test_read_raw_blocks_header_key_above_8_rejected() -> None:
    block = encode_rollback_block("2", "1")
    first_key_at = 6 + 8 + 4 + 4 + 4

    with pytest.raises(HudiFileFormatError, match="invalid metadata key 9"):
        list(read_raw_blocks(_with_int_at(block, first_key_at, 9)))


def test_read_raw_blocks_unknown_block_type_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="unknown block type 7"):
        list(read_raw_blocks(_with_int_at(encode_rollback_block("2", "1"), 18, 7)))


def test_read_raw_blocks_log_format_version_0_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="log format version 0"):
        list(read_raw_blocks(_with_int_at(encode_rollback_block("2", "1"), 14, 0)))


def test_read_raw_blocks_keeps_header_order_and_content() -> None:
    data = encode_avro_data_block(INSTANT, SCHEMA, [_row("a", 1, 1.0)], header_order=[HeaderKey.SCHEMA])

    (raw,) = list(read_raw_blocks(data))

    assert isinstance(raw, RawBlock)
    assert (raw.offset, raw.block_type, raw.instant_time) == (0, BlockType.AVRO_DATA, INSTANT)
    assert list(raw.header) == [HeaderKey.SCHEMA, HeaderKey.INSTANT_TIME]
    assert raw.content[:8] == struct.pack(">ii", 3, 1)
    assert raw.footer == {}


def test_decode_block_hfile_unsupported() -> None:
    raw = RawBlock(0, BlockType.HFILE_DATA, {HeaderKey.INSTANT_TIME: INSTANT}, b"")

    with pytest.raises(UnsupportedFeatureError, match="HFILE_DATA"):
        decode_block(raw)


def test_decode_block_missing_instant_time_raises() -> None:
    raw = RawBlock(0, BlockType.DELETE, {HeaderKey.SCHEMA: SCHEMA}, b"")

    with pytest.raises(HudiFileFormatError, match="no INSTANT_TIME"):
        decode_block(raw)


def test_decode_block_unknown_command_type_raises() -> None:
    header = {
        HeaderKey.INSTANT_TIME: "2",
        HeaderKey.COMMAND_BLOCK_TYPE: "1",
        HeaderKey.TARGET_INSTANT_TIME: "1",
    }

    with pytest.raises(HudiFileFormatError, match="unknown command block type '1'"):
        decode_block(RawBlock(0, BlockType.COMMAND, header, b""))


def test_decode_block_avro_record_length_mismatch_raises() -> None:
    (raw,) = list(read_raw_blocks(_data_block("a")))
    assert isinstance(raw, RawBlock)
    content = (
        raw.content[:8]
        + struct.pack(">i", struct.unpack_from(">i", raw.content, 8)[0] + 1)
        + raw.content[12:]
        + b"\x00"
    )

    with pytest.raises(HudiFileFormatError, match="length prefix"):
        decode_block(RawBlock(0, BlockType.AVRO_DATA, raw.header, content))
