"""Scanning the log files of one file slice, and merging their records by key.

Two pure steps, kept apart so that each reader semantics is visible:

1. :func:`scan_file_slice_logs` decides *which blocks count*. It skips blocks of instants
   that are not completed or lie beyond the query instant (Java 0.14 and hudi 0.5.0 both skip
   uncommitted instants), and applies rollback command blocks the way Java's optimised scan
   (``scanInternalV2``) and hudi-rs do: every block whose instant is any rollback target is
   dropped, wherever it sits in the slice. Blocks are only decoded once they are known to
   count.
2. :func:`merge_log_records` folds the surviving data and delete blocks into one entry per
   record key, following Java's payload rules (format sheet, sections 5.4 and 9.2).

Merging the result with the base file is the file group reader's job, not this module's.
"""

from __future__ import annotations

__all__ = [
    "LogScanResult",
    "MergedLogRecords",
    "RecordBlock",
    "merge_log_records",
    "scan_file_slice_logs",
]

import logging
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.errors import HudiFileFormatError, HudiSchemaError
from hudi_sql.log.block import (
    BlockType,
    CommandBlock,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    DeleteRecord,
    HeaderKey,
    OrderingValue,
    RawBlock,
    ordering_kind,
    ordering_values,
)
from hudi_sql.log.reader import LogSource, decode_block, read_raw_blocks
from hudi_sql.model.payload import merge_columns

_log = logging.getLogger(__name__)

RecordBlock = DataBlock | DeleteBlock
"""The blocks a scan keeps and a merge folds: data and delete blocks."""


@dataclass(frozen=True)
class LogScanResult:
    """The blocks of a file slice's logs that count for a read, in scan order.

    Attributes:
        blocks: data and delete blocks that survived the instant and rollback checks, in
            the order of the log files and of the blocks inside them. Order matters: a delete
            written after an update of the same instant applies after it.
        total_blocks: every block read, corrupt spans included.
        corrupt_blocks: spans skipped by the corruption rules.
        rollback_blocks: rollback command blocks that took part (within ``max_instant``).
        skipped_blocks: data and delete blocks dropped because their instant is not
            completed, lies beyond ``max_instant``, or was rolled back.
        rolled_back_instants: the targets of the rollback blocks.
    """

    blocks: tuple[RecordBlock, ...]
    total_blocks: int
    corrupt_blocks: int
    rollback_blocks: int
    skipped_blocks: int
    rolled_back_instants: frozenset[str] = field(default_factory=frozenset)

    @property
    def data_blocks(self) -> tuple[DataBlock, ...]:
        """The surviving data blocks, in scan order."""
        return tuple(b for b in self.blocks if isinstance(b, DataBlock))

    @property
    def delete_records(self) -> tuple[DeleteRecord, ...]:
        """The records of the surviving delete blocks, in scan order."""
        return tuple(r for b in self.blocks if isinstance(b, DeleteBlock) for r in b.records)


def scan_file_slice_logs(
    log_files: Sequence[tuple[str, LogSource]],
    *,
    completed_instants: Collection[str],
    max_instant: str | None = None,
    timeline_start: str | None = None,
    skip_undecodable: bool = False,
) -> LogScanResult:
    """Reads the log files of one file slice and keeps the blocks a snapshot read applies.

    Args:
        log_files: ``(file name, bytes or path)`` pairs, already in reader order
            (:class:`~hudi_sql.log.format.LogFileName` sorts them); the name is only used in
            log messages.
        completed_instants: the completed commit/deltacommit instants of the timeline. A data
            or delete block of any other instant (inflight, failed, unknown) is skipped.
            Command blocks carry a rollback instant and are exempt, as in Java.
        max_instant: the query instant; blocks of later instants are skipped (newer Java
            ``continue``s rather than stopping the scan as 0.14 did).
        timeline_start: the first instant of the active timeline; older (archived) instants
            count as completed, as in Java's ``containsOrBeforeTimelineStarts``.
        skip_undecodable: a data or delete block that counts but does not decode is skipped
            with a warning naming the file, its offset and its instant, and counted as
            corrupt, instead of failing the scan (a read with Spark's
            ``spark.sql.files.ignoreCorruptFiles``; never a compaction, which would make the
            loss permanent).

    Returns:
        The surviving data and delete blocks, decoded, with counts.

    Raises:
        HudiFileFormatError: when a block that counts does not decode (unless *skip_undecodable*).
    """
    completed = frozenset(completed_instants)

    def in_range(instant: str) -> bool:
        return max_instant is None or instant <= max_instant

    def is_completed(instant: str) -> bool:
        return instant in completed or (timeline_start is not None and instant < timeline_start)

    raw_blocks: list[RawBlock] = []
    name_of: dict[int, str] = {}
    targets: set[str] = set()
    total = corrupt = rollbacks = 0
    for name, source in log_files:
        where = _where(name, source)
        for block in read_raw_blocks(source, name=where):
            total += 1
            if isinstance(block, CorruptBlock):
                corrupt += 1
            elif block.block_type is BlockType.COMMAND:
                # decoding validates the command type and the target header
                command = cast(CommandBlock, _decode(block, where))
                if in_range(command.instant_time):
                    rollbacks += 1
                    targets.add(command.target_instant_time)
            else:
                raw_blocks.append(block)
                name_of[id(block)] = where

    kept: list[RecordBlock] = []
    skipped = 0
    for raw in raw_blocks:
        instant = raw.instant_time
        if not in_range(instant) or not is_completed(instant) or instant in targets:
            skipped += 1
            continue
        where = name_of.get(id(raw), "log file")
        try:
            kept.append(cast(RecordBlock, _decode(raw, where)))  # commands set aside
        except HudiFileFormatError as exc:
            if not skip_undecodable:
                raise
            _log.warning("Skipping an undecodable log block (spark.sql.files.ignoreCorruptFiles): %s", exc)
            corrupt += 1
    return LogScanResult(tuple(kept), total, corrupt, rollbacks, skipped, frozenset(targets))


