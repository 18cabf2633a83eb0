"""Data skipping: leave out the file slices whose column statistics rule out a query's filters.

With ``hoodie.enable.data.skipping`` and the metadata table's ``column_stats`` partition, a
snapshot query's filters on data columns (``price > 100``, ``city = 'sf'``, ``day IN (...)``,
``x IS NULL``; the conjuncts of its WHERE that compare one column with literals) are checked
against each file's minimum, maximum and null count before any file is opened. The rules are
conservative: a file is read unless its statistics *prove* that no row of it can match, so a
query returns the same rows with skipping as without.

* A file with no statistics for a filtered column (not indexed, written before the index, a log
  file) may match. So may a file whose column has incomparable values (bytes, which Java's
  statistics order by signed bytes) or a literal of another type than the column's. A decimal
  range stored as bytes (Apache Hudi's compaction writes decimals so: the unscaled value at
  scale 15) is read back as the decimal it is.
* Floating-point maxima say nothing about NaN (parquet statistics leave NaN out, and Spark orders
  NaN above every number), so ``>``/``>=`` never rule out a float column's file.
* A file slice is read when any of its files may match (Apache Hudi's ``HoodieFileIndex``): a
  Merge-On-Read slice whose log files carry no statistics is always read.

:class:`ColumnPredicate` is what the SQL analyzer and the data source's pushed filters reduce a
filter to; :func:`skip_file_slices` applies them, given the statistics the metadata table holds.
"""

from __future__ import annotations

__all__ = ["ColumnPredicate", "SkippingResult", "column_types", "might_match", "skip_file_slices"]

import datetime
import decimal
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hudi_sql.metadata.records import ColumnStats, StatKind
from hudi_sql.model.file_group import FileSlice

#: Comparison operators a predicate may use.
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "in", "is_null", "is_not_null")
_NUMERIC = (StatKind.INT, StatKind.LONG, StatKind.FLOAT, StatKind.DOUBLE, StatKind.DECIMAL)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


@dataclass(frozen=True)
class ColumnPredicate:
    """``column <op> values``: one conjunct of a query's filter.

    Attributes:
        column: a top-level column, as the query names it (matched without regard to case).
        op: one of :data:`OPERATORS`.
        values: the literals (one for comparisons, several for ``in``, none for the null tests).
    """

    column: str
    op: str
    values: tuple[Any, ...] = ()

    def __str__(self) -> str:
        if self.op in ("is_null", "is_not_null"):
            return f"{self.column} {self.op.replace('_', ' ').upper()}"
        if self.op == "in":
            return f"{self.column} IN ({', '.join(map(repr, self.values))})"
        return f"{self.column} {self.op} {self.values[0]!r}"


def column_types(schema_json: str | None) -> dict[str, str]:
    """Lower-cased column name -> its Avro type (``int``, ``string``, ``timestamp-micros``, ...)."""
    if not schema_json:
        return {}
    out: dict[str, str] = {}
    for entry in json.loads(schema_json).get("fields", ()):
        kind: Any = entry["type"]
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if isinstance(kind, dict):
            kind = kind.get("logicalType") or kind.get("type")
        out[entry["name"].lower()] = str(kind)
    return out


def _coerce(value: Any, kind: StatKind, avro_type: str) -> Any:
    """*value* as the statistics' representation of the column, or ``None`` when it has none."""
    if value is None or isinstance(value, bool) != (kind is StatKind.BOOLEAN):
        return None
    if kind in _NUMERIC:
        if isinstance(value, (int, float, decimal.Decimal)) and not (isinstance(value, float) and math.isnan(value)):
            return value
        if kind is StatKind.LONG and isinstance(value, datetime.datetime) and avro_type == "timestamp-micros":
            if value.tzinfo is None:
                return None  # a time without its zone says nothing about an instant
            delta = value - _EPOCH
            return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return None
    if kind is StatKind.STRING:
        return value if isinstance(value, str) else None
    if kind is StatKind.DATE:
        if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
            return (value - datetime.date(1970, 1, 1)).days
        return None
    if kind is StatKind.BOOLEAN:
        return value
    return None  # bytes and times are not compared


def _unscaled(raw: bytes) -> decimal.Decimal:
    return decimal.Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-15)


def might_match(predicate: ColumnPredicate, stats: ColumnStats, avro_type: str = "") -> bool:
    """Whether a file with *stats* may hold a row matching *predicate* (``False`` only when proven not)."""
    if stats.is_deleted:
        return True
    if predicate.op == "is_null":
        return stats.null_count > 0
    if predicate.op == "is_not_null":
        return stats.null_count < stats.value_count
    low, high = stats.min_value, stats.max_value
    if low is None or high is None:
        # no range: every value null (when counted so), so no comparison can hold
        return not (stats.value_count > 0 and stats.null_count == stats.value_count)
    if low.kind is not high.kind:
        return True
    kind, lo, hi = low.kind, low.value, high.value
    if kind is StatKind.BYTES and avro_type == "decimal":
        # Apache Hudi's compaction rewrites a decimal's range as the unscaled bytes at scale 15
        kind, lo, hi = StatKind.DECIMAL, _unscaled(lo), _unscaled(hi)
    values = [_coerce(v, kind, avro_type) for v in predicate.values]
    if any(v is None for v in values) or not values:
        return True
    try:
        if predicate.op in ("=", "in"):
            return any(lo <= v <= hi for v in values)
        if predicate.op == "!=":
            return not (lo == hi == values[0])
        if predicate.op == "<":
            return bool(lo < values[0])
        if predicate.op == "<=":
            return bool(lo <= values[0])
        if kind in (StatKind.FLOAT, StatKind.DOUBLE):
            return True  # NaN is above every number and outside the statistics
        if predicate.op == ">":
            return bool(hi > values[0])
        if predicate.op == ">=":
            return bool(hi >= values[0])
    except TypeError:
        return True
    return True


@dataclass(frozen=True)
class SkippingResult:
    """The slices kept, and what was decided."""

    kept: tuple[FileSlice, ...]
    total: int
    predicates: tuple[ColumnPredicate, ...]

    @property
    def skipped(self) -> int:
        return self.total - len(self.kept)


def skip_file_slices(slices: Sequence[FileSlice], predicates: Iterable[ColumnPredicate],
                     stats: Mapping[tuple[str, str], Mapping[str, ColumnStats]],
                     types: Mapping[str, str]) -> SkippingResult:
    """The slices that may hold matching rows.

    Args:
        slices: the candidate file slices.
        predicates: conjuncts of the filter; those on columns the table lacks are ignored.
        stats: (partition, file name) -> column name (lower-cased) -> statistics.
        types: :func:`column_types` of the table.
    """
    usable = tuple(p for p in predicates if p.column.lower() in types and p.op in OPERATORS)
    if not usable:
        return SkippingResult(tuple(slices), len(slices), ())

    def file_may_match(partition: str, name: str) -> bool:
        of_file = stats.get((partition, name))
        if of_file is None:
            return True
        for predicate in usable:
            column = predicate.column.lower()
            entry = of_file.get(column)
            if entry is not None and not might_match(predicate, entry, types[column]):
                return False
        return True

    kept = []
    for file_slice in slices:
        names = [f.file_name for f in ((file_slice.base_file,) if file_slice.base_file else ())]
        names += [log.file_name for log in file_slice.log_files]
        if not names or any(file_may_match(file_slice.partition_path, name) for name in names):
            kept.append(file_slice)
    return SkippingResult(tuple(kept), len(slices), usable)
