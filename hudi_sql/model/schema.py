"""The Hudi-side facts of a table schema: meta columns and how Hudi names and spells its Avro schema.

Hudi stores a table's schema as Avro schema JSON in three places, and each place has its own
spelling (Hudi 0.14, table version 6):

* ``extraMetadata.schema`` in commit metadata (``style="commit"``): nullable columns are
  ``["null", T]`` with ``"default":null``. This is spark-avro's ``SchemaConverters.toAvroType``
  passed through Hudi's ``AvroConversionUtils.getAvroSchemaWithDefaults``.
* ``hoodie.table.create.schema`` in ``hoodie.properties`` (``style="create"``): nullable columns
  are ``[T, "null"]`` without a default, the raw ``toAvroType`` output.
* The log block ``SCHEMA`` header and the base file ``parquet.avro.schema`` footer: the commit
  form with the five meta columns in front (``with_meta_fields=True``,
  ``HoodieAvroUtils.addMetadataFields``).

Naming follows ``toAvroType``: the top record is ``<table>_record`` in namespace
``hoodie.<table>``; a nested record is named after its field, in the namespace of the enclosing
record's full name; a decimal is a ``fixed`` named ``fixed`` in the namespace
``<enclosing record full name>.<field>``. The JSON is compact and keys come in the order Avro's
``Schema.toString()`` writes them (:func:`avro_json`), so strings compare byte for byte with
what Java wrote.

This module is the spec core's part: names, constants and Avro spellings, no engine types. The
conversions between Spark SQL types and Avro / Arrow live in :mod:`hudi_sql.spark.schema`, and
the check of an incoming batch against the table schema in :mod:`hudi_sql.spark.schema_compat`,
because ``model/`` never imports pyspark.
"""

from __future__ import annotations

__all__ = [
    "AVRO_STYLES",
    "COMMIT_SEQNO_FIELD",
    "COMMIT_TIME_FIELD",
    "FILE_NAME_FIELD",
    "META_FIELDS",
    "PARTITION_PATH_FIELD",
    "RECORD_KEY_FIELD",
    "AvroStyle",
    "avro_json",
    "avro_namespace",
    "avro_record_name",
    "conform",
    "is_avro_name",
    "is_null_branch",
    "meta_fields_avro",
    "min_bytes_for_precision",
]

import json
import re
from typing import Any, Literal

import pyarrow as pa

from hudi_sql.errors import HudiSchemaError

COMMIT_TIME_FIELD = "_hoodie_commit_time"
COMMIT_SEQNO_FIELD = "_hoodie_commit_seqno"
RECORD_KEY_FIELD = "_hoodie_record_key"
PARTITION_PATH_FIELD = "_hoodie_partition_path"
FILE_NAME_FIELD = "_hoodie_file_name"

#: The five meta columns, in the order they lead every base file and log block schema.
META_FIELDS: tuple[str, ...] = (
    COMMIT_TIME_FIELD,
    COMMIT_SEQNO_FIELD,
    RECORD_KEY_FIELD,
    PARTITION_PATH_FIELD,
    FILE_NAME_FIELD,
)

AvroStyle = Literal["commit", "create"]
#: The Avro spellings of a table schema, in the order of :data:`AvroStyle`.
AVRO_STYLES: tuple[AvroStyle, ...] = ("commit", "create")

_AVRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_]")
_INVALID_FIRST_CHAR = re.compile(r"[^A-Za-z_]")


def is_avro_name(name: str) -> bool:
    """Whether *name* is a valid Avro field name (letters, digits, ``_``; not starting with a digit)."""
    return _AVRO_NAME.match(name) is not None


def _sanitize_name(name: str) -> str:
    """``HoodieAvroUtils.sanitizeName``: invalid Avro name characters become ``__``."""
    if not name:
        raise HudiSchemaError("A table name must not be empty")
    if _INVALID_FIRST_CHAR.match(name[0]):
        name = "__" + name[1:]
    return _INVALID_NAME_CHARS.sub("__", name)


def avro_record_name(table_name: str) -> str:
    """The Avro record name Hudi gives a table's schema: ``<sanitized table>_record``."""
    return f"{_sanitize_name(table_name)}_record"


def avro_namespace(table_name: str) -> str:
    """The Avro namespace Hudi gives a table's schema: ``hoodie.<sanitized table>``."""
    return f"hoodie.{_sanitize_name(table_name)}"


def min_bytes_for_precision(precision: int) -> int:
    """Spark's ``computeMinBytesForDecimalPrecision``: smallest n with 2^(8n-1) >= 10^precision."""
    num_bytes = 1
    while 2 ** (8 * num_bytes - 1) < 10**precision:
        num_bytes += 1
    return num_bytes


def meta_fields_avro() -> tuple[dict[str, Any], ...]:
    """``HoodieAvroUtils.addMetadataFields``: optional strings with an empty doc and null default."""
    return tuple(
        {"name": name, "type": ["null", "string"], "doc": "", "default": None} for name in META_FIELDS
    )


def is_null_branch(branch: Any) -> bool:
    """Whether an Avro union branch is the ``null`` type (by name or as ``{"type": "null"}``)."""
    return branch == "null" or (isinstance(branch, dict) and branch.get("type") == "null")


def avro_json(schema: dict[str, Any]) -> str:
    """An Avro schema dict serialised exactly as Java's ``Schema.toString()`` writes it."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def conform(table: pa.Table, target: pa.Schema) -> pa.Table:
    """*table* with exactly *target*'s columns and types (missing columns null, e.g. after evolution)."""
    columns = [
        table.column(f.name) if f.name in table.column_names and table.schema.field(f.name).type == f.type
        else table.column(f.name).cast(f.type) if f.name in table.column_names
        else pa.nulls(table.num_rows, f.type)
        for f in target
    ]
    return pa.Table.from_arrays(columns, schema=target)