def _where(name: str, source: LogSource) -> str:
    """How messages name a log file: its path when read from one, else the name given."""
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else name


def _decode(raw: RawBlock, where: str) -> DataBlock | DeleteBlock | CommandBlock:
    """:func:`decode_block`, its error naming the file, the block's offset and its instant.

    A block whose framing is intact but whose content does not decode is not a torn write
    (those are skipped as corrupt blocks, with a warning): Apache Hudi's reader and the Rust
    reader fail on it too, so the read fails, saying where.
    """
    try:
        return decode_block(raw)
    except HudiFileFormatError as exc:
        raise HudiFileFormatError(
            f"log file {where}, {raw.block_type.name} block at offset {raw.offset} of instant "
            f"{raw.header.get(HeaderKey.INSTANT_TIME) or '(none)'} does not decode: {exc}",
            help="the block is well framed, so it is damaged content, not a torn write; restore the file "
                 "from a copy (or roll back that instant if it is the latest commit)",
        ) from exc


@dataclass(frozen=True)
class MergedLogRecords:
    """The log side of a file slice after merging: the final entry of every key touched.

    A key appears in exactly one of the two attributes.

    Attributes:
        records: one row per key whose final entry is a record: the winning full row, with
            the columns of its block (tables of different blocks are unified by Arrow's
            permissive promotion). Rows are in order of each key's first appearance.
        deletes: one delete per key whose final entry is a delete, with the winning delete's
            ordering value, so the base-file merge can apply the same rule against the base
            row. In order of each key's first appearance.
        absent: for the columns some row of *records* does not have, per row whether it lacks
            it: a partial update (a block with ``IS_PARTIAL=true``, written by Apache Hudi 1.x's
            ``MERGE … UPDATE SET`` of some columns) none of whose older log records had the
            column either. The base-file merge takes those values from the stored row.
    """

    records: pa.Table
    deletes: tuple[DeleteRecord, ...]
    absent: Mapping[str, pa.Array] = field(default_factory=dict)

    @property
    def deleted_keys(self) -> frozenset[str]:
        """The record keys whose final entry is a delete."""
        return frozenset(d.record_key for d in self.deletes)


@dataclass
class _Entry:
    """The current winner of one key: a row of a data block, or a delete record."""

    ordering: OrderingValue | None
    block_index: int = -1
    row_index: int = -1
    delete: DeleteRecord | None = None
    fillers: list[tuple[int, int]] = field(default_factory=list)  # (block, row) filling nulls, best first


