"""The blocks of a Hudi log file (table version 6), as plain values.

A log file is nothing but a sequence of blocks (no file header or footer). Each block carries
a header map whose ``INSTANT_TIME`` is the *only* link between the block and the commit that
wrote it: the log file name carries the base instant of the file slice, not the deltacommit.

Decoded blocks are frozen values; the bytes live in :mod:`hudi_sql.log.format` (writing) and
:mod:`hudi_sql.log.reader` (reading).

Record representation: a :class:`DataBlock` holds its rows as a ``pyarrow.Table``, whether
the block was Avro (type 3, decoded with the header ``SCHEMA`` as writer schema) or parquet
(type 5). Arrow keeps merge and projection columnar and hands over to Spark cheaply; the
Avro form that the encoder needs comes back from :meth:`DataBlock.to_avro_records`.
"""

from __future__ import annotations

__all__ = [
    "NATURAL_ORDER",
    "BlockType",
    "CommandBlock",
    "CommandType",
    "CorruptBlock",
    "DataBlock",
    "DeleteBlock",
    "DeleteRecord",
    "HeaderKey",
    "LogBlock",
    "OrderingKind",
    "OrderingValue",
    "RawBlock",
]

import datetime
import decimal
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.errors import HudiFileFormatError


class BlockType(IntEnum):
    """Block type codes: Java ``HoodieLogBlockType`` ordinals, written as an int32."""

    COMMAND = 0
    DELETE = 1
    CORRUPT = 2
    """Never written; readers synthesise it for bytes that fail the framing checks."""
    AVRO_DATA = 3
    HFILE_DATA = 4
    """Metadata table only; not supported here."""
    PARQUET_DATA = 5
    CDC_DATA = 6
    """The one block of a CDC log file (``.cdc``): Avro records of the CDC schema, coded as type 3's."""


class HeaderKey(IntEnum):
    """Header and footer map keys: Java ``HeaderMetadataType`` ordinals.

    Only keys 0-3 may be written in v6 tables: old Java readers index the enum by ordinal and
    crash on anything newer, and hudi-rs rejects keys above 8.
    """

    INSTANT_TIME = 0
    TARGET_INSTANT_TIME = 1
    SCHEMA = 2
    COMMAND_BLOCK_TYPE = 3
    COMPACTED_BLOCK_TIMES = 4
    RECORD_POSITIONS = 5
    BLOCK_IDENTIFIER = 6
    IS_PARTIAL = 7
    BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = 8


class CommandType(IntEnum):
    """Command block kinds; the header stores the ordinal as a decimal string (``"0"``)."""

    ROLLBACK = 0


class OrderingKind(Enum):
    """The branch of the ``orderingVal`` wrapper union in a delete block.

    Java wraps the ordering value in single-field records (namespace
    ``org.apache.hudi.avro.model``). They all encode like their one field, so only the union
    index tells them apart, and Java's delete rule compares values only when their Java
    classes match. The member value is the wrapper record's name; its position (from 1, as
    index 0 is ``null``) is the union index.
    """

    BOOLEAN = "BooleanWrapper"
    INT = "IntWrapper"
    LONG = "LongWrapper"
    FLOAT = "FloatWrapper"
    DOUBLE = "DoubleWrapper"
    BYTES = "BytesWrapper"
    STRING = "StringWrapper"
    DATE = "DateWrapper"
    """Days since the epoch as an ``int``; the wrapper has no logical type."""
    DECIMAL = "DecimalWrapper"
    """``decimal(30,15)`` over bytes; the value is a ``decimal.Decimal``."""
    TIME_MICROS = "TimeMicrosWrapper"
    """Microseconds since midnight as an ``int``."""
    TIMESTAMP_MICROS = "TimestampMicrosWrapper"
    """Microseconds since the epoch as an ``int``; the wrapper has no logical type."""

    @property
    def union_index(self) -> int:
        """The index of this branch in the ``orderingVal`` union (``null`` is 0)."""
        return list(OrderingKind).index(self) + 1

    @property
    def full_name(self) -> str:
        """The Avro full name of the wrapper record."""
        return f"org.apache.hudi.avro.model.{self.value}"


