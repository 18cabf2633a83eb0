"""Avro datums of a whole Arrow table at once, column by column, for the data blocks of log files.

A Merge-On-Read upsert writes every updated record as an Avro datum. Encoding them one record
at a time (Arrow rows to Python dicts, then ``fastavro``) costs far more than the rest of the
append: about 2 µs per field on the bench's 13 columns. The binary encoding of flat records is
simple enough to build column-wise instead (Avro 1.11 specification, "Binary Encoding"):

* a record is its fields' encodings, concatenated in schema order;
* ``int`` and ``long`` (and ``date``, ``timestamp-*``) are zig-zag varints;
* ``float`` and ``double`` are 4 and 8 little-endian bytes; ``boolean`` one byte;
* ``string`` and ``bytes`` are a varint length, then the bytes;
* a union is the varint index of the branch, then the value in that branch.

So each field becomes one Arrow binary array (one value per row, built with numpy), Arrow's
``binary_join_element_wise`` joins the fields into the rows, and the block's framing (a
big-endian int32 length before each datum) is one more join. The result is byte for byte what
``fastavro`` writes (the tests compare them).

Only flat schemas of those types, each field plain or a two-branch union with ``null``, are
encoded here: :func:`encode_datums` returns ``None`` for anything else (decimals as ``fixed``,
nested records, arrays, maps), and the caller encodes those rows record by record.
"""

from __future__ import annotations

__all__ = ["decode_datums", "encode_datums"]

import functools
import json
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_MAX_VARINT = 10  # bytes of a zig-zag encoded 64-bit value, at most
_EMPTY = pa.scalar(b"", pa.large_binary())
_LENGTH = struct.Struct(">i")


