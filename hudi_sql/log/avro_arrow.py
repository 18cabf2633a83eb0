"""Avro schema to Arrow schema, for the rows of Avro data blocks.

Hudi writer schemas make every field a ``["null", T]`` union, so the conversion maps such a
union to a nullable ``T`` and refuses unions with more than one non-null branch (Hudi never
writes them, and Arrow has no faithful equivalent that round-trips through ``fastavro``).

Values keep the Python types ``fastavro`` decodes to (``Decimal``, aware ``datetime`` in UTC,
``date``), and Arrow turns them back into the same values, so a decoded block re-encodes to
the same bytes.
"""

from __future__ import annotations

__all__ = ["avro_records_to_arrow", "avro_schema_to_arrow", "parse_avro_schema"]

import functools
import json
from collections.abc import Sequence
from typing import Any

import fastavro
import fastavro.schema
import pyarrow as pa

from hudi_sql.errors import HudiFileFormatError

_PRIMITIVES: dict[str, pa.DataType] = {
    "null": pa.null(),
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}

_LOGICAL: dict[tuple[str, str], pa.DataType] = {
    ("int", "date"): pa.date32(),
    ("int", "time-millis"): pa.time32("ms"),
    ("long", "time-micros"): pa.time64("us"),
    ("long", "timestamp-millis"): pa.timestamp("ms", tz="UTC"),
    ("long", "timestamp-micros"): pa.timestamp("us", tz="UTC"),
    ("long", "local-timestamp-millis"): pa.timestamp("ms"),
    ("long", "local-timestamp-micros"): pa.timestamp("us"),
}


@functools.lru_cache(maxsize=64)
def parse_avro_schema(schema_json: str) -> Any:
    """The ``fastavro`` parsed form of a schema JSON string (cached: blocks repeat it).

    Raises:
        HudiFileFormatError: when the string is not a valid Avro schema.
    """
    try:
        return fastavro.parse_schema(json.loads(schema_json))
    except (ValueError, KeyError, TypeError, AttributeError, fastavro.schema.SchemaParseException) as exc:
        raise HudiFileFormatError(f"invalid Avro schema in log block header: {exc}") from exc


@functools.lru_cache(maxsize=64)
def _arrow_schema_cached(schema_json: str) -> pa.Schema:
    try:
        expanded = fastavro.parse_schema(json.loads(schema_json), expand=True)
    except (ValueError, KeyError, TypeError, AttributeError, fastavro.schema.SchemaParseException) as exc:
        raise HudiFileFormatError(f"invalid Avro schema in log block header: {exc}") from exc
    if not isinstance(expanded, dict) or expanded.get("type") != "record":
        raise HudiFileFormatError("the SCHEMA of a data block must be an Avro record")
    return pa.schema([_to_field(f) for f in expanded["fields"]])


def avro_schema_to_arrow(schema_json: str) -> pa.Schema:
    """The Arrow schema of rows written with the Avro record schema *schema_json*.

    Args:
        schema_json: an Avro record schema, e.g. a block's ``SCHEMA`` header.

    Returns:
        One Arrow field per record field; ``["null", T]`` fields are nullable ``T``.

    Raises:
        HudiFileFormatError: for invalid JSON, a non-record schema, or a union with several
            non-null branches.
    """
    return _arrow_schema_cached(schema_json)


def avro_records_to_arrow(records: Sequence[dict[str, Any]], schema_json: str) -> pa.Table:
    """Rows decoded by ``fastavro`` as a ``pyarrow.Table`` typed by their Avro schema.

    Raises:
        HudiFileFormatError: when the schema does not convert or a value does not fit it.
    """
    schema = avro_schema_to_arrow(schema_json)
    try:
        return pa.Table.from_pylist(list(records), schema=schema)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise HudiFileFormatError(f"Avro records do not fit their Arrow schema: {exc}") from exc


def _to_field(avro_field: dict[str, Any]) -> pa.Field:
    arrow_type, nullable = _to_type(avro_field["type"])
    return pa.field(avro_field["name"], arrow_type, nullable=nullable)


def _to_type(avro_type: Any) -> tuple[pa.DataType, bool]:
    """Arrow type and nullability of an (expanded) Avro type."""
    if isinstance(avro_type, list):
        branches = [b for b in avro_type if b != "null"]
        if len(branches) != 1:
            raise HudiFileFormatError(
                f"Avro union {json.dumps(avro_type)[:200]} has {len(branches)} non-null branches",
                help='only ["null", T] unions are supported in data block schemas',
            )
        return _to_type(branches[0])[0], len(branches) != len(avro_type)
    if isinstance(avro_type, str):
        if avro_type not in _PRIMITIVES:
            raise HudiFileFormatError(f"unknown Avro type '{avro_type}' in data block schema")
        return _PRIMITIVES[avro_type], avro_type == "null"
    kind = avro_type.get("type")
    logical = avro_type.get("logicalType")
    if logical == "decimal" and kind in ("bytes", "fixed"):
        precision = int(avro_type["precision"])
        scale = int(avro_type.get("scale", 0))
        factory = pa.decimal128 if precision <= 38 else pa.decimal256
        return factory(precision, scale), False
    if logical is not None and (kind, logical) in _LOGICAL:
        return _LOGICAL[(kind, logical)], False
    if kind == "record":
        return pa.struct([_to_field(f) for f in avro_type["fields"]]), False
    if kind == "array":
        item_type, item_nullable = _to_type(avro_type["items"])
        return pa.list_(pa.field("element", item_type, nullable=item_nullable)), False
    if kind == "map":
        value_type, value_nullable = _to_type(avro_type["values"])
        return pa.map_(pa.string(), pa.field("value", value_type, nullable=value_nullable)), False
    if kind == "enum":
        return pa.string(), False
    if kind == "fixed":
        return pa.binary(int(avro_type["size"])), False
    return _to_type(kind)