def merge_log_records(
    blocks: Iterable[RecordBlock],
    *,
    record_key_field: str = "_hoodie_record_key",
    ordering_field: str | None = None,
    fill_nulls: bool = False,
    columns: Sequence[str] = (),
) -> MergedLogRecords:
    """Folds data and delete blocks, in scan order, into the final entry per record key.

    Rules (format sheet sections 5.4 and 9.2, Java 0.14 ``preCombine``):

    * record after record: the greater ordering value wins; a tie, a missing
      *ordering_field*, a null or incomparable value goes to the later record;
    * record after delete: the record wins (Java merges deletes in natural order);
    * a partial update (a block with ``IS_PARTIAL=true``) that wins keeps the columns it has and
      takes the others from the records it beat or lost to, newest winner first; what none of
      them has is left to the base file (:attr:`MergedLogRecords.absent`);
    * delete after record or delete: Java's ``processNextDeletedRecord``, whatever the payload: a
      natural-order delete (``IntWrapper(0)`` or ``null``) always applies; otherwise the delete
      is ignored only when the existing ordering value has the same kind and is greater
      (without an *ordering_field* records carry none, so every delete applies).

    Ordering values of records are typed like Java's: INT for Avro ``int`` (and Spark
    BYTE/SHORT), LONG for ``long`` and for timestamps (compared as epoch microseconds),
    STRING, DOUBLE, DATE (epoch days), and so on; a delete's wrapper must have the same kind
    to be compared.

    Args:
        blocks: data and delete blocks in scan order, e.g. :attr:`LogScanResult.blocks`.
        record_key_field: the key column of data blocks.
        ordering_field: the pre-combine field, or ``None`` for commit-time ordering.
        columns: the columns a row has (the reader's schema): a partial update lacking one that no
            record it merged with has is marked in :attr:`MergedLogRecords.absent`.
        fill_nulls: record after record also fills the winner's null fields from the loser
            (``PartialUpdateAvroPayload``'s ``preCombine``): the loser's row joins the winner's
            chain of fillers, after it when it lost, before the old chain when it won.

    Returns:
        The final entries; see :class:`MergedLogRecords` for the representation.

    Raises:
        HudiSchemaError: when a data block lacks the key or ordering column, or the winning
            rows of different blocks cannot be unified into one table.
    """
    data_blocks: list[DataBlock] = []
    entries: dict[str, _Entry] = {}
    blocks = list(blocks)
    partial = any(isinstance(b, DataBlock) and b.is_partial for b in blocks)
    chained = fill_nulls or partial
    for block in blocks:
        if isinstance(block, DeleteBlock):
            for record in block.records:
                current = entries.get(record.record_key)
                if current is None or _delete_wins(record, current):
                    entries[record.record_key] = _Entry(record.ordering_value, delete=record)
            continue
        block_index = len(data_blocks)
        data_blocks.append(block)
        keys = _column(block, record_key_field).to_pylist()
        orderings = _orderings(block, ordering_field, len(keys))
        for row_index, (key, ordering) in enumerate(zip(keys, orderings)):
            current = entries.get(key)
            if current is None or current.delete is not None:
                entries[key] = _Entry(ordering, block_index, row_index)
            elif _record_wins(ordering, current.ordering):
                fillers = [(current.block_index, current.row_index), *current.fillers] if chained else []
                entries[key] = _Entry(ordering, block_index, row_index, fillers=fillers)
            elif chained:
                current.fillers.append((block_index, row_index))
    winners = [e for e in entries.values() if e.delete is None]
    records = _winning_rows(data_blocks, winners)
    absent: dict[str, pa.Array] = {}
    if partial:
        records, absent = _fill_absent(data_blocks, winners, records, columns)
    if fill_nulls:
        records = _fill_nulls(data_blocks, winners, records)
    return MergedLogRecords(records, tuple(e.delete for e in entries.values() if e.delete is not None), absent)


def _fill_absent(data_blocks: list[DataBlock], winners: list[_Entry], records: pa.Table,
                 columns: Sequence[str]) -> tuple[pa.Table, dict[str, pa.Array]]:
    """The columns a winning partial update lacks, taken from the records it was merged with, best
    first (Apache Hudi 1.x merges a partial record over the one before it column by column: what
    the winner has, else the other's); with the rows that still lack a column after that."""
    def has(place: tuple[int, int], name: str) -> bool:
        block = data_blocks[place[0]]
        return not block.is_partial or name in block.records.column_names

    absent: dict[str, pa.Array] = {}
    for block in data_blocks:  # a column only older records have is added, filled below
        for column in block.records.schema:
            if column.name not in records.column_names:
                records = records.append_column(column, pa.nulls(records.num_rows, column.type))
    for name in records.column_names:
        places: dict[int, tuple[int, int]] = {}  # a winner lacking the column -> the record filling it
        lacking = [False] * len(winners)
        for i, entry in enumerate(winners):
            if has((entry.block_index, entry.row_index), name):
                continue
            filler = next((f for f in entry.fillers if has(f, name)), None)
            if filler is None:
                lacking[i] = True
            else:
                places[i] = filler
        if places:
            rows, index = _aligned_rows(data_blocks, places, len(winners))
            current = records.column(name).combine_chunks()
            merged = pc.if_else(pc.is_valid(index), _taken(rows, name, index, current.type), current)
            records = records.set_column(records.schema.get_field_index(name), records.schema.field(name), merged)
        if any(lacking):
            absent[name] = pa.array(lacking, pa.bool_())
    for name in columns:  # no block has it: every partial row lacks it
        if name not in records.column_names:
            absent[name] = pa.array([data_blocks[e.block_index].is_partial for e in winners], pa.bool_())
    return records, absent


