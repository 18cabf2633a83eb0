"""CDC query execution: each Spark task turns a few :class:`~hudi_sql.read.cdc_plan.CdcSplit` into change rows.

The rows have Apache Hudi's CDC query schema, four strings: ``op`` (``i``, ``u`` or ``d``),
``ts_ms`` (the commit time), ``before`` and ``after`` (the row as a JSON object, or null).
Images recovered from base and log files carry the meta columns, images a
``DATA_BEFORE_AFTER`` log holds only the data columns, as in Apache Hudi. JSON values follow
Spark's ``to_json``: numbers and strings as such, dates and timestamps as ISO-8601 strings,
decimals as strings, binary as base64.
"""

from __future__ import annotations

__all__ = ["CDC_QUERY_DDL", "CdcReadContext", "read_cdc", "split_changes"]

import base64
import datetime
import decimal
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from hudi_sql.config import CdcLoggingMode
from hudi_sql.keygen.arrow_key import arrow_record_keys
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.log.block import DataBlock, DeleteBlock
from hudi_sql.log.reader import read_log_blocks
from hudi_sql.log.scanner import scan_file_slice_logs
from hudi_sql.model.payload import Payload
from hudi_sql.model.schema import RECORD_KEY_FIELD, conform
from hudi_sql.read.cdc_plan import CdcPlan, CdcSplit, SplitKind
from hudi_sql.read.file_group_reader import FileSliceSpec, read_file_slice, stored_logs
from hudi_sql.spark.local_frame import task_frame
from hudi_sql.storage.fs import Storage

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hudi_sql.table.meta_client import TableMetaClient

CDC_QUERY_DDL = "op string, ts_ms string, before string, after string"
_OUTPUT = pa.schema([("op", pa.string()), ("ts_ms", pa.string()), ("before", pa.string()), ("after", pa.string())])


@dataclass(frozen=True)
class CdcReadContext:
    """What every task needs besides its splits (picklable)."""

    target: pa.Schema  # the table's rows: meta columns, then the data columns
    mode: CdcLoggingMode
    completed_instants: tuple[str, ...]
    timeline_start: str | None
    ordering_field: str | None
    payload: Payload
    storage: Storage
    key_spec: RecordKeySpec | None = None  # a table without meta fields: keys from its key fields


def _json_value(value: Any) -> Any:
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _to_json(image: dict[str, Any] | None) -> str | None:
    return None if image is None else json.dumps(image, separators=(",", ":"), default=_json_value)


def _keys(table: pa.Table, key_spec: RecordKeySpec | None) -> list[str]:
    """The record key of every row: ``_hoodie_record_key``, or computed from the key fields."""
    keys = table.column(RECORD_KEY_FIELD) if key_spec is None else arrow_record_keys(table, key_spec)
    return [str(key) for key in keys.to_pylist()]


def _rows_by_key(path: str | None, ctx: CdcReadContext) -> dict[str, dict[str, Any]]:
    if not path:
        return {}
    stored = ctx.storage.read_parquet(path)
    return dict(zip(_keys(stored, ctx.key_spec), conform(stored, ctx.target).to_pylist()))


def _all_rows(path: str | None, ctx: CdcReadContext) -> list[dict[str, Any]]:
    return conform(ctx.storage.read_parquet(path), ctx.target).to_pylist() if path else []


