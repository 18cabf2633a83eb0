"""The metadata table's records (``HoodieMetadataRecord``) and how two versions of one merge.

One Avro schema serves every partition (``avsc/HoodieMetadataRecord.avsc``, the writer schema
Apache Hudi 0.15 puts in its files, meta fields included although they stay unset); the field
``type`` says which part of a record is set:

* 1, partition list (key ``__all_partitions__``) and 2, file list (key a partition path):
  ``filesystemMetadata`` maps a partition or file name to ``{size, isDeleted}``;
* 3, column statistics of one column of one file: ``ColumnStatsMetadata``, the range as a
  union of one-field wrapper records (``IntWrapper``, ``StringWrapper``, ...);
* 4, the bloom filter of one base file: ``BloomFilterMetadata``, the filter's serialised string;
* 5, a record-index entry (not maintained here; decoded only to be carried over).

In an HFile the key is the HFile key; the Avro ``key`` field is left empty
(``HoodieHFileDataBlock.serializeRecord``), so decoding takes the key from the caller.

**Merging** (``HoodieMetadataPayload.preCombine``; *self* newer than *older*): file lists add
up, a tombstone removes the file or, when the older record does not have it, stays so it can
remove it from a base file later, sizes keep the larger; a bloom filter replaces the older one;
column statistics widen the range and add up the counts, unless either side is a tombstone,
in which case the newer wins; record-index entries replace.
"""

from __future__ import annotations

__all__ = [
    "METADATA_SCHEMA_JSON",
    "BloomFilterEntry",
    "ColumnStats",
    "FileInfo",
    "MetadataRecord",
    "RecordType",
    "StatKind",
    "StatValue",
    "decode_record",
    "encode_record",
]

import datetime
import decimal
import functools
import io
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum
from importlib import resources
from typing import Any

import fastavro

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.metadata.layout import REBUILD_HELP

_NAMESPACE = "org.apache.hudi.avro.model"
METADATA_SCHEMA_JSON = resources.files("hudi_sql.metadata").joinpath("avsc/HoodieMetadataRecord.avsc") \
    .read_text(encoding="utf-8").strip()
"""The writer schema of every metadata-table file, as Apache Hudi 0.15 writes it (log block
header ``SCHEMA``, base file info ``schema``)."""


class RecordType(IntEnum):
    """The ``type`` field: which part of the record is set."""

    PARTITION_LIST = 1
    FILE_LIST = 2
    COLUMN_STATS = 3
    BLOOM_FILTER = 4
    RECORD_INDEX = 5


@dataclass(frozen=True)
class FileInfo:
    """``HoodieMetadataFileInfo``: a file's size, or a tombstone (``is_deleted``, size 0)."""

    size: int
    is_deleted: bool = False


class StatKind(str, Enum):
    """The wrapper a column statistic is stored in; the value is the wrapper's record name."""

    BOOLEAN = "BooleanWrapper"
    INT = "IntWrapper"
    LONG = "LongWrapper"
    FLOAT = "FloatWrapper"
    DOUBLE = "DoubleWrapper"
    BYTES = "BytesWrapper"
    STRING = "StringWrapper"
    DATE = "DateWrapper"
    """Days since the epoch."""
    DECIMAL = "DecimalWrapper"
    """Stored with scale 15, precision at most 30 (values that do not fit are not indexed)."""
    TIME_MICROS = "TimeMicrosWrapper"
    TIMESTAMP_MICROS = "TimestampMicrosWrapper"
    """Microseconds since the epoch."""


_KINDS = {f"{_NAMESPACE}.{k.value}": k for k in StatKind} | {k.value: k for k in StatKind}


@dataclass(frozen=True)
class StatValue:
    """A minimum or maximum of a column, with the wrapper it is stored in.

    Values compare as Java compares the unwrapped values (``Comparable`` natural order), which
    for bytes is ``ByteBuffer``'s signed byte order.
    """

    kind: StatKind
    value: Any

    def sort_key(self) -> Any:
        if self.kind is StatKind.BYTES:
            return tuple(b - 256 if b > 127 else b for b in self.value)
        return self.value


@dataclass(frozen=True)
class ColumnStats:
    """``HoodieMetadataColumnStats``: the range and counts of one column in one file.

    A tombstone (``is_deleted``) marks the statistics of a file that is gone.
    """

    file_name: str
    column_name: str
    min_value: StatValue | None
    max_value: StatValue | None
    value_count: int
    null_count: int
    total_size: int = 0
    total_uncompressed_size: int = 0
    is_deleted: bool = False

    def combine(self, older: ColumnStats) -> ColumnStats:
        """This (newer) statistic merged onto *older* (``mergeColumnStatsRecords``)."""
        if self.is_deleted or older.is_deleted:
            return self
        lows = [v for v in (older.min_value, self.min_value) if v is not None]
        highs = [v for v in (older.max_value, self.max_value) if v is not None]
        return ColumnStats(
            self.file_name, self.column_name,
            min(lows, key=StatValue.sort_key) if lows else None,
            max(highs, key=StatValue.sort_key) if highs else None,
            older.value_count + self.value_count, older.null_count + self.null_count,
            older.total_size + self.total_size, older.total_uncompressed_size + self.total_uncompressed_size,
            self.is_deleted)


