"""The metadata table's procedures (Apache Hudi's names, arguments and columns).

* ``show_metadata_table_partitions``, ``show_metadata_table_files``: what the ``files`` partition
  lists (Hudi 0.15);
* ``show_metadata_table_column_stats``: the ``column_stats`` partition's ranges (Hudi 1.x);
* ``validate_metadata_table_files``: the ``files`` partition against a listing of storage, file by
  file (Hudi 0.15; ``verbose => false`` shows only the files on which they disagree);
* ``create_metadata_table``, ``delete_metadata_table``: build it from storage now, or drop it,
  under the table's lock as a write would.
"""

from __future__ import annotations

import time
from typing import Any

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config.metadata import HudiMetadataConfig
from hudi_sql.errors import HudiSqlError
from hudi_sql.metadata.index_keys import column_hash, column_stats_partition_hash, partition_hash
from hudi_sql.metadata.layout import MetadataPartition
from hudi_sql.metadata.maintenance.sync import storage_listing
from hudi_sql.metadata.reader import MetadataTableReader, declared_partitions
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure


def _reader(ctx: ProcedureContext, args: dict[str, Any]) -> Any:
    meta = ctx.meta(args)
    reader = MetadataTableReader.open(meta)
    if reader is None:
        raise HudiSqlError(
            f"CALL {ctx.name}: table '{args.get('table') or args.get('path')}' has no metadata table.",
            help=f"CALL create_metadata_table(table => '...') builds it; writes with "
                 f"{HudiMetadataConfig.ENABLE.key}=true keep it")
    return reader


@procedure(
    "show_metadata_table_partitions",
    args=[Arg("table", required=True)],
    output="partition string",
    description="The partitions the metadata table lists.",
)
def show_metadata_table_partitions(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(p,) for p in _reader(ctx, args).file_listing().partitions]


@procedure(
    "show_metadata_table_files",
    args=[Arg("table", required=True), Arg("partition", default=""), Arg("limit", "int", default=100)],
    output="file_path string",
    description="The files the metadata table lists in one partition ('' for a non-partitioned table).",
)
def show_metadata_table_files(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    listing = _reader(ctx, args).file_listing()
    partition = str(args["partition"] or "")
    if partition not in listing.partitions:
        raise HudiSqlError(f"CALL {ctx.name}: the metadata table lists no partition '{partition}'.",
                           help="CALL show_metadata_table_partitions(table => '...') lists them")
    return [(name,) for name in sorted(listing.files(partition))][: int(args["limit"])]


@procedure(
    "show_metadata_table_column_stats",
    args=[Arg("table", required=True), Arg("partition"), Arg("targetColumns")],
    output="file_name string, column_name string, min_value string, max_value string, null_num long",
    description="Column statistics of the metadata table, for the named columns (comma-separated; default "
                "all) of one partition (default all).",
)
def show_metadata_table_column_stats(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    reader = _reader(ctx, args)
    if not reader.has(MetadataPartition.COLUMN_STATS):
        raise HudiSqlError(f"CALL {ctx.name}: the metadata table has no column_stats partition.",
                           help=f"write with {HudiMetadataConfig.COLUMN_STATS_ENABLE.key}=true to build it")
    columns = [c.strip() for c in str(args.get("targetColumns") or "").split(",") if c.strip()]
    prefixes = [column_hash(c) for c in columns] or None
    partition = args.get("partition")
    wanted = partition_hash(str(partition)) if partition is not None else None
    rows = []
    for key, record in reader.read(MetadataPartition.COLUMN_STATS, prefixes=prefixes).items():
        stats = record.column_stats
        if stats is None or stats.is_deleted or (wanted is not None and column_stats_partition_hash(key) != wanted):
            continue
        low = stats.min_value.value if stats.min_value is not None else None
        high = stats.max_value.value if stats.max_value is not None else None
        rows.append((stats.file_name, stats.column_name, None if low is None else str(low),
                     None if high is None else str(high), stats.null_count))
    return sorted(rows, key=lambda r: (r[0], r[1]))


@procedure(
    "validate_metadata_table_files",
    args=[Arg("table", required=True), Arg("verbose", "boolean", default=False)],
    output="partition string, file_name string, is_present_in_fs boolean, is_present_in_metadata boolean, "
           "fs_size long, metadata_size long",
    description="Every data file of storage and of the metadata table's listing; verbose => false shows only "
                "the files on which the two disagree.",
)
def validate_metadata_table_files(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    reader = _reader(ctx, args)
    listing = reader.file_listing()
    stored = storage_listing(reader.data)
    rows = []
    for partition in sorted(set(stored) | set(listing.partitions)):
        on_storage, listed = stored.get(partition, {}), listing.files(partition)
        for name in sorted(set(on_storage) | set(listed)):
            row = (partition, name, name in on_storage, name in listed, on_storage.get(name, 0), listed.get(name, 0))
            if args["verbose"] or not (row[2] and row[3] and row[4] == row[5]):
                rows.append(row)
    return rows


@procedure(
    "create_metadata_table",
    args=[Arg("table", required=True)],
    output="result string",
    description="Build the metadata table's files partition from a listing of storage (and the index "
                "partitions the session's options turn on).",
)
def create_metadata_table(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    options = ctx.resolve(args)
    started = time.time()
    with TimelineWriter(meta, options).transaction("create the metadata table") as writer:
        writer.metadata_table.initialize(options.metadata)
    partitions = ", ".join(sorted(declared_partitions(meta.reload()))) or "nothing: instants are pending"
    message = f"Created the metadata table of '{meta.base_path}' ({partitions}) in {time.time() - started:.1f} s"
    return [(message,)]


@procedure(
    "delete_metadata_table",
    args=[Arg("table", required=True)],
    output="result string",
    description="Drop the metadata table (readers list storage again; a write with the metadata table on "
                "builds it anew).",
)
def delete_metadata_table(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    with TimelineWriter(meta, ctx.resolve(args)).transaction("delete the metadata table") as writer:
        writer.retire_metadata_table()
    return [(f"Deleted the metadata table of '{meta.base_path}'",)]