def _merged_rows(split: CdcSplit, ctx: CdcReadContext, completed: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The split's slice (base file and logs) merged over the *completed* instants, by key."""
    spec = FileSliceSpec(split.partition_path, split.file_id, split.before_file, split.before_logs)
    table = read_file_slice(spec, ctx.target, completed_instants=completed, max_instant=None,
                            timeline_start=ctx.timeline_start, ordering_field=ctx.ordering_field, payload=ctx.payload,
                            storage=ctx.storage, key_spec=ctx.key_spec)
    return dict(zip(_keys(table, ctx.key_spec), table.to_pylist()))


def _touched_keys(split: CdcSplit, storage: Storage, key_spec: RecordKeySpec | None) -> list[str]:
    """The keys the split's write put in its log blocks, in log order, each once."""
    scan = scan_file_slice_logs(stored_logs(storage, split.before_logs),
                                completed_instants=[split.instant_time], max_instant=split.instant_time)
    keys: dict[str, None] = {}
    for block in scan.blocks:
        if block.instant_time != split.instant_time:
            continue
        if isinstance(block, DataBlock):
            keys.update((k, None) for k in _keys(block.records, key_spec))
        elif isinstance(block, DeleteBlock):
            keys.update((str(d.record_key), None) for d in block.records)
    return list(keys)


def _log_file_changes(split: CdcSplit, ctx: CdcReadContext) -> Iterator[tuple[str, Any, Any]]:
    prior = [t for t in ctx.completed_instants if t < split.instant_time]
    through = [t for t in ctx.completed_instants if t <= split.instant_time]
    before, after = _merged_rows(split, ctx, prior), _merged_rows(split, ctx, through)
    for key in _touched_keys(split, ctx.storage, ctx.key_spec):
        old, new = before.get(key), after.get(key)
        if old is None and new is not None:
            yield "i", None, new
        elif old is not None and new is not None:
            yield "u", old, new
        elif old is not None:
            yield "d", old, None


def _as_is_changes(split: CdcSplit, ctx: CdcReadContext) -> Iterator[tuple[str, Any, Any]]:
    records: list[dict[str, Any]] = []
    for path in split.cdc_files:
        for block in read_log_blocks(ctx.storage.read_bytes(path), name=path):
            if isinstance(block, DataBlock):
                records.extend(block.records.to_pylist())
    if ctx.mode is CdcLoggingMode.DATA_BEFORE_AFTER:
        for record in records:
            yield record["op"], record.get("before"), record.get("after")
        return
    after_rows = _rows_by_key(split.after_file, ctx)
    before_rows = _rows_by_key(split.before_file, ctx) if ctx.mode is CdcLoggingMode.OP_KEY_ONLY else {}
    for record in records:
        key, op = str(record["record_key"]), record["op"]
        before = record.get("before") if ctx.mode is CdcLoggingMode.DATA_BEFORE else before_rows.get(key)
        yield op, (None if op == "i" else before), (None if op == "d" else after_rows.get(key))


def split_changes(split: CdcSplit, ctx: CdcReadContext) -> pa.Table:
    """The change rows of one split (pyarrow only: runs in a Spark task)."""
    if split.kind is SplitKind.AS_IS:
        changes: Iterator[tuple[str, Any, Any]] = _as_is_changes(split, ctx)
    elif split.kind is SplitKind.BASE_FILE_INSERT:
        changes = (("i", None, row) for row in _all_rows(split.after_file, ctx))
    elif split.kind is SplitKind.BASE_FILE_DELETE:
        changes = (("d", row, None) for row in _all_rows(split.before_file, ctx))
    elif split.kind is SplitKind.LOG_FILE:
        changes = _log_file_changes(split, ctx)
    else:  # REPLACE_COMMIT
        prior = [t for t in ctx.completed_instants if t < split.instant_time]
        changes = (("d", row, None) for row in _merged_rows(split, ctx, prior).values())
    ops, befores, afters = [], [], []
    for op, before, after in changes:
        ops.append(op)
        befores.append(_to_json(before))
        afters.append(_to_json(after))
    return pa.table([ops, [split.instant_time] * len(ops), befores, afters], schema=_OUTPUT)


def _split_json(split: CdcSplit) -> str:
    return json.dumps({**asdict(split), "kind": split.kind.value})


def _split_from_json(text: str) -> CdcSplit:
    raw = json.loads(text)
    return CdcSplit(**{**raw, "kind": SplitKind(raw["kind"]), "cdc_files": tuple(raw["cdc_files"]),
                       "before_logs": tuple(raw["before_logs"])})


def _task(ctx: CdcReadContext) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for text in batch.column(0).to_pylist():
                yield from split_changes(_split_from_json(text), ctx).to_batches()

    return run


def read_cdc(spark: SparkSession, meta: TableMetaClient, plan: CdcPlan, target: pa.Schema) -> DataFrame:
    """The plan's changes as a DataFrame of :data:`CDC_QUERY_DDL` (the driver reads no table data);
    *target* is the table's row schema (meta columns, then the data columns) as of the range's end."""
    if not plan.splits:
        return spark.createDataFrame([], CDC_QUERY_DDL)
    ordering_field, payload = meta.record_payload()
    first = meta.timeline.write_timeline().first
    ctx = CdcReadContext(target, plan.logging_mode, plan.completed_instants,
                         first.instant_time if first else None, ordering_field, payload, meta.storage,
                         meta.recomputed_key_spec())
    rows = [(_split_json(s),) for s in plan.splits]
    frame = task_frame(spark, rows, "split string")
    return frame.mapInArrow(_task(ctx), CDC_QUERY_DDL)
