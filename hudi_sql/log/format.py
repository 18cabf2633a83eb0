"""Encoding Hudi log blocks (log format version 1) and naming log files, for table version 6.

Block framing, all integers big-endian (Java ``DataOutputStream``)::

    MAGIC "#HUDI#" | int64 L | int32 format version (1) | int32 block type | header map
    | int64 content length C | content | footer map | int64 trailer

``L`` counts every byte after itself, trailer included; the trailer is ``L + 6``, the bytes
from the first MAGIC byte up to the trailer. Readers use both to detect torn writes, so a
block must be written whole, in one ``write()``.

A header or footer map is ``int32 count`` then, per entry, ``int32 key, int32 length, UTF-8
bytes``. Java serialises a ``HashMap``, so entry order in real files is arbitrary; every
encoder here takes ``header_order`` so that a decoded file can be rebuilt byte for byte.

Only Avro data blocks are verified byte-exact against Java output, so the writer should emit
those; parquet data blocks written by pyarrow are read by hudi-rs, but Java acceptance is
untested.
"""

from __future__ import annotations

__all__ = [
    "ARRAY_WRAPPER",
    "BLOCK_CONTENT_VERSION",
    "DELETE_RECORD_LIST_READ_SCHEMA",
    "DELETE_RECORD_LIST_SCHEMA",
    "LOCAL_DATE_WRAPPER",
    "LOG_FORMAT_VERSION",
    "MAGIC",
    "ROLLBACK_WRITE_TOKEN",
    "LogFileName",
    "encode_avro_data_block",
    "encode_avro_data_content",
    "encode_cdc_data_block",
    "encode_delete_block",
    "encode_delete_content",
    "encode_metadata",
    "encode_parquet_data_block",
    "encode_rollback_block",
    "frame_block",
]

import copy
import io
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

from hudi_sql.errors import HudiFileFormatError, HudiSchemaError
from hudi_sql.log.avro_arrow import parse_avro_schema
from hudi_sql.log.avro_columns import encode_datums
from hudi_sql.log.block import (
    NATURAL_ORDER,
    BlockType,
    CommandType,
    DeleteRecord,
    HeaderKey,
    OrderingKind,
)
from hudi_sql.model.file_names import LogFileName
from hudi_sql.storage.parquet import codec_options

MAGIC = b"#HUDI#"
LOG_FORMAT_VERSION = 1
BLOCK_CONTENT_VERSION = 3
"""Content version of Avro data and delete blocks; the only one hudi-rs accepts."""
ROLLBACK_WRITE_TOKEN = "1-0-1"
"""Java's ``HoodieLogFormat.UNKNOWN_WRITE_TOKEN``, used for log files holding rollback blocks."""

_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
_MAX_KEY = max(HeaderKey)


_MODEL_NAMESPACE = "org.apache.hudi.avro.model"


def _wrapper(name: str, avro_type: Any) -> dict[str, Any]:
    """A single-field wrapper record, as Java wraps an ordering value to put it in a union."""
    return {"type": "record", "name": name, "namespace": _MODEL_NAMESPACE, "fields": [{"name": "value", "type": avro_type}]}


_ORDERING_TYPES: dict[OrderingKind, Any] = {
    OrderingKind.BOOLEAN: "boolean",
    OrderingKind.INT: "int",
    OrderingKind.LONG: "long",
    OrderingKind.FLOAT: "float",
    OrderingKind.DOUBLE: "double",
    OrderingKind.BYTES: "bytes",
    OrderingKind.STRING: "string",
    OrderingKind.DATE: "int",
    OrderingKind.DECIMAL: {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 15},
    # Java declares time-micros here; the bytes are a plain long, and keeping the value an int
    # (microseconds) avoids a lossy trip through datetime.time.
    OrderingKind.TIME_MICROS: "long",
    OrderingKind.TIMESTAMP_MICROS: "long",
}

