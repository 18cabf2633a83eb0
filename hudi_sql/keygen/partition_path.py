"""Partition path strings as Spark Column expressions, the way Hudi 0.14 builds them.

A partition path is one part per partition field, joined with ``/`` (one folder level per
field). Each part is built from the field's value as a string, in this order
(``KeyGenUtils.getPartitionPath`` / ``getRecordPartitionPath``):

1. a null or empty value becomes :data:`DEFAULT_PARTITION_PATH` (``__HIVE_DEFAULT_PARTITION__``;
   tables written before Hudi 0.12 used ``default``);
2. with ``hoodie.datasource.write.partitionpath.urlencode=true`` the value is escaped with
   Hive's rules (:func:`escape_path_name`);
3. with ``hoodie.datasource.write.hive_style_partitioning=true`` it is prefixed with
   ``<field>=``, using the field name exactly as configured (``a.b=`` for a nested field).

Without URL encoding a value that contains ``/`` is written as it is, so it becomes several
folder levels (``2023/04/01`` is three levels); Hudi does the same, and readers then see a
deeper partition than the number of partition fields.

Everything here builds Spark expressions from ``pyspark.sql.functions``: no Python UDF runs.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_PARTITION_PATH",
    "DEPRECATED_DEFAULT_PARTITION_PATH",
    "ESCAPED_CHARACTERS",
    "PARTITION_PATH_SEPARATOR",
    "SQL_TIMESTAMP_FORMAT",
    "escape_path_name",
    "escape_path_name_py",
    "hive_style",
    "join_parts",
    "partition_part",
    "sql_timestamp_part",
    "with_sql_fallback",
]

from collections.abc import Sequence

from pyspark.sql import Column
from pyspark.sql import functions as F

DEFAULT_PARTITION_PATH = "__HIVE_DEFAULT_PARTITION__"
"""What a null or empty partition value becomes (``PartitionPathEncodeUtils.DEFAULT_PARTITION_PATH``)."""

DEPRECATED_DEFAULT_PARTITION_PATH = "default"
"""The marker tables written before Hudi 0.12 used; readers still recognise it."""

PARTITION_PATH_SEPARATOR = "/"

# PartitionPathEncodeUtils.charToEscape: every char below ' ' (0x00 included: the Java loop
# starts at 0) plus this list. Only ASCII is escaped; other characters pass through.
ESCAPED_CHARACTERS: tuple[str, ...] = (
    *(chr(code) for code in range(0x20)),
    '"',
    "#",
    "%",
    "'",
    "*",
    "/",
    ":",
    "=",
    "?",
    "\\",
    "\x7f",
    "{",
    "[",
    "]",
    "^",
)

_ESCAPE_CLASS = "[" + "".join(f"\\x{ord(ch):02X}" for ch in ESCAPED_CHARACTERS) + "]"


def escape_path_name_py(value: str) -> str:
    """Pure-Python ``PartitionPathEncodeUtils.escapePathName``: the reference the tests compare with."""
    if not value:
        return DEFAULT_PARTITION_PATH
    escaped = set(ESCAPED_CHARACTERS)
    return "".join(f"%{ord(ch):02X}" if ch in escaped else ch for ch in value)


def escape_path_name(value: Column) -> Column:
    """Hive-style escaping of a partition value: each character of the escape set becomes ``%XX``.

    ``%`` is replaced first, so that the ``%`` of later escapes is not escaped again. Values
    without any character to escape (nearly all) skip the replace chain after one regex test.
    Null stays null, the empty string stays empty: callers map both to the default partition
    before or after escaping, as Hudi does.
    """
    escaped = F.replace(value, F.lit("%"), F.lit("%25"))
    for ch in ESCAPED_CHARACTERS:
        if ch != "%":
            escaped = F.replace(escaped, F.lit(ch), F.lit(f"%{ord(ch):02X}"))
    return F.when(value.rlike(_ESCAPE_CLASS), escaped).otherwise(value)


def hive_style(field: str, part: Column, *, enabled: bool) -> Column:
    """``<field>=<part>`` when hive-style partitioning is on, else *part* unchanged."""
    return F.concat(F.lit(f"{field}="), part) if enabled else part


def partition_part(value: Column, field: str, *, hive_style_partitioning: bool, url_encode: bool) -> Column:
    """One part of a partition path from a field's value already rendered as a string.

    Args:
        value: the value as Hudi stringifies it (see :mod:`hudi_sql.keygen.field_value`).
        field: the partition field as configured; it names the hive-style prefix.
        hive_style_partitioning: prefix the part with ``<field>=``.
        url_encode: escape the value (:func:`escape_path_name`).
    """
    rendered = escape_path_name(value) if url_encode else value
    part = F.when(value.isNull() | (value == F.lit("")), F.lit(DEFAULT_PARTITION_PATH)).otherwise(rendered)
    return hive_style(field, part, enabled=hive_style_partitioning)


def join_parts(parts: Sequence[Column]) -> Column:
    """Join parts with ``/``; the result is null when any part is null (an invalid record)."""
    if not parts:
        return F.lit("")
    if len(parts) == 1:
        return parts[0]
    pieces: list[Column] = []
    for index, part in enumerate(parts):
        if index:
            pieces.append(F.lit(PARTITION_PATH_SEPARATOR))
        pieces.append(part)
    return F.concat(*pieces)


SQL_TIMESTAMP_FORMAT = "yyyy-MM-dd HH:mm:ss"
"""``SqlKeyGenerator.timestampTimeFormat``: how Hudi's Spark SQL writes a timestamp partition value."""


def sql_timestamp_part(micros: Column, field: str, *, hive_style_partitioning: bool) -> Column:
    """The part ``SqlKeyGenerator`` writes for a ``timestamp`` partition column.

    Hudi's SQL layer takes the part the wrapped key generator made (micros since the epoch),
    truncates it to millis, prints it with Joda ``yyyy-MM-dd HH:mm:ss`` in the JVM default time
    zone, and always escapes the result (``2023-04-01 12%3A01%3A00``), whatever
    ``partitionpath.urlencode`` says. We print in the Spark session time zone, which hudi-sql
    sessions set to UTC.
    """
    millis = F.call_function("div", micros, F.lit(1000))
    text = F.date_format(F.timestamp_millis(millis), SQL_TIMESTAMP_FORMAT)
    return hive_style(field, escape_path_name(text), enabled=hive_style_partitioning)


def with_sql_fallback(raw_parts: Sequence[Column], sql_parts: Sequence[Column | None]) -> Column:
    """Join parts, using the SQL rewrite of timestamp parts where ``SqlKeyGenerator`` would.

    ``SqlKeyGenerator`` splits the finished path on ``/`` (Java ``String.split``: trailing empty
    strings dropped) and rewrites only when it gets exactly one fragment per partition column;
    otherwise (a value containing ``/``) it keeps the path unchanged. This is reproduced, so a
    path is only rewritten when Hudi would rewrite it.
    """
    raw = join_parts(raw_parts)
    if all(part is None for part in sql_parts):
        return raw
    converted = join_parts([sql if sql is not None else part for part, sql in zip(raw_parts, sql_parts)])
    fragments = F.size(F.split(F.regexp_replace(raw, "/+$", ""), PARTITION_PATH_SEPARATOR))
    return F.when(fragments == F.lit(len(raw_parts)), converted).otherwise(raw)
