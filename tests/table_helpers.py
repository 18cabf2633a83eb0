"""Reading a table back for assertions: our reader, the Rust reader (``hudi``), expected rows."""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

META = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name")


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 9) if not math.isnan(value) else "nan"
    if isinstance(value, decimal.Decimal):
        return str(value.normalize())
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None) if value.tzinfo is None else value.astimezone(datetime.timezone.utc).replace(
            tzinfo=None)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and isinstance(value[0], tuple) and len(value[0]) == 2:  # arrow map as pairs
            return {k: _norm(v) for k, v in value}
        return [_norm(v) for v in value]
    return value


def rows_of(table: pa.Table, columns: Sequence[str] | None = None, *, key: str = "_hoodie_record_key") -> list[dict]:
    cols = list(columns) if columns else table.column_names
    rows = [{c: _norm(r[c]) for c in cols} for r in table.select(cols).to_pylist()]
    return sorted(rows, key=lambda r: (str(r.get(key)), str(r)))


def rust_table(path: str, **options: Any) -> pa.Table:
    from hudi import HudiQueryType, HudiReadOptions, HudiTableBuilder

    table = HudiTableBuilder.from_base_uri(str(path)).build()
    read_options = HudiReadOptions()
    if options.get("as_of"):
        read_options = read_options.with_as_of_timestamp(options["as_of"])
    if options.get("begin") is not None:
        read_options = (read_options.with_query_type(HudiQueryType.Incremental)
                        .with_start_timestamp(options["begin"]))
        if options.get("end"):
            read_options = read_options.with_end_timestamp(options["end"])
    batches = table.read(read_options)
    schema = table.get_schema_with_meta_fields() if not batches else batches[0].schema
    return pa.Table.from_batches(batches, schema=schema) if batches else pa.Table.from_batches([], schema=schema)


def our_table(spark: Any, path: str, options: Mapping[str, str] | None = None) -> pa.Table:
    import hudi_sql

    return hudi_sql.read(spark, str(path), dict(options or {})).toArrow()


def data_rows(table: pa.Table, key: str) -> list[dict]:
    """Rows without meta columns, sorted by *key*."""
    cols = [c for c in table.column_names if c not in META]
    return rows_of(table, cols, key=key)


class ExpectedTable:
    """An independent model of what a Hudi table must contain after a sequence of writes.

    Rows are dicts keyed by the record key (a tuple of key-field values, plus the partition
    value unless the index is global); upserts keep the row with the greater ordering value
    (ties: the later write), deletes remove.
    """

    def __init__(self, key_fields: Iterable[str], ordering: str | None) -> None:
        self.key_fields = tuple(key_fields)
        self.ordering = ordering
        self.rows: dict[tuple, dict] = {}

    def _key(self, row: Mapping[str, Any]) -> tuple:
        return tuple(row[f] for f in self.key_fields)

    def upsert(self, rows: Iterable[Mapping[str, Any]]) -> None:
        batch: dict[tuple, dict] = {}
        for row in rows:  # precombine within the batch
            k = self._key(row)
            if k not in batch or self._wins(row, batch[k]):
                batch[k] = dict(row)
        for k, row in batch.items():
            if k not in self.rows or self._wins(row, self.rows[k]):
                self.rows[k] = row

    def insert(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for row in rows:
            self.rows[self._key(row)] = dict(row)

    def delete(self, keys: Iterable[Mapping[str, Any]]) -> None:
        for row in keys:
            self.rows.pop(self._key(row), None)

    def _wins(self, new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
        if self.ordering is None:
            return True
        return new[self.ordering] >= old[self.ordering]

    def sorted_rows(self, key: str) -> list[dict]:
        return sorted(({c: _norm(v) for c, v in r.items()} for r in self.rows.values()),
                      key=lambda r: (str(r.get(key)), str(r)))


def log_data_blocks(table: Path) -> list[tuple[str, Any]]:
    """(log file name, data block) of every data block in the log files of *table*'s partitions (not
    its metadata table's), in the order of the instants naming the files (version 8 on: the writes')."""
    from hudi_sql.log.block import DataBlock, RawBlock
    from hudi_sql.log.reader import decode_block, read_raw_blocks

    logs = [p for p in table.glob("*/.*.log.*") if not p.name.endswith(".crc")]
    found = []
    for log in sorted(logs, key=lambda p: (p.name.split("_")[1], p.name)):
        for raw in read_raw_blocks(str(log)):
            block = decode_block(raw) if isinstance(raw, RawBlock) else None  # corrupt spans skipped
            if isinstance(block, DataBlock):
                found.append((log.name, block))
    return found