def _fill_nulls(data_blocks: list[DataBlock], winners: list[_Entry], records: pa.Table) -> pa.Table:
    """Null fields of the winning rows filled from their fillers, best first."""
    depth = 0
    while True:
        at_depth = {i: e.fillers[depth] for i, e in enumerate(winners) if len(e.fillers) > depth}
        if not at_depth:
            return records
        rows, index = _aligned_rows(data_blocks, at_depth, len(winners))
        for name in merge_columns(records.column_names):
            if name not in rows.column_names:
                continue
            current = records.column(name).combine_chunks()
            merged = pc.if_else(pc.is_valid(current), current, _taken(rows, name, index, current.type))
            records = records.set_column(records.schema.get_field_index(name), records.schema.field(name), merged)
        depth += 1


def _aligned_rows(data_blocks: list[DataBlock], places: Mapping[int, tuple[int, int]],
                  count: int) -> tuple[pa.Table, pa.Array]:
    """The rows at *places* (a winner's position -> its (block, row)), and for each of the *count*
    winners the index of its row among them (null for a winner *places* does not name)."""
    positions = sorted(places)
    rows = _winning_rows(data_blocks, [_Entry(None, *places[i]) for i in positions])
    slot = dict(zip(positions, range(len(positions))))
    return rows, pa.array([slot.get(i) for i in range(count)], pa.int64())


def _taken(rows: pa.Table, name: str, index: pa.Array, like: pa.DataType) -> pa.Array:
    """Column *name* of *rows* laid out by *index*, as type *like*."""
    values = pc.take(rows.column(name).combine_chunks(), index)
    return values if values.type == like else values.cast(like)


def _column(block: DataBlock, name: str) -> pa.ChunkedArray:
    if name not in block.records.column_names:
        raise HudiSchemaError(
            f"data block of instant {block.instant_time} has no column '{name}'",
            help="check the record key and pre-combine fields of the table",
        )
    return block.records.column(name)


def _orderings(block: DataBlock, ordering_field: str | None, rows: int) -> list[OrderingValue | None]:
    """The ordering value of every row, typed the way Java sees the field."""
    if ordering_field is None:
        return [None] * rows
    column = _column(block, ordering_field)
    if ordering_kind(column.type) is None:
        raise HudiSchemaError(
            f"ordering field '{ordering_field}' has type {column.type}, which cannot order records"
        )
    return ordering_values(column)


def _record_wins(new: OrderingValue | None, old: OrderingValue | None) -> bool:
    """Record after record: greater wins, ties and incomparable values go to the newer."""
    if new is None or old is None or new.kind is not old.kind:
        return True
    return bool(new.value >= old.value)


def _delete_wins(delete: DeleteRecord, current: _Entry) -> bool:
    """Delete after an entry: Java's ``processNextDeletedRecord``."""
    ordering = delete.ordering_value
    if ordering is None or ordering.is_natural:
        return True
    existing = current.ordering
    if existing is None or existing.kind is not ordering.kind:
        return True
    return not existing.value > ordering.value


def _winning_rows(data_blocks: list[DataBlock], winners: list[_Entry]) -> pa.Table:
    """The winning rows, in the order of *winners*, taken from their blocks' tables."""
    if not data_blocks:
        return pa.table({})
    positions: dict[int, list[int]] = {}
    for entry in winners:
        positions.setdefault(entry.block_index, []).append(entry.row_index)
    parts = [data_blocks[i].records.take(rows) for i, rows in sorted(positions.items())]
    if not parts:
        return data_blocks[-1].records.slice(0, 0)
    try:
        combined = pa.concat_tables(parts, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise HudiSchemaError(f"log data blocks have incompatible schemas: {exc}") from exc
    # combined is grouped by block; put the rows back in first-appearance order.
    offsets: dict[int, int] = {}
    start = 0
    for i, rows in sorted(positions.items()):
        offsets[i] = start
        start += len(rows)
    seen: dict[int, int] = {}
    order = []
    for entry in winners:
        nth = seen.get(entry.block_index, 0)
        seen[entry.block_index] = nth + 1
        order.append(offsets[entry.block_index] + nth)
    return combined.take(order)