@dataclass(frozen=True)
class BloomFilterEntry:
    """``HoodieMetadataBloomFilter``: a base file's bloom filter as its footer stores it.

    Attributes:
        type_code: ``DYNAMIC_V0`` or ``SIMPLE`` (empty on a tombstone).
        timestamp: the instant that wrote the record.
        bloom_filter: the filter's serialised string, UTF-8 (empty on a tombstone).
        is_deleted: the file is gone.
    """

    type_code: str
    timestamp: str
    bloom_filter: bytes
    is_deleted: bool = False


@dataclass(frozen=True)
class MetadataRecord:
    """One ``HoodieMetadataRecord``: a key and the part its type sets.

    Attributes:
        key: the record key (``__all_partitions__``, a partition path, or an index key).
        record_type: which part is set.
        files: types 1 and 2: entry name (partition or file) -> info, tombstones included.
        column_stats: type 3.
        bloom_filter: type 4.
        record_index: type 5, the Avro datum as read (carried, never interpreted).
    """

    key: str
    record_type: RecordType
    files: Mapping[str, FileInfo] = field(default_factory=dict)
    column_stats: ColumnStats | None = None
    bloom_filter: BloomFilterEntry | None = None
    record_index: Mapping[str, Any] | None = None

    def combine(self, older: MetadataRecord) -> MetadataRecord:
        """This (newer) record merged onto *older*, as ``HoodieMetadataPayload.preCombine``.

        Raises:
            HudiFileFormatError: when the two records disagree on their type.
        """
        if older.record_type is not self.record_type:
            raise HudiFileFormatError(
                f"metadata record '{self.key}' is of type {int(self.record_type)} but an older version "
                f"is of type {int(older.record_type)}",
                help=REBUILD_HELP)
        if self.record_type in (RecordType.PARTITION_LIST, RecordType.FILE_LIST):
            return replace(self, files=_combine_files(self.files, older.files))
        if self.record_type is RecordType.COLUMN_STATS and self.column_stats and older.column_stats:
            return replace(self, column_stats=self.column_stats.combine(older.column_stats))
        return self  # bloom filters and record-index entries: the newer replaces

    def live(self) -> dict[str, int]:
        """Files or partitions that are not tombstones: name -> size."""
        return {name: info.size for name, info in self.files.items() if not info.is_deleted}

    @property
    def is_tombstone(self) -> bool:
        """An index record that marks its file gone."""
        entry = self.column_stats or self.bloom_filter
        return entry is not None and entry.is_deleted


def _combine_files(newer: Mapping[str, FileInfo], older: Mapping[str, FileInfo]) -> dict[str, FileInfo]:
    merged = dict(older)
    for name, new in newer.items():
        old = merged.get(name)
        if old is None:
            merged[name] = new  # a tombstone is kept: it may delete the file from a base file
        elif new.is_deleted:
            if old.is_deleted:
                merged[name] = new
            else:
                del merged[name]
        else:
            merged[name] = FileInfo(max(new.size, old.size))
    return merged


# -- Avro --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _parsed(schema_json: str) -> Any:
    return fastavro.parse_schema(json.loads(schema_json))


def _wrap(value: StatValue | None) -> Any:
    if value is None:
        return None
    raw = value.value
    if value.kind is StatKind.DECIMAL:
        raw = decimal.Decimal(raw)
    return (f"{_NAMESPACE}.{value.kind.value}", {"value": raw})


def _unwrap(datum: Any, what: str) -> StatValue | None:
    if datum is None:
        return None
    if not (isinstance(datum, tuple) and len(datum) == 2 and isinstance(datum[1], dict)):
        raise HudiFileFormatError(f"{what}: a column statistic is not a value wrapper: {datum!r}")
    kind = _KINDS.get(datum[0])
    if kind is None:
        raise HudiFileFormatError(f"{what}: unknown value wrapper {datum[0]!r}")
    value = datum[1].get("value")
    if kind is StatKind.DATE and isinstance(value, datetime.date):
        value = (value - datetime.date(1970, 1, 1)).days
    return StatValue(kind, value)