DELETE_RECORD_LIST_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "HoodieDeleteRecordList",
    "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {
            "name": "deleteRecordList",
            "type": {
                "type": "array",
                "items": {
                    "type": "record",
                    "name": "HoodieDeleteRecord",
                    "fields": [
                        {"name": "recordKey", "type": ["null", "string"], "default": None},
                        {"name": "partitionPath", "type": ["null", "string"], "default": None},
                        {
                            "name": "orderingVal",
                            "type": ["null"] + [_wrapper(k.value, t) for k, t in _ORDERING_TYPES.items()],
                            "default": None,
                        },
                    ],
                },
            },
        }
    ],
}
"""The ``HoodieDeleteRecordList`` schema Java 0.14-1.0 writes: ``orderingVal`` is a union of
single-field wrapper records (section 5.2 of the format sheet), not of primitives. Only the
union index tells the wrappers apart on disk."""


ARRAY_WRAPPER = f"{_MODEL_NAMESPACE}.ArrayWrapper"
"""The 13th ``orderingVal`` branch (union index 12), added by Apache Hudi 1.1 for table version 9,
whose ordering may span several fields (the table's ordering fields): a list of wrappers."""
LOCAL_DATE_WRAPPER = f"{_MODEL_NAMESPACE}.LocalDateWrapper"
"""A wrapper only an ``ArrayWrapper`` element may hold: days since the epoch, like ``DateWrapper``."""


def _read_schema() -> dict[str, Any]:
    """:data:`DELETE_RECORD_LIST_SCHEMA` with Apache Hudi 1.1's ``ArrayWrapper`` branch appended.

    Branches only ever get appended to the union, so this one schema decodes the delete blocks
    of every version; writers keep the narrower schema, which every reader version accepts.
    """
    schema = copy.deepcopy(DELETE_RECORD_LIST_SCHEMA)
    ordering = schema["fields"][0]["type"]["items"]["fields"][2]
    elements = ["null", *(kind.full_name for kind in _ORDERING_TYPES), _wrapper("LocalDateWrapper", "int")]
    ordering["type"] = [*ordering["type"], {
        "type": "record", "name": "ArrayWrapper", "namespace": _MODEL_NAMESPACE,
        "fields": [{"name": "wrappedValues", "type": ["null", {"type": "array", "items": elements}],
                    "default": None}],
    }]
    return schema


DELETE_RECORD_LIST_READ_SCHEMA: dict[str, Any] = _read_schema()
"""The schema delete blocks are decoded with (see :func:`_read_schema`)."""

_PARSED_DELETE_SCHEMA = fastavro.parse_schema(DELETE_RECORD_LIST_SCHEMA)


def encode_metadata(entries: Mapping[HeaderKey, str]) -> bytes:
    """Encodes a header or footer map, keeping the mapping's order.

    Raises:
        HudiFileFormatError: for a key outside 0..8, which readers reject.
    """
    parts = [_INT.pack(len(entries))]
    for key, value in entries.items():
        if not 0 <= int(key) <= _MAX_KEY:
            raise HudiFileFormatError(f"invalid log block metadata key {int(key)} (valid keys are 0..8)")
        raw = value.encode("utf-8")
        parts.append(_INT.pack(int(key)) + _INT.pack(len(raw)) + raw)
    return b"".join(parts)


def frame_block(
    block_type: BlockType,
    header: Mapping[HeaderKey, str],
    content: bytes,
    footer: Mapping[HeaderKey, str] | None = None,
) -> bytes:
    """Wraps *content* into one complete block: MAGIC, length, header, content, footer, trailer.

    Args:
        block_type: the type code written after the format version.
        header: the header map, written in its iteration order.
        content: the type-specific content bytes.
        footer: the footer map; ``None`` writes the empty map Java always writes.

    Returns:
        The block bytes, whose trailer is ``L + 6``.
    """
    body = b"".join(
        (
            _INT.pack(LOG_FORMAT_VERSION),
            _INT.pack(int(block_type)),
            encode_metadata(header),
            _LONG.pack(len(content)),
            content,
            encode_metadata(footer or {}),
        )
    )
    length = len(body) + _LONG.size  # everything after L, trailer included
    return b"".join((MAGIC, _LONG.pack(length), body, _LONG.pack(length + len(MAGIC))))


