"""What the index partitions record of one data file: its column statistics and its bloom filter.

Both come from the file's parquet footer, as Apache Hudi reads them
(``ParquetUtils.readColumnStatsFromMetadata``, ``HoodieFileReader.readBloomFilter``), so a file
is never read for them:

* **column statistics** of the top-level columns asked for (a nested field's chunk has a dotted
  path and is not one of them): per column, the minimum and maximum over the row groups, the
  values (nulls included), the nulls (every value when a chunk has no statistics), and the
  compressed and uncompressed sizes. Values take the Java type parquet-mr gives them: strings
  (UTF8), dates as days (DATE), decimals at scale 15 (DECIMAL), other 32-bit ints, 64-bit ints
  (timestamps included, in the unit stored), floats, doubles, booleans, bytes. A decimal that
  does not fit precision 30 at scale 15, and fixed-length or INT96 values, which Apache Hudi
  cannot store, leave that column unindexed for the file (readers then keep the file);
* **the bloom filter** the writer put in the footer, as its serialised string, with its type code.

Statistics of a log file are computed by the task that appends it, over the records it writes
(:func:`column_stats_of_records`), as Apache Hudi's append handle does: sizes 0.
"""

from __future__ import annotations

__all__ = ["column_stats_of_records", "footer_bloom_filter", "parquet_column_stats"]

import decimal
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.metadata.records import ColumnStats, StatKind, StatValue
from hudi_sql.model.footer_keys import BLOOM_FILTER_KEY, BLOOM_FILTER_TYPE_CODE_KEY, LEGACY_BLOOM_FILTER_KEY
from hudi_sql.storage.fs import Storage

_DECIMAL_SCALE, _DECIMAL_PRECISION = 15, 30
_SIMPLE = "SIMPLE"


def _decimal(value: decimal.Decimal) -> decimal.Decimal | None:
    """*value* at scale 15 when it fits precision 30 there (``tryUpcastDecimal``), else ``None``."""
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int) or -exponent > _DECIMAL_SCALE:
        return None
    scaled = value.quantize(decimal.Decimal(1).scaleb(-_DECIMAL_SCALE))
    return scaled if len(scaled.as_tuple().digits) <= _DECIMAL_PRECISION else None


class _Kind:
    """How a parquet column's raw statistics become Java values (from its schema column)."""

    def __init__(self, column: Any) -> None:
        self.physical = column.physical_type
        converted = str(column.converted_type)
        self.scale = max(int(column.scale), 0)
        if converted == "DECIMAL":
            self.kind: StatKind | None = StatKind.DECIMAL
        elif converted == "UTF8":
            self.kind = StatKind.STRING
        elif converted == "DATE":
            self.kind = StatKind.DATE
        else:
            self.kind = {"BOOLEAN": StatKind.BOOLEAN, "INT32": StatKind.INT, "INT64": StatKind.LONG,
                         "FLOAT": StatKind.FLOAT, "DOUBLE": StatKind.DOUBLE, "BYTE_ARRAY": StatKind.BYTES,
                         }.get(self.physical)

    def value(self, raw: Any) -> StatValue | None:
        if self.kind is None:
            return None
        if self.kind is StatKind.STRING:
            return StatValue(self.kind, bytes(raw).decode("utf-8", "replace") if not isinstance(raw, str) else raw)
        if self.kind is StatKind.DECIMAL:
            unscaled = int.from_bytes(bytes(raw), "big", signed=True) if isinstance(raw, (bytes, bytearray)) else int(raw)
            fitted = _decimal(decimal.Decimal(unscaled).scaleb(-self.scale))
            return StatValue(self.kind, fitted) if fitted is not None else None
        if self.kind is StatKind.BYTES:
            return StatValue(self.kind, bytes(raw))
        return StatValue(self.kind, raw)


