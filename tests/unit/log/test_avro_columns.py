"""The column-wise Avro encoder writes exactly the bytes ``fastavro`` writes record by record, its
decoder reads the rows ``fastavro`` reads, and both decline what they do not handle (schemas
that are not flat, damaged bytes), which the record-by-record path then encodes or explains."""

from __future__ import annotations

import datetime as dt
import io
import json
import struct
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.log.avro_arrow import avro_records_to_arrow, avro_schema_to_arrow
from hudi_sql.log.avro_columns import decode_datums, encode_datums
from hudi_sql.log.block import BlockType, HeaderKey
from hudi_sql.log.format import encode_avro_data_content, frame_block
from hudi_sql.log.reader import read_log_blocks


def _fastavro_body(schema: dict[str, Any], table: pa.Table) -> bytes:
    """The reference: each row through fastavro, each datum after its big-endian length."""
    parsed = fastavro.parse_schema(schema)
    out = []
    for row in table.to_pylist():
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, parsed, row)
        out.append(struct.pack(">i", len(buffer.getvalue())) + buffer.getvalue())
    return b"".join(out)


def _nullable(avro_type: Any) -> list[Any]:
    return ["null", avro_type]


EVERY_TYPE = {
    "type": "record", "name": "row", "fields": [
        {"name": "_hoodie_record_key", "type": _nullable("string")},
        {"name": "id", "type": "long"},
        {"name": "small", "type": _nullable("int")},
        {"name": "price", "type": _nullable("double")},
        {"name": "ratio", "type": _nullable("float")},
        {"name": "flag", "type": _nullable("boolean")},
        {"name": "raw", "type": _nullable("bytes")},
        {"name": "day", "type": _nullable({"type": "int", "logicalType": "date"})},
        {"name": "at", "type": _nullable({"type": "long", "logicalType": "timestamp-micros"})},
        {"name": "name", "type": ["string", "null"]},  # the null branch second
    ]}


def _every_type_table() -> pa.Table:
    utc = dt.timezone.utc
    extremes = [0, -1, 1, 63, -64, 64, -65, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63)]
    n = len(extremes)
    return pa.table({
        "_hoodie_record_key": pa.array([f"key-{i}" if i % 4 else None for i in range(n)], pa.string()),
        "id": pa.array(extremes, pa.int64()),
        "small": pa.array([v if -(2**31) <= v < 2**31 and i % 3 else None for i, v in enumerate(extremes)],
                          pa.int32()),
        "price": pa.array([i * -1.5e300 if i % 5 else None for i in range(n)], pa.float64()),
        "ratio": pa.array([i / 7 for i in range(n)], pa.float32()),
        "flag": pa.array([bool(i % 2) if i != 3 else None for i in range(n)], pa.bool_()),
        "raw": pa.array([bytes(range(i * 20 % 256)) for i in range(n)], pa.binary()),
        "day": pa.array([dt.date(1960 + 7 * i, 1 + i, 2) if i != 4 else None for i in range(n)], pa.date32()),
        "at": pa.array([dt.datetime(1901 + 11 * i, 3, 4, 5, 6, 7, 890123 - i, tzinfo=utc) for i in range(n)],
                       pa.timestamp("us", tz="UTC")),
        "name": pa.array(["", "é", "日本語" * 50, None, "x" * 200] + [f"n{i}" for i in range(n - 5)], pa.string()),
    })


def test_every_supported_type_encodes_as_fastavro_does() -> None:
    table = _every_type_table()
    assert encode_datums(EVERY_TYPE, table) == _fastavro_body(EVERY_TYPE, table)


def test_chunked_and_sliced_columns_encode_as_fastavro_does() -> None:
    table = _every_type_table()
    table = pa.concat_tables([table.slice(2, 5), table.slice(0, 3), table]).slice(1)
    assert table.column("id").num_chunks > 1
    assert encode_datums(EVERY_TYPE, table) == _fastavro_body(EVERY_TYPE, table)


def test_data_block_content_is_the_same_through_either_encoder() -> None:
    table = _every_type_table()
    schema_json = json.dumps(EVERY_TYPE)
    assert encode_avro_data_content(schema_json, table) == encode_avro_data_content(schema_json, table.to_pylist())