@dataclass(frozen=True)
class OrderingValue:
    """An ordering value of a delete record, with the wrapper it is written in.

    Attributes:
        kind: the wrapper (Java class) of the value; decides the union index written.
        value: the Python value: ``bool``, ``int``, ``float``, ``bytes``, ``str`` or
            ``decimal.Decimal``, as :class:`OrderingKind` documents per kind.
    """

    kind: OrderingKind
    value: Any

    @property
    def is_natural(self) -> bool:
        """True for ``IntWrapper(0)``: Java's "natural order" delete, which always applies.

        Java tests ``orderingVal.equals(0)``, so ``LongWrapper(0)`` is *not* natural.
        """
        return self.kind is OrderingKind.INT and self.value == 0 and not isinstance(self.value, bool)

    @classmethod
    def infer(cls, value: Any) -> OrderingValue:
        """Picks the wrapper from the Python type of *value*.

        A Python ``int`` becomes ``LongWrapper`` because ordering fields are usually BIGINT;
        build ``OrderingValue(OrderingKind.INT, v)`` for an INT ordering field. ``datetime``
        values become ``TimestampMicrosWrapper`` (naive ones are taken as UTC).

        Raises:
            HudiFileFormatError: when no wrapper fits the type.
        """
        if isinstance(value, OrderingValue):
            return value
        if isinstance(value, bool):
            return cls(OrderingKind.BOOLEAN, value)
        if isinstance(value, int):
            return cls(OrderingKind.LONG, value)
        if isinstance(value, float):
            return cls(OrderingKind.DOUBLE, value)
        if isinstance(value, (bytes, bytearray)):
            return cls(OrderingKind.BYTES, bytes(value))
        if isinstance(value, str):
            return cls(OrderingKind.STRING, value)
        if isinstance(value, decimal.Decimal):
            return cls(OrderingKind.DECIMAL, value)
        if isinstance(value, datetime.datetime):
            aware = value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
            delta = aware - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
            return cls(OrderingKind.TIMESTAMP_MICROS, delta // datetime.timedelta(microseconds=1))
        if isinstance(value, datetime.date):
            return cls(OrderingKind.DATE, (value - datetime.date(1970, 1, 1)).days)
        raise HudiFileFormatError(
            f"no ordering value wrapper for {type(value).__name__} value {value!r}",
            help="pass an OrderingValue with an explicit OrderingKind",
        )


NATURAL_ORDER = OrderingValue(OrderingKind.INT, 0)
"""``IntWrapper(0)``: what Spark SQL ``DELETE`` writes; the delete applies regardless of ordering."""

#: The wrapper of an ordering field's values by the field's Arrow type, as Java sees the value an
#: Avro record of that type holds (an ``int`` an ``Integer``, a timestamp its ``Long`` count).
_KINDS: list[tuple[Any, OrderingKind]] = [
    (pa.types.is_boolean, OrderingKind.BOOLEAN),
    (lambda t: pa.types.is_integer(t) and t.bit_width <= 32, OrderingKind.INT),
    (pa.types.is_integer, OrderingKind.LONG),
    (pa.types.is_timestamp, OrderingKind.LONG),
    (pa.types.is_float32, OrderingKind.FLOAT),
    (pa.types.is_floating, OrderingKind.DOUBLE),
    (lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t), OrderingKind.BYTES),
    (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t), OrderingKind.STRING),
    (pa.types.is_date32, OrderingKind.DATE),
    (pa.types.is_decimal, OrderingKind.DECIMAL),
    (pa.types.is_time, OrderingKind.TIME_MICROS),
]


def ordering_kind(arrow_type: pa.DataType) -> OrderingKind | None:
    """The wrapper of values of *arrow_type* (None: such a field cannot order records)."""
    return next((kind for test, kind in _KINDS if test(arrow_type)), None)


def ordering_values(column: pa.Array | pa.ChunkedArray) -> list[OrderingValue | None]:
    """Every value of an ordering column, wrapped by the column's type rather than by the Python
    value (a Python ``int`` of an ``INT`` column is an ``IntWrapper``: Java's merge casts the
    stored value and the delete's to one class, and an ``Integer`` is no ``Long``)."""
    kind = ordering_kind(column.type)
    if kind is None:
        raise HudiFileFormatError(f"no ordering value wrapper for type {column.type}",
                                  help="order records by a number, string, date or timestamp field")
    if pa.types.is_timestamp(column.type):
        column = pc.cast(pc.cast(column, pa.timestamp("us", tz=column.type.tz)), pa.int64())
    elif pa.types.is_time(column.type):
        column = pc.cast(pc.cast(column, pa.time64("us")), pa.int64())
    elif pa.types.is_date32(column.type):
        column = pc.cast(column, pa.int32())
    return [None if v is None else OrderingValue(kind, v) for v in column.to_pylist()]