def parquet_column_stats(path: str, file_name: str, columns: Sequence[str], storage: Storage) -> list[ColumnStats]:
    """The statistics of *columns* in the parquet file at *path*, from its footer (module doc)."""
    metadata = storage.parquet_metadata(path)
    wanted = set(columns)
    acc: dict[str, dict[str, Any]] = {}
    for index in range(metadata.num_row_groups):
        group = metadata.row_group(index)
        for position in range(group.num_columns):
            chunk = group.column(position)
            name = chunk.path_in_schema
            if name not in wanted:
                continue
            entry = acc.setdefault(name, {"kind": _Kind(metadata.schema.column(position)), "min": None, "max": None, "values": 0, "nulls": 0,
                                          "size": 0, "raw_size": 0, "skip": False})
            stats = chunk.statistics
            entry["values"] += chunk.num_values
            entry["nulls"] += stats.null_count if stats is not None and stats.has_null_count else chunk.num_values
            entry["size"] += chunk.total_compressed_size
            entry["raw_size"] += chunk.total_uncompressed_size
            if stats is None or not stats.has_min_max:
                continue
            low, high = entry["kind"].value(stats.min_raw), entry["kind"].value(stats.max_raw)
            if low is None or high is None:
                entry["skip"] = True
                continue
            if entry["min"] is None or low.sort_key() < entry["min"].sort_key():
                entry["min"] = low
            if entry["max"] is None or high.sort_key() > entry["max"].sort_key():
                entry["max"] = high
    return [ColumnStats(file_name, name, e["min"], e["max"], e["values"], e["nulls"], e["size"], e["raw_size"])
            for name in columns if (e := acc.get(name)) is not None and not e["skip"]]


def _arrow_kind(data_type: pa.DataType) -> StatKind | None:
    if pa.types.is_string(data_type) or pa.types.is_large_string(data_type):
        return StatKind.STRING
    if pa.types.is_boolean(data_type):
        return StatKind.BOOLEAN
    if pa.types.is_int8(data_type) or pa.types.is_int16(data_type) or pa.types.is_int32(data_type):
        return StatKind.INT
    if pa.types.is_int64(data_type):
        return StatKind.LONG
    if pa.types.is_float32(data_type):
        return StatKind.FLOAT
    if pa.types.is_float64(data_type):
        return StatKind.DOUBLE
    if pa.types.is_date32(data_type):
        return StatKind.DATE
    if pa.types.is_timestamp(data_type):
        return StatKind.LONG
    if pa.types.is_decimal(data_type):
        return StatKind.DECIMAL
    if pa.types.is_binary(data_type) or pa.types.is_large_binary(data_type):
        return StatKind.BYTES
    return None


def _arrow_value(kind: StatKind, scalar: pa.Scalar) -> StatValue | None:
    if not scalar.is_valid:
        return None
    if kind is StatKind.DATE:
        return StatValue(kind, scalar.cast(pa.int32()).as_py())
    if kind is StatKind.LONG and pa.types.is_timestamp(scalar.type):
        return StatValue(kind, scalar.cast(pa.int64()).as_py())
    if kind is StatKind.DECIMAL:
        fitted = _decimal(scalar.as_py())
        return StatValue(kind, fitted) if fitted is not None else None
    return StatValue(kind, scalar.as_py())


def column_stats_of_records(table: pa.Table, file_name: str, columns: Iterable[str]) -> list[ColumnStats]:
    """Statistics of *columns* over the rows of *table* (a log block's records), sizes 0
    (``HoodieTableMetadataUtil.collectColumnRangeMetadata``). Columns of types the index cannot
    store, or not in *table*, are left out."""
    out = []
    for name in columns:
        if name not in table.column_names:
            continue
        column = table.column(name)
        kind = _arrow_kind(column.type)
        if kind is None:
            continue
        nulls = column.null_count
        low = high = None
        if nulls < len(column):
            bounds = pc.min_max(column)
            low, high = _arrow_value(kind, bounds["min"]), _arrow_value(kind, bounds["max"])
            if low is None or high is None:
                continue
        out.append(ColumnStats(file_name, name, low, high, len(column), nulls))
    return out


def footer_bloom_filter(path: str, storage: Storage) -> tuple[str, bytes] | None:
    """(type code, serialised filter) of the bloom filter in the footer of the parquet file at
    *path*; ``None`` when it has none (a table without meta fields)."""
    footer = storage.parquet_metadata(path).metadata or {}
    text = footer.get(BLOOM_FILTER_KEY.encode()) or footer.get(LEGACY_BLOOM_FILTER_KEY.encode())
    if text is None:
        return None
    type_code = footer.get(BLOOM_FILTER_TYPE_CODE_KEY.encode())
    return (type_code.decode("utf-8") if type_code else _SIMPLE), bytes(text)
