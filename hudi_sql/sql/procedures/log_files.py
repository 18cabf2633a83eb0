"""What Merge-On-Read log files hold: ``show_logfile_metadata`` (each block's instant, type, record
count, header and footer) and ``show_logfile_records`` (their records, as written or merged), Apache
Hudi's procedures of those names, over the log files a glob pattern matches.

Apache Hudi prints a record as Avro's ``GenericData.toString`` does (JSON-like, fields in schema
order, dates and timestamps as the int or long Avro stores); :func:`avro_text` writes the same text.
"""

from __future__ import annotations

import decimal
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from hudi_sql.errors import HudiSqlError
from hudi_sql.log.block import BlockType, CommandBlock, CorruptBlock, DataBlock, DeleteBlock, HeaderKey
from hudi_sql.log.reader import read_log_blocks
from hudi_sql.log.scanner import merge_log_records, scan_file_slice_logs
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure
from hudi_sql.storage.glob import glob
from hudi_sql.table.meta_client import TableMetaClient


def _log_files(ctx: ProcedureContext, meta: TableMetaClient, pattern: str, *, required: bool) -> list[str]:
    """The files *pattern* matches outside ``.hoodie`` (``FSUtils.getGlobStatusExcludingMetaFolder``);
    *required*: none is an error (``show_logfile_records``'s, where the metadata lists nothing)."""
    files = [m.path for m in glob(meta.storage, pattern) if not m.is_dir and "/.hoodie/" not in m.path]
    if required and not files:
        raise HudiSqlError(f"CALL {ctx.name}: there is no log file matching '{pattern}'.")
    return files


@procedure(
    "show_logfile_metadata",
    args=[Arg("table", required=True), Arg("log_file_path_pattern", required=True), Arg("limit", "int", default=10)],
    output="instant_time string, record_count int, block_type string, header_metadata string, "
    "footer_metadata string",
    description="Every block of the log files log_file_path_pattern matches: its instant, type, records "
    "(deleted keys for a delete block), header and footer.",
)
def show_logfile_metadata(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Apache Hudi fails on a delete or rollback block here (its match covers data blocks only); these
    count a delete block's keys and a rollback's none. A block without an instant, and each corrupt
    span, is named as Apache Hudi names it (``dummy_instant_time_<n>``, ``corrupt_block_<n>``)."""
    meta = ctx.meta(args)
    rows = []
    corrupt = unnamed = 0
    for path in _log_files(ctx, meta, str(args["log_file_path_pattern"]), required=False):
        for block in read_log_blocks(meta.storage.read_bytes(path), name=path):
            if isinstance(block, CorruptBlock):
                corrupt += 1
                rows.append((f"corrupt_block_{corrupt}", 0, "CORRUPT_BLOCK", "{}", "{}"))
                continue
            header = block.header
            instant = header.get(HeaderKey.INSTANT_TIME)
            if instant is None:
                unnamed += 1
                instant = f"dummy_instant_time_{unnamed}"
            rows.append((instant, _record_count(block), f"{_block_type(block).name}_BLOCK",
                         json.dumps({key.name: value for key, value in header.items()}, separators=(",", ":"), ensure_ascii=False),
                         "{}"))
    return rows[: args["limit"]]


def _block_type(block: DataBlock | DeleteBlock | CommandBlock) -> BlockType:
    if isinstance(block, DataBlock):
        return block.block_type
    return BlockType.DELETE if isinstance(block, DeleteBlock) else BlockType.COMMAND


def _record_count(block: DataBlock | DeleteBlock | CommandBlock) -> int:
    if isinstance(block, DataBlock):
        return int(block.records.num_rows)
    return len(block.records) if isinstance(block, DeleteBlock) else 0


@procedure(
    "show_logfile_records",
    args=[Arg("table", required=True), Arg("log_file_path_pattern", required=True),
          Arg("merge", "boolean", default=False), Arg("limit", "int", default=10)],
    output="records string",
    description="The records of the log files log_file_path_pattern matches, as written (merge => true: the "
    "latest of each key, by the table's ordering field), up to limit.",
)
def show_logfile_records(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    files = _log_files(ctx, meta, str(args["log_file_path_pattern"]), required=True)
    limit = max(0, args["limit"])
    if args["merge"]:
        completed = meta.timeline.completed().times()
        scan = scan_file_slice_logs([(path, meta.storage.read_bytes(path)) for path in files],
                                    completed_instants=completed)
        merged = merge_log_records(scan.blocks, ordering_field=meta.precombine_field)
        return [(text,) for text in avro_texts(merged.records)][:limit]
    rows: list[tuple[Any, ...]] = []
    for path in files:
        if len(rows) >= limit:  # the files after the limit is reached are not read, as in Apache Hudi
            break
        for block in read_log_blocks(meta.storage.read_bytes(path), name=path):
            if isinstance(block, DataBlock) and len(rows) < limit:
                rows += [(text,) for text in avro_texts(block.records.slice(0, limit - len(rows)))]
    return rows


def avro_texts(records: pa.Table) -> list[str]:
    """Each row of *records* as Avro's ``GenericData.toString`` prints the record read from a log block."""
    columns = {}
    for name, column in zip(records.column_names, records.columns, strict=True):
        kind = column.type
        if pa.types.is_date32(kind):
            column = column.cast(pa.int32())  # Avro stores an int of days
        elif pa.types.is_timestamp(kind):
            column = column.cast(pa.int64())  # and a long of micro- or milliseconds
        columns[name] = (column.to_pylist(), pa.types.is_float32(kind))
    return ["{" + ", ".join(f"{json.dumps(name, ensure_ascii=False)}: {avro_text(values[i], single)}"
                            for name, (values, single) in columns.items()) + "}"
            for i in range(records.num_rows)]


def avro_text(value: Any, single: bool = False) -> str:
    """One value as ``GenericData.toString`` writes it (*single*: a float, printed as Java's Float)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_float_text(value, single)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bytes):
        return "{" + f'"bytes": {json.dumps(value.decode("latin-1"), ensure_ascii=False)}' + "}"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)}: {avro_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(avro_text(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def java_float_text(value: float, single: bool = False) -> str:
    """``Double.toString`` (``Float.toString`` when *single*): the shortest digits that read back,
    in plain notation from 10^-3 up to 10^7 and as ``d.dddE±n`` outside it."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if single:
        shortest = repr(float(np.format_float_positional(np.float32(value), unique=True, trim="0")))
    else:
        shortest = repr(value)
    sign, digits, exponent = decimal.Decimal(shortest).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + exponent  # where the decimal point falls after the first len(text) digits
    minus = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{minus}0.{'0' * -point}{text}"
        whole, fraction = text[:point].ljust(point, "0"), text[point:]
        return f"{minus}{whole}.{fraction or '0'}"
    return f"{minus}{text[0]}.{text[1:] or '0'}E{point - 1}"