def _header(instant_time: str, schema_json: str, partial: bool) -> dict[HeaderKey, str]:
    """A data block's header: its instant, its writer schema, and ``IS_PARTIAL`` for partial updates."""
    header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.SCHEMA: schema_json}
    if partial:
        header[HeaderKey.IS_PARTIAL] = "true"
    return header


def _ordered(header: dict[HeaderKey, str], order: Sequence[HeaderKey] | None) -> dict[HeaderKey, str]:
    """*header* with the keys of *order* first, in that order, then the rest as built."""
    if order is None:
        return header
    unknown = [HeaderKey(k).name for k in order if k not in header]
    if unknown:
        raise HudiFileFormatError(
            f"header_order names keys this block does not carry: {', '.join(unknown)}",
            help=f"use only {', '.join(k.name for k in header)}",
        )
    ordered = {HeaderKey(k): header[HeaderKey(k)] for k in order}
    ordered.update((k, v) for k, v in header.items() if k not in ordered)
    return ordered


def encode_avro_data_content(schema_json: str, records: Iterable[Mapping[str, Any]] | pa.Table) -> bytes:
    """The content of an Avro data block: version 3, record count, length-prefixed datums.

    *records* given as an Arrow table are encoded column-wise when the schema is flat
    (:mod:`hudi_sql.log.avro_columns`, the same bytes), else converted to ``fastavro`` dicts.

    Raises:
        HudiSchemaError: when a record does not fit *schema_json*.
    """
    if isinstance(records, pa.Table):
        body = encode_datums(schema_json, records)
        if body is not None:
            return _INT.pack(BLOCK_CONTENT_VERSION) + _INT.pack(records.num_rows) + body
        records = records.to_pylist(maps_as_pydicts="strict")
    schema = parse_avro_schema(schema_json)
    buffer = io.BytesIO()
    parts: list[bytes] = []
    count = 0
    for index, record in enumerate(records):
        buffer.seek(0)
        buffer.truncate()
        try:
            fastavro.schemaless_writer(buffer, schema, record)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise HudiSchemaError(f"record {index} does not fit the block schema: {exc}") from exc
        datum = buffer.getvalue()
        parts.append(_INT.pack(len(datum)))
        parts.append(datum)
        count += 1
    return _INT.pack(BLOCK_CONTENT_VERSION) + _INT.pack(count) + b"".join(parts)


def encode_avro_data_block(
    instant_time: str,
    schema_json: str,
    records: Iterable[Mapping[str, Any]] | pa.Table,
    *,
    header_order: Sequence[HeaderKey] | None = None,
    partial: bool = False,
) -> bytes:
    """One Avro data block (type 3), as Hudi 0.14 writes it.

    Args:
        instant_time: the deltacommit writing the block (header ``INSTANT_TIME``).
        schema_json: the Avro writer schema with meta fields (header ``SCHEMA``); the records
            are encoded with it, so it must describe them exactly.
        records: full rows, as ``fastavro`` dicts or an Arrow table, meta fields set
            (``_hoodie_commit_time`` equal to *instant_time*, ``_hoodie_file_name`` the file id).
        header_order: header key order; defaults to ``INSTANT_TIME, SCHEMA``.
        partial: the rows are partial updates (*schema_json* names some of the table's columns):
            header ``IS_PARTIAL=true``, as Apache Hudi 1.x marks them.

    Raises:
        HudiSchemaError: when a record does not fit *schema_json*.
    """
    header = _header(instant_time, schema_json, partial)
    content = encode_avro_data_content(schema_json, records)
    return frame_block(BlockType.AVRO_DATA, _ordered(header, header_order), content)


def encode_cdc_data_block(instant_time: str, schema_json: str, records: Iterable[Mapping[str, Any]]) -> bytes:
    """The block of a CDC log file (type 6): Avro content as type 3's, the header ``SCHEMA``
    (the CDC schema of the logging mode) before ``INSTANT_TIME``, as Apache Hudi writes it."""
    header = {HeaderKey.SCHEMA: schema_json, HeaderKey.INSTANT_TIME: instant_time}
    return frame_block(BlockType.CDC_DATA, header, encode_avro_data_content(schema_json, records))


