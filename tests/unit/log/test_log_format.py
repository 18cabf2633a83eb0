"""Encoding log blocks and naming log files (format sheet sections 1, 2, 4-6)."""

from __future__ import annotations

import datetime
import decimal
import struct

import pyarrow as pa
import pytest

from hudi_sql.errors import HudiFileFormatError, HudiSchemaError
from hudi_sql.log.block import (
    NATURAL_ORDER,
    BlockType,
    DeleteRecord,
    HeaderKey,
    OrderingKind,
    OrderingValue,
    ordering_values,
)
from hudi_sql.log.format import (
    MAGIC,
    ROLLBACK_WRITE_TOKEN,
    LogFileName,
    encode_avro_data_block,
    encode_avro_data_content,
    encode_delete_block,
    encode_delete_content,
    encode_metadata,
    encode_parquet_data_block,
    encode_rollback_block,
    frame_block,
)

SCHEMA = (
    '{"type":"record","name":"t_record","namespace":"hoodie.t","fields":['
    '{"name":"_hoodie_record_key","type":["null","string"],"doc":"","default":null},'
    '{"name":"ts","type":["null","long"],"default":null}]}'
)

# Section 2.4: the whole rollback block of the valid_log_rollback sample, 105 bytes.
WORKED_ROLLBACK_BLOCK = bytes.fromhex(
    "234855444923"  # MAGIC
    "000000000000005b"  # L = 91
    "00000001"  # log format version 1
    "00000000"  # type 0 = COMMAND
    "00000003"  # header: 3 entries
    "00000000"
    "00000011" + b"20250126040936578".hex() + "00000003"
    "00000001" + b"0".hex() + "00000001"
    "00000011" + b"20250126040826878".hex() + "0000000000000000"  # content length 0
    "00000000"  # footer: 0 entries
    "0000000000000061"  # trailer = 97
)


def _long_at(data: bytes, offset: int) -> int:
    value: int = struct.unpack_from(">q", data, offset)[0]
    return value


def test_encode_rollback_block_worked_example_matches_section_2_4() -> None:
    block = encode_rollback_block("20250126040936578", "20250126040826878")

    assert block == WORKED_ROLLBACK_BLOCK
    assert len(block) == 105


def test_frame_block_lengths_trailer_is_l_plus_6() -> None:
    header = {HeaderKey.INSTANT_TIME: "20250101000000000"}
    content = b"x" * 37

    block = frame_block(BlockType.AVRO_DATA, header, content)

    length = _long_at(block, 6)
    header_len = 4 + (4 + 4 + 17)
    assert block[:6] == MAGIC
    assert length == 4 + 4 + header_len + 8 + len(content) + 4 + 8
    assert len(block) == 6 + 8 + length
    assert _long_at(block, len(block) - 8) == length + 6


def test_frame_block_with_footer_counts_footer_in_length() -> None:
    footer = {HeaderKey.INSTANT_TIME: "1"}

    plain = frame_block(BlockType.COMMAND, {}, b"")
    with_footer = frame_block(BlockType.COMMAND, {}, b"", footer)

    assert _long_at(with_footer, 6) - _long_at(plain, 6) == 4 + 4 + 1


def test_encode_metadata_key_above_8_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="invalid log block metadata key 9"):
        encode_metadata({9: "x"})  # type: ignore[dict-item]


def test_encode_metadata_utf8_value_length_in_bytes() -> None:
    encoded = encode_metadata({HeaderKey.SCHEMA: "é"})

    assert encoded == bytes.fromhex("000000010000000200000002") + "é".encode()


def test_encode_avro_data_content_layout_version_count_lengths() -> None:
    content = encode_avro_data_content(
        SCHEMA, [{"_hoodie_record_key": "k1", "ts": 1}, {"_hoodie_record_key": None, "ts": None}]
    )

    assert content[:8] == bytes.fromhex("0000000300000002")
    # record 1: union 1 + len 2 + "k1", union 1 + zig-zag 1
    assert content[8:12] == bytes.fromhex("00000006")
    assert content[12:18] == bytes.fromhex("0204") + b"k1" + bytes.fromhex("0202")
    assert content[18:] == bytes.fromhex("000000020000")