@dataclass(frozen=True)
class DeleteRecord:
    """One key deleted by a delete block.

    Attributes:
        record_key: the exact ``_hoodie_record_key`` of the deleted record.
        partition_path: the exact ``_hoodie_partition_path`` (``""`` when non-partitioned).
        ordering_value: the wrapped ordering value. ``None`` is written as
            :data:`NATURAL_ORDER` (Java never writes ``null``, and readers may fail on it);
            a ``null`` read from a file also comes back as ``None`` and is merged as natural.
    """

    record_key: str
    partition_path: str
    ordering_value: OrderingValue | None = None


@dataclass(frozen=True)
class DataBlock:
    """An Avro (type 3) or parquet (type 5) data block: full rows written by one instant.

    Attributes:
        instant_time: header ``INSTANT_TIME``, the deltacommit that wrote the block.
        schema: header ``SCHEMA``, the Avro writer schema JSON (with the meta fields).
        records: the rows. For Avro blocks the Arrow schema derives from ``schema``
            (:func:`hudi_sql.log.avro_arrow.avro_schema_to_arrow`); for parquet blocks it is
            the parquet file's own.
        block_type: ``AVRO_DATA`` or ``PARQUET_DATA``.
        header: the header map as read, in file order (empty when built by hand); lets a
            re-encoder reproduce the file and exposes keys beyond the two fields above.
    """

    instant_time: str
    schema: str
    records: pa.Table
    block_type: BlockType = BlockType.AVRO_DATA
    header: Mapping[HeaderKey, str] = field(default_factory=dict, compare=False)

    @property
    def is_partial(self) -> bool:
        """Whether the rows hold only some columns (header ``IS_PARTIAL=true``, table version 8 on):
        partial updates, whose other columns are the record's before it."""
        return self.header.get(HeaderKey.IS_PARTIAL, "false").strip().lower() == "true"

    def to_arrow(self) -> pa.Table:
        """The rows as a ``pyarrow.Table`` (the stored representation)."""
        return self.records

    def to_avro_records(self) -> list[dict[str, Any]]:
        """The rows as dicts ready for ``fastavro`` (maps as dicts, decimals as ``Decimal``)."""
        rows: list[dict[str, Any]] = self.records.to_pylist(maps_as_pydicts="strict")
        return rows


@dataclass(frozen=True)
class DeleteBlock:
    """A delete block (type 1): keys deleted by one instant.

    Attributes:
        instant_time: header ``INSTANT_TIME``, the deltacommit that wrote the block.
        schema: header ``SCHEMA``: the table schema, which Java writes although the content
            does not use it.
        records: the deleted keys, in file order.
        header: the header map as read, in file order (empty when built by hand).
    """

    instant_time: str
    schema: str
    records: tuple[DeleteRecord, ...]
    header: Mapping[HeaderKey, str] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class CommandBlock:
    """A rollback command block (type 0, the only command): undoes ``target_instant_time``.

    Attributes:
        instant_time: header ``INSTANT_TIME``: the *rollback* instant.
        target_instant_time: header ``TARGET_INSTANT_TIME``: the failed instant whose blocks
            readers must drop.
        header: the header map as read, in file order (empty when built by hand).
    """

    instant_time: str
    target_instant_time: str
    header: Mapping[HeaderKey, str] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class CorruptBlock:
    """Bytes a reader skipped because they failed the framing checks (never written).

    Offsets follow Java's ``HoodieCorruptBlock``: the span starts right after the block's
    MAGIC and runs up to the next MAGIC (or the end of the file).

    Attributes:
        offset: the position of the first skipped byte in the log file.
        length: the number of bytes skipped.
    """

    offset: int
    length: int


@dataclass(frozen=True)
class RawBlock:
    """A well-framed block whose content is not decoded yet.

    Lets a scanner look at headers (instant, rollback target) before paying for decoding,
    and lets a re-encoder copy content it cannot rebuild (parquet written by parquet-mr).

    Attributes:
        offset: the position of the block's MAGIC in the log file.
        block_type: the type code.
        header: the header map in file order.
        content: the content bytes (field 7 of the framing).
        footer: the footer map (always empty in practice).
    """

    offset: int
    block_type: BlockType
    header: Mapping[HeaderKey, str]
    content: bytes
    footer: Mapping[HeaderKey, str] = field(default_factory=dict)

    @property
    def instant_time(self) -> str:
        """Header ``INSTANT_TIME``.

        Raises:
            HudiFileFormatError: when the header lacks it.
        """
        try:
            return self.header[HeaderKey.INSTANT_TIME]
        except KeyError:
            raise HudiFileFormatError(
                f"{self.block_type.name} block at offset {self.offset} has no INSTANT_TIME header"
            ) from None


LogBlock = DataBlock | DeleteBlock | CommandBlock | CorruptBlock
"""What :func:`hudi_sql.log.reader.read_log_blocks` yields."""