def encode_record(record: MetadataRecord, *, base_file_name: str | None = None,
                  schema_json: str = METADATA_SCHEMA_JSON) -> bytes:
    """The Avro bytes (schemaless) of *record*, its ``key`` field left empty as in an HFile.

    Args:
        base_file_name: in a base file, its name, which Apache Hudi's HFile writer puts in the
            ``_hoodie_file_name`` meta field (log blocks leave every meta field null).
    """
    datum: dict[str, Any] = {"_hoodie_file_name": base_file_name, "key": "", "type": int(record.record_type), "filesystemMetadata": None,
                             "BloomFilterMetadata": None, "ColumnStatsMetadata": None,
                             "recordIndexMetadata": record.record_index}
    if record.record_type in (RecordType.PARTITION_LIST, RecordType.FILE_LIST):
        datum["filesystemMetadata"] = {name: {"size": info.size, "isDeleted": info.is_deleted}
                                       for name, info in record.files.items()}
    elif record.column_stats is not None:
        stats = record.column_stats
        datum["ColumnStatsMetadata"] = {
            "fileName": stats.file_name, "columnName": stats.column_name,
            "minValue": _wrap(stats.min_value), "maxValue": _wrap(stats.max_value),
            "valueCount": stats.value_count, "nullCount": stats.null_count, "totalSize": stats.total_size,
            "totalUncompressedSize": stats.total_uncompressed_size, "isDeleted": stats.is_deleted}
    elif record.bloom_filter is not None:
        bloom = record.bloom_filter
        datum["BloomFilterMetadata"] = {"type": bloom.type_code, "timestamp": bloom.timestamp,
                                        "bloomFilter": bloom.bloom_filter, "isDeleted": bloom.is_deleted}
    buffer = io.BytesIO()
    try:
        fastavro.schemaless_writer(buffer, _parsed(schema_json), datum)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise HudiFileFormatError(f"metadata record '{record.key}' does not fit HoodieMetadataRecord: {exc}") from exc
    return buffer.getvalue()


def decode_record(key: str, value: bytes, schema_json: str, *, what: str,
                  allowed: Collection[RecordType] = tuple(RecordType), partition: str = "") -> MetadataRecord:
    """The record of one HFile cell: *key* the HFile key, *value* Avro bytes of *schema_json*.

    Args:
        allowed: the record types the *partition* it was read from holds.

    Raises:
        HudiFileFormatError: a value that is not one record of the schema, of a type not
            *allowed*, or whose type's part is missing or malformed (the message names *what*).
    """
    stream = io.BytesIO(value)
    try:
        datum = fastavro.schemaless_reader(stream, _parsed(schema_json), None, return_record_name=True,
                                          return_record_name_override=True)
    except (EOFError, ValueError, IndexError, KeyError, UnicodeDecodeError, StopIteration, TypeError) as exc:
        raise HudiFileFormatError(f"{what}: the value does not decode as a HoodieMetadataRecord: {exc}") from exc
    if stream.tell() != len(value) or not isinstance(datum, dict):
        raise HudiFileFormatError(f"{what}: the value is {len(value)} bytes, its record {stream.tell()}")
    raw_type = datum.get("type")
    if isinstance(raw_type, bool) or raw_type not in set(RecordType):
        raise HudiFileFormatError(f"{what}: unknown metadata record type {raw_type!r}")
    record_type = RecordType(raw_type)
    if record_type not in allowed:
        raise HudiFileFormatError(
            f"{what}: record type {int(record_type)} does not belong to the {partition} partition "
            f"(types {', '.join(str(int(t)) for t in sorted(allowed))})")
    try:
        if record_type in (RecordType.PARTITION_LIST, RecordType.FILE_LIST):
            entries = datum.get("filesystemMetadata") or {}
            files = {name: FileInfo(int(info["size"]), bool(info["isDeleted"])) for name, info in entries.items()}
            return MetadataRecord(key, record_type, files)
        if record_type is RecordType.COLUMN_STATS:
            raw = datum["ColumnStatsMetadata"]
            stats = ColumnStats(raw["fileName"], raw["columnName"], _unwrap(raw["minValue"], what),
                                _unwrap(raw["maxValue"], what), int(raw["valueCount"] or 0),
                                int(raw["nullCount"] or 0), int(raw["totalSize"] or 0),
                                int(raw["totalUncompressedSize"] or 0), bool(raw["isDeleted"]))
            return MetadataRecord(key, record_type, column_stats=stats)
        if record_type is RecordType.BLOOM_FILTER:
            raw = datum["BloomFilterMetadata"]
            bloom = BloomFilterEntry(raw["type"], raw["timestamp"], bytes(raw["bloomFilter"]), bool(raw["isDeleted"]))
            return MetadataRecord(key, record_type, bloom_filter=bloom)
        return MetadataRecord(key, record_type, record_index=datum.get("recordIndexMetadata"))
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise HudiFileFormatError(f"{what}: a type {int(record_type)} record is malformed: {exc}") from exc