def test_encode_avro_data_block_default_header_instant_then_schema() -> None:
    block = encode_avro_data_block("20250101000000000", SCHEMA, [])

    assert block[22:30] == bytes.fromhex("0000000200000000")


def test_encode_avro_data_block_header_order_puts_schema_first() -> None:
    block = encode_avro_data_block("20250101000000000", SCHEMA, [], header_order=[HeaderKey.SCHEMA])

    assert block[22:30] == bytes.fromhex("0000000200000002")


def test_encode_avro_data_block_header_order_unknown_key_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="TARGET_INSTANT_TIME"):
        encode_avro_data_block("1", SCHEMA, [], header_order=[HeaderKey.TARGET_INSTANT_TIME])


def test_encode_avro_data_block_record_not_fitting_raises_schema_error() -> None:
    with pytest.raises(HudiSchemaError, match="record 0"):
        encode_avro_data_block("1", SCHEMA, [{"_hoodie_record_key": "k", "ts": "not a long"}])


def test_encode_delete_content_default_is_int_wrapper_zero() -> None:
    content = encode_delete_content([DeleteRecord("k", "p")])

    avro = (
        bytes.fromhex("02")
        + bytes.fromhex("0202")
        + b"k"
        + bytes.fromhex("0202")
        + b"p"
        + bytes.fromhex("0400")
        + b"\x00"
    )
    assert content == struct.pack(">ii", 3, len(avro)) + avro


def test_encode_delete_content_long_wrapper_uses_union_index_3() -> None:
    content = encode_delete_content([DeleteRecord("k", "", OrderingValue(OrderingKind.LONG, 5))])

    assert content.endswith(bytes.fromhex("0200") + bytes.fromhex("060a") + b"\x00")


def test_encode_delete_content_string_wrapper_uses_union_index_7() -> None:
    content = encode_delete_content([DeleteRecord("k", "", OrderingValue.infer("b"))])

    assert content.endswith(bytes.fromhex("0e02") + b"b" + b"\x00")


def test_encode_delete_content_wrong_value_type_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="HoodieDeleteRecordList"):
        encode_delete_content([DeleteRecord("k", "", OrderingValue(OrderingKind.LONG, "x"))])


def test_encode_delete_block_header_instant_and_schema() -> None:
    block = encode_delete_block("20250618054714114", SCHEMA, [DeleteRecord("k", "p", NATURAL_ORDER)])

    assert struct.unpack_from(">ii", block, 14) == (1, int(BlockType.DELETE))


def test_ordering_kind_union_index_follows_wrapper_union() -> None:
    assert OrderingKind.BOOLEAN.union_index == 1
    assert OrderingKind.INT.union_index == 2
    assert OrderingKind.LONG.union_index == 3
    assert OrderingKind.TIMESTAMP_MICROS.union_index == 11
    assert OrderingKind.INT.full_name == "org.apache.hudi.avro.model.IntWrapper"


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        (7, OrderingKind.LONG, 7),
        (True, OrderingKind.BOOLEAN, True),
        (1.5, OrderingKind.DOUBLE, 1.5),
        ("x", OrderingKind.STRING, "x"),
        (b"x", OrderingKind.BYTES, b"x"),
        (decimal.Decimal("1.5"), OrderingKind.DECIMAL, decimal.Decimal("1.5")),
        (datetime.date(1970, 1, 11), OrderingKind.DATE, 10),
        (
            datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc),
            OrderingKind.TIMESTAMP_MICROS,
            1_000_000,
        ),
    ],
)
def test_ordering_value_infer_python_type_picks_wrapper(
    value: object, kind: OrderingKind, expected: object
) -> None:
    inferred = OrderingValue.infer(value)

    assert inferred == OrderingValue(kind, expected)