@pytest.mark.parametrize(("field", "column"), [
    ({"name": "amount", "type": _nullable({"type": "fixed", "name": "d", "size": 5, "logicalType": "decimal",
                                            "precision": 10, "scale": 2})}, pa.array([1], pa.decimal128(10, 2))),
    ({"name": "tags", "type": _nullable({"type": "array", "items": "string"})}, pa.array([["a"]])),
    ({"name": "inner", "type": _nullable({"type": "record", "name": "inner", "fields": [{"name": "a", "type": "int"}]})},
     pa.array([{"a": 1}])),
    ({"name": "either", "type": ["null", "int", "string"]}, pa.array([1], pa.int32())),
    ({"name": "id", "type": "long"}, pa.array([None], pa.int64())),  # a null the schema does not allow
    ({"name": "id", "type": "int"}, pa.array([1], pa.int64())),  # a column wider than the field
])
def test_what_it_does_not_handle_is_left_to_the_record_encoder(field: dict[str, Any], column: pa.Array) -> None:
    schema = {"type": "record", "name": "row", "fields": [field]}
    assert encode_datums(schema, pa.table({field["name"]: column})) is None


def _fastavro_rows(schema: dict[str, Any], body: bytes) -> list[dict[str, Any]]:
    parsed, stream, rows = fastavro.parse_schema(schema), io.BytesIO(body), []
    while stream.tell() < len(body):
        stream.seek(stream.tell() + 4)
        rows.append(fastavro.schemaless_reader(stream, parsed, None))
    return rows


def test_decoding_gives_the_rows_fastavro_decodes() -> None:
    table = _every_type_table()
    body = _fastavro_body(EVERY_TYPE, table)
    schema_json = json.dumps(EVERY_TYPE)
    decoded = decode_datums(EVERY_TYPE, avro_schema_to_arrow(schema_json), body, 0, table.num_rows)
    assert decoded is not None
    assert decoded.equals(avro_records_to_arrow(_fastavro_rows(EVERY_TYPE, body), schema_json))


def test_decoding_many_records_crosses_chunks() -> None:
    schema = {"type": "record", "name": "row", "fields": [{"name": "k", "type": _nullable("string")},
                                                        {"name": "v", "type": "long"}]}
    n = 150_000
    table = pa.table({"k": pa.array([None if i % 7 == 0 else f"k{i}" for i in range(n)], pa.string()),
                      "v": pa.array([(i * 2654435761) % 2**40 - 2**39 for i in range(n)], pa.int64())})
    body = encode_datums(schema, table)
    assert body is not None
    assert decode_datums(schema, table.schema, body, 0, n) == table


@pytest.mark.parametrize("damage", ["truncated", "length_too_long", "string_past_datum", "bad_union_index"])
def test_damaged_bytes_are_left_to_the_record_decoder_which_names_the_problem(damage: str) -> None:
    table = _every_type_table().slice(1)  # the first row's key is "key-1"
    body = bytearray(_fastavro_body(EVERY_TYPE, table))
    assert struct.unpack(">i", body[:4])[0] < 2 + 63 and body[4:6] == b"\x02\x0a"  # union branch 1, 5 characters
    if damage == "truncated":
        body = body[:-3]
    elif damage == "length_too_long":
        body[:4] = struct.pack(">i", struct.unpack(">i", body[:4])[0] + 1)
    elif damage == "string_past_datum":
        body[5] = 0x7E  # the key's length: 63 characters, past the end of its datum
    else:
        body[4] = 0x04  # union index 2 of a two-branch union
    schema_json = json.dumps(EVERY_TYPE)
    assert decode_datums(EVERY_TYPE, avro_schema_to_arrow(schema_json), bytes(body), 0, table.num_rows) is None
    content = struct.pack(">ii", 3, table.num_rows) + bytes(body)
    block = frame_block(BlockType.AVRO_DATA, {HeaderKey.INSTANT_TIME: "001", HeaderKey.SCHEMA: schema_json}, content)
    with pytest.raises(HudiFileFormatError, match="AVRO_DATA block at offset 0"):
        list(read_log_blocks(block))