def encode_parquet_data_block(
    instant_time: str,
    schema_json: str,
    table: pa.Table,
    *,
    compression: str = "gzip",
    header_order: Sequence[HeaderKey] | None = None,
    partial: bool = False,
) -> bytes:
    """One parquet data block (type 5): a complete parquet file as content, no version prefix.

    hudi-rs reads pyarrow-written blocks; Java 0.14 acceptance is untested, so prefer
    :func:`encode_avro_data_block` for tables Java must read.

    Args:
        instant_time: the deltacommit writing the block.
        schema_json: the Avro writer schema for header ``SCHEMA`` (Java uses it as the
            writer schema when reading the parquet bytes).
        table: the full rows, meta columns first.
        compression: parquet codec; gzip matches what Hudi writes by default.
        header_order: header key order; defaults to ``INSTANT_TIME, SCHEMA``.
        partial: partial updates (see :func:`encode_avro_data_block`).
    """
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **codec_options(compression))
    header = _header(instant_time, schema_json, partial)
    return frame_block(BlockType.PARQUET_DATA, _ordered(header, header_order), sink.getvalue().to_pybytes())


def _wrapped(record: DeleteRecord) -> tuple[str, dict[str, Any]]:
    ordering = record.ordering_value if record.ordering_value is not None else NATURAL_ORDER
    return ordering.kind.full_name, {"value": ordering.value}


def encode_delete_content(deletes: Iterable[DeleteRecord]) -> bytes:
    """The content of a delete block: version 3, Avro length, one ``HoodieDeleteRecordList``.

    Raises:
        HudiFileFormatError: when an ordering value does not fit its wrapper.
    """
    datum = {
        "deleteRecordList": [
            {"recordKey": d.record_key, "partitionPath": d.partition_path, "orderingVal": _wrapped(d)}
            for d in deletes
        ]
    }
    buffer = io.BytesIO()
    try:
        fastavro.schemaless_writer(buffer, _PARSED_DELETE_SCHEMA, datum)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise HudiFileFormatError(f"delete record does not fit HoodieDeleteRecordList: {exc}") from exc
    avro = buffer.getvalue()
    return _INT.pack(BLOCK_CONTENT_VERSION) + _INT.pack(len(avro)) + avro


def encode_delete_block(
    instant_time: str,
    schema_json: str,
    deletes: Iterable[DeleteRecord],
    *,
    header_order: Sequence[HeaderKey] | None = None,
) -> bytes:
    """One delete block (type 1).

    Args:
        instant_time: the deltacommit writing the block.
        schema_json: the table's Avro schema; Java writes it in ``SCHEMA`` although the
            content does not use it.
        deletes: the keys to delete. An ``ordering_value`` of ``None`` is written as
            ``IntWrapper(0)``, Spark SQL ``DELETE``'s natural-order delete; an event-time
            delete names its wrapper with :class:`~hudi_sql.log.block.OrderingValue`.
        header_order: header key order; defaults to ``INSTANT_TIME, SCHEMA``.
    """
    header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.SCHEMA: schema_json}
    return frame_block(BlockType.DELETE, _ordered(header, header_order), encode_delete_content(deletes))


def encode_rollback_block(
    instant_time: str,
    target_instant_time: str,
    *,
    header_order: Sequence[HeaderKey] | None = None,
) -> bytes:
    """One rollback command block (type 0, empty content).

    Args:
        instant_time: the rollback instant.
        target_instant_time: the failed instant whose blocks readers must drop.
        header_order: header key order; defaults to ``INSTANT_TIME, COMMAND_BLOCK_TYPE,
            TARGET_INSTANT_TIME``, the order of the real rollback sample.
    """
    header = {
        HeaderKey.INSTANT_TIME: instant_time,
        HeaderKey.COMMAND_BLOCK_TYPE: str(int(CommandType.ROLLBACK)),
        HeaderKey.TARGET_INSTANT_TIME: target_instant_time,
    }
    return frame_block(BlockType.COMMAND, _ordered(header, header_order), b"")