def _binary(data: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """A binary array whose row *i* is the next ``lengths[i]`` bytes of *data*."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.large_binary(), len(lengths),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data))])


def _varints(values: np.ndarray) -> pa.Array:
    """Zig-zag varints of int64 *values*: seven bits a byte, low bits first, high bit = more."""
    zigzag = ((values << 1) ^ (values >> 63)).view(np.uint64)
    lengths = np.ones(len(zigzag), dtype=np.int64)
    rest = zigzag >> np.uint64(7)
    while rest.any():
        lengths += rest != 0
        rest >>= np.uint64(7)
    shifts = np.arange(0, 7 * _MAX_VARINT, 7, dtype=np.uint64)
    groups = ((zigzag[:, None] >> shifts) & np.uint64(0x7F)).astype(np.uint8)
    position = np.arange(_MAX_VARINT)
    groups[position < lengths[:, None] - 1] |= 0x80
    return _binary(groups[position < lengths[:, None]], lengths)


def _fixed(values: np.ndarray, dtype: str) -> pa.Array:
    raw = np.ascontiguousarray(values.astype(dtype)).view(np.uint8)
    return _binary(raw, np.full(len(values), np.dtype(dtype).itemsize, dtype=np.int64))


def _integers(column: pa.Array) -> pa.Array:
    if pa.types.is_temporal(column.type):  # dates and timestamps: their day / unit counts
        column = column.view(pa.int32() if column.type.bit_width == 32 else pa.int64())
    values = column.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    return _varints(np.asarray(values, dtype=np.int64))


def _floats(dtype: str) -> Callable[[pa.Array], pa.Array]:
    def encode(column: pa.Array) -> pa.Array:
        return _fixed(np.asarray(column.fill_null(0).to_numpy(zero_copy_only=False)), dtype)
    return encode


def _booleans(column: pa.Array) -> pa.Array:
    return _fixed(np.asarray(column.fill_null(False).to_numpy(zero_copy_only=False), dtype=np.uint8), "u1")


def _bytes_like(column: pa.Array) -> pa.Array:
    raw = column.cast(pa.large_binary()).fill_null(b"")
    lengths = np.asarray(pc.binary_length(raw).to_numpy(zero_copy_only=False), dtype=np.int64)
    return pc.binary_join_element_wise(_varints(lengths), raw, _EMPTY)


#: (Avro type, logical type) -> the Arrow types it accepts, and its encoder.
_ENCODERS: dict[tuple[str, str | None], tuple[Callable[[pa.DataType], bool], Callable[[pa.Array], pa.Array]]] = {
    ("boolean", None): (pa.types.is_boolean, _booleans),
    ("int", None): (lambda t: pa.types.is_integer(t) and t.bit_width <= 32, _integers),
    ("long", None): (pa.types.is_integer, _integers),
    ("float", None): (pa.types.is_float32, _floats("<f4")),
    ("double", None): (pa.types.is_float64, _floats("<f8")),
    ("string", None): (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t), _bytes_like),
    ("bytes", None): (lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t), _bytes_like),
    ("int", "date"): (pa.types.is_date32, _integers),
    ("long", "timestamp-micros"): (lambda t: pa.types.is_timestamp(t) and t.unit == "us", _integers),
    ("long", "timestamp-millis"): (lambda t: pa.types.is_timestamp(t) and t.unit == "ms", _integers),
    ("long", "local-timestamp-micros"): (lambda t: pa.types.is_timestamp(t) and t.unit == "us", _integers),
    ("long", "local-timestamp-millis"): (lambda t: pa.types.is_timestamp(t) and t.unit == "ms", _integers),
}


def _plain(avro_type: Any) -> tuple[str, str | None] | None:
    if isinstance(avro_type, str):
        return avro_type, None
    if isinstance(avro_type, dict) and isinstance(avro_type.get("type"), str):
        return avro_type["type"], avro_type.get("logicalType")
    return None


def _field_plan(avro_type: Any) -> tuple[tuple[str, str | None], int | None] | None:
    """The value type of a field, and the union branch of that value (None: not a union)."""
    if isinstance(avro_type, list):
        if len(avro_type) != 2 or "null" not in avro_type:
            return None
        branch = 1 - avro_type.index("null")
        plain = _plain(avro_type[branch])
        return (plain, branch) if plain in _ENCODERS else None
    plain = _plain(avro_type)
    return (plain, None) if plain in _ENCODERS else None


def _field(column: pa.Array, value_type: tuple[str, str | None], branch: int | None) -> pa.Array | None:
    accepts, encode = _ENCODERS[value_type]
    if not accepts(column.type):
        return None
    encoded = encode(column)
    if branch is None:
        return encoded if column.null_count == 0 else None  # a null where the schema has none
    valid = column.is_valid()
    values = pc.if_else(valid, encoded, _EMPTY) if column.null_count else encoded
    # A union branch index 0 or 1 is the single byte 0x00 or 0x02 (zig-zag).
    index = pc.if_else(valid, pa.scalar(bytes([2 * branch]), pa.large_binary()),
                       pa.scalar(bytes([2 * (1 - branch)]), pa.large_binary()))
    return pc.binary_join_element_wise(index, values, _EMPTY)


@functools.lru_cache(maxsize=64)
def _parsed(schema_json: str) -> Any:
    return json.loads(schema_json)


def _record(schema: dict[str, Any] | str) -> dict[str, Any] | None:
    """The record schema as a dict (a block header's JSON is parsed once); None if it is not a record."""
    try:
        record = _parsed(schema) if isinstance(schema, str) else schema
    except ValueError:
        return None
    return record if isinstance(record, dict) and record.get("type") == "record" else None


def encode_datums(schema: dict[str, Any] | str, table: pa.Table) -> bytes | None:
    """Each row of *table* as an Avro datum of record *schema*, each after its big-endian int32
    length: the body of an Avro data block. ``None`` when the schema or the columns are not
    ones this encoder handles (the caller then encodes record by record)."""
    record = _record(schema)
    if record is None or table.num_rows == 0:
        return None
    fields: list[pa.Array] = []
    for avro_field in record["fields"]:
        plan = _field_plan(avro_field["type"])
        if plan is None or avro_field["name"] not in table.column_names:
            return None
        encoded = _field(table.column(avro_field["name"]).combine_chunks(), *plan)
        if encoded is None:
            return None
        fields.append(encoded)
    datums = pc.binary_join_element_wise(*fields, _EMPTY) if len(fields) > 1 else fields[0]
    lengths = np.asarray(pc.binary_length(datums).to_numpy(zero_copy_only=False), dtype=np.int64)
    framed = pc.binary_join_element_wise(_fixed(lengths, ">i4"), datums, _EMPTY)
    offsets = np.frombuffer(framed.buffers()[1], dtype=np.int64)
    start, end = int(offsets[framed.offset]), int(offsets[framed.offset + len(framed)])
    return framed.buffers()[2].slice(start, end - start).to_pybytes()


# --- decoding ---------------------------------------------------------------------------------

_CHUNK = 1 << 16  # records decoded together: bounds the gather indexes of string columns


def _datum_starts(content: bytes, first: int, count: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Start and end of every datum (each follows its big-endian int32 length); None if they overrun."""
    starts = np.empty(count, dtype=np.int64)
    ends = np.empty(count, dtype=np.int64)
    unpack = _LENGTH.unpack_from
    pos = first
    try:
        for i in range(count):
            (length,) = unpack(content, pos)
            starts[i] = pos + 4
            pos += 4 + length
            ends[i] = pos
    except struct.error:
        return None
    return (starts, ends) if pos == len(content) and bool(np.all(ends >= starts)) else None


def _read_varints(data: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Zig-zag varints at *pos*: their values and byte lengths."""
    window = data[pos[:, None] + np.arange(_MAX_VARINT)]
    ends = window < 0x80
    lengths = ends.argmax(axis=1) + 1  # a varint that never ends reads as 1 byte: caught by the end check
    used = np.arange(_MAX_VARINT) < lengths[:, None]
    groups = (window & 0x7F).astype(np.uint64) * used
    zigzag = (groups << np.arange(0, 7 * _MAX_VARINT, 7, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    values = (zigzag >> np.uint64(1)).astype(np.int64) ^ -(zigzag & np.uint64(1)).astype(np.int64)
    return values, lengths


def _validity(valid: np.ndarray | None) -> pa.Buffer | None:
    return None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))


def _decode_field(data: np.ndarray, pos: np.ndarray, ends: np.ndarray, value_type: tuple[str, str | None],
                  arrow_type: pa.DataType, valid: np.ndarray | None) -> pa.Array | None:
    """One field of every record at *pos* (advanced past it); rows not *valid* hold no value.
    ``None`` when a string or bytes value would run past its datum's end."""
    n = len(pos)
    live = np.ones(n, dtype=bool) if valid is None else valid
    avro = value_type[0]
    if avro in ("int", "long"):
        values, lengths = _read_varints(data, pos)
        pos += lengths * live
        numbers = values.astype(np.int32 if arrow_type.bit_width == 32 else np.int64) * live
        return pa.Array.from_buffers(arrow_type, n, [_validity(valid), pa.py_buffer(numbers)])
    if avro in ("float", "double", "boolean"):
        width = {"float": 4, "double": 8, "boolean": 1}[avro]
        raw = data[pos[:, None] + np.arange(width)] * live[:, None]
        pos += width * live
        if avro == "boolean":
            return pa.Array.from_buffers(arrow_type, n, [_validity(valid),
                                                         pa.py_buffer(np.packbits(raw[:, 0] != 0, bitorder="little"))])
        return pa.Array.from_buffers(arrow_type, n, [_validity(valid), pa.py_buffer(np.ascontiguousarray(raw))])
    lengths, widths = _read_varints(data, pos)
    lengths = np.where(live, lengths, 0)
    pos += widths * live
    if np.any(lengths < 0) or np.any(pos + lengths > ends):
        return None
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    index = np.repeat(pos - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    pos += lengths
    return pa.Array.from_buffers(arrow_type, n, [_validity(valid), pa.py_buffer(offsets), pa.py_buffer(data[index])])


def _decode_chunk(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, plans: list[tuple[Any, int | None]],
                  schema: pa.Schema) -> pa.RecordBatch | None:
    pos = starts.copy()
    columns = []
    for (value_type, branch), field in zip(plans, schema, strict=True):
        valid = None
        if branch is not None:
            index = data[pos]
            if not np.isin(index, (0, 2)).all():
                return None
            valid = index == 2 * branch
            pos += 1
        column = _decode_field(data, pos, ends, value_type, field.type, valid)
        if column is None or np.any(pos > ends):
            return None
        columns.append(column)
    if not np.array_equal(pos, ends):
        return None
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def decode_datums(schema: dict[str, Any] | str, arrow_schema: pa.Schema, content: bytes, first: int,
                  count: int) -> pa.Table | None:
    """The *count* datums of *content* from offset *first* (each after its big-endian int32
    length) as a table of *arrow_schema*; ``None`` when the schema is not flat or the bytes do
    not decode cleanly (the caller then decodes record by record, and names the problem)."""
    record = _record(schema)
    if record is None or count == 0:
        return None
    plans = [_field_plan(f["type"]) for f in record["fields"]]
    if any(plan is None for plan in plans) or len(plans) != len(arrow_schema):
        return None
    bounds = _datum_starts(content, first, count)
    if bounds is None:
        return None
    data = np.concatenate([np.frombuffer(content, dtype=np.uint8), np.zeros(_MAX_VARINT + 8, dtype=np.uint8)])
    batches = []
    for at in range(0, count, _CHUNK):
        batch = _decode_chunk(data, bounds[0][at:at + _CHUNK], bounds[1][at:at + _CHUNK],
                              plans, arrow_schema)  # type: ignore[arg-type]
        if batch is None:
            return None
        batches.append(batch)
    return pa.Table.from_batches(batches, schema=arrow_schema)