def test_ordering_value_infer_unsupported_type_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="no ordering value wrapper"):
        OrderingValue.infer(object())


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (pa.array([3, None], pa.int32()), [OrderingValue(OrderingKind.INT, 3), None]),
        (pa.array([3], pa.int64()), [OrderingValue(OrderingKind.LONG, 3)]),
        (pa.array([1.5], pa.float64()), [OrderingValue(OrderingKind.DOUBLE, 1.5)]),
        (pa.array([datetime.date(1970, 1, 3)], pa.date32()), [OrderingValue(OrderingKind.DATE, 2)]),
        (pa.array([datetime.datetime(1970, 1, 1, 0, 0, 1)], pa.timestamp("ms")),
         [OrderingValue(OrderingKind.LONG, 1_000_000)]),
    ],
)
def test_ordering_values_are_wrapped_by_the_column_type_not_the_python_value(
    column: pa.Array, expected: list[OrderingValue | None]
) -> None:
    # An INT ordering field's deletes must be IntWrappers: Apache Hudi 1.x's merge casts the stored
    # Integer and the delete's value to one class, and failed on a LongWrapper.
    assert ordering_values(column) == expected


def test_ordering_value_is_natural_only_for_int_zero() -> None:
    assert NATURAL_ORDER.is_natural
    assert not OrderingValue(OrderingKind.LONG, 0).is_natural
    assert not OrderingValue(OrderingKind.INT, 5).is_natural


def test_encode_parquet_data_block_content_is_whole_parquet_file() -> None:
    import pyarrow as pa

    block = encode_parquet_data_block("1", SCHEMA, pa.table({"_hoodie_record_key": ["k"], "ts": [1]}))

    header_len = 4 + (4 + 4 + 1) + (4 + 4 + len(SCHEMA))
    content_len = _long_at(block, 14 + 8 + header_len)
    content = block[14 + 8 + header_len + 8 :][:content_len]
    assert content[:4] == b"PAR1" and content[-4:] == b"PAR1"


def test_log_file_name_parse_real_name_round_trips() -> None:
    name = ".d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0_20250331030642808.log.1_0-26-85"

    parsed = LogFileName.parse(name)

    assert parsed == LogFileName("d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0", "20250331030642808", 1, "0-26-85")
    assert parsed.name == name
    assert str(parsed) == name


def test_log_file_name_parse_path_uses_last_component() -> None:
    parsed = LogFileName.parse("/t/city=x/.f-0_20250101000000000.log.2_1-0-1")

    assert (parsed.version, parsed.write_token) == (2, ROLLBACK_WRITE_TOKEN)


@pytest.mark.parametrize(
    "name",
    [
        "d0304c53-0_0-13-60_20250331030642808.parquet",
        ".f-0_2025.log.x_0-1-2",
        ".f-0_2025.archive.1_0-1-2",
        ".f-0.log.1",
        "",
    ],
)
def test_log_file_name_parse_not_a_log_name_raises(name: str) -> None:
    with pytest.raises(HudiFileFormatError, match="not a log file name"):
        LogFileName.parse(name)


def test_log_file_name_sort_by_instant_version_token() -> None:
    names = [
        LogFileName("f-0", "2", 1, "0-1-1"),
        LogFileName("f-0", "1", 3, "0-13-9"),
        LogFileName("f-0", "1", 2, "1-0-1"),
        LogFileName("f-0", "1", 1, "0-33-43"),
        LogFileName("f-0", "1", 1, "0-33-42"),
    ]

    ordered = sorted(names)

    assert [(n.base_instant, n.version, n.write_token) for n in ordered] == [
        ("1", 1, "0-33-42"),
        ("1", 1, "0-33-43"),
        ("1", 2, "1-0-1"),
        ("1", 3, "0-13-9"),
        ("2", 1, "0-1-1"),
    ]


def test_log_file_name_next_version_rolls_over_with_new_token() -> None:
    current = LogFileName("f-0", "20250101000000000", 1, "0-1-2")

    assert current.next_version(ROLLBACK_WRITE_TOKEN).name == ".f-0_20250101000000000.log.2_1-0-1"
