"""Read planning (pure over the loaded timeline and listings): which files a query reads.

* snapshot: the latest committed slice of every file group as of the query instant; slices
  without log files are read by Spark's native Parquet reader, only slices with logs are
  merged in Python;
* read_optimized: base files of those slices only;
* incremental: for each file group written by a completed write in (begin, end], the latest
  base file written in that range and the log blocks the range wrote (a base file written
  before the range takes no part, as in Apache Hudi), rows filtered to ``_hoodie_commit_time``
  in (begin, end].

Listings come from the metadata table unless ``hoodie.metadata.enable`` is false for the read;
with ``hoodie.enable.data.skipping``, snapshot and read-optimized plans also leave out the
slices whose column statistics rule out the query's filters (:mod:`hudi_sql.read.skipping`).
"""

from __future__ import annotations

__all__ = ["ReadPlan", "partition_values", "plan_read", "skip_by_column_stats"]

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from urllib.parse import unquote

from hudi_sql.config import (
    HudiMetadataConfig,
    HudiReadConfig,
    HudiServiceConfig,
    QueryType,
    TableType,
)
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.errors import HudiConfigError, HudiTimelineError, UnsupportedFeatureError
from hudi_sql.metadata.index_keys import column_hash, column_stats_partition_hash, partition_hash
from hudi_sql.metadata.layout import MetadataPartition
from hudi_sql.metadata.reader import MetadataTableReader, rolled_back_commits
from hudi_sql.metadata.records import ColumnStats
from hudi_sql.model.file_group import FileSlice
from hudi_sql.model.instant import METADATA_BOOTSTRAP_INSTANT, Action, normalize_instant_time
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.read.bootstrap_read import BootstrapSlice, bootstrap_slices
from hudi_sql.read.skipping import ColumnPredicate, SkippingResult, column_types, skip_file_slices
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

EARLIEST = "000"


@dataclass(frozen=True)
class ReadPlan:
    query_type: QueryType
    as_of: str | None
    schema_json: str | None
    native_files: tuple[str, ...] = ()  # read by Spark's Parquet reader
    merge_slices: tuple[FileSlice, ...] = ()  # base + logs, merged in Python tasks
    begin: str | None = None  # incremental: commit time filter (exclusive)
    end: str | None = None  # incremental: commit time filter (inclusive)
    completed_instants: tuple[str, ...] = ()  # for log block filtering
    bootstrap_slices: tuple[BootstrapSlice, ...] = ()  # metadata-only bootstrap: skeleton + source, stitched
    skipping: SkippingResult | None = None  # data skipping's decision, when it ran


def partition_values(partition_path: str, fields: tuple[str, ...], *, hive_style: bool,
                     url_encoded: bool) -> dict[str, str] | None:
    """Partition column values encoded in a partition path, or None if it cannot be decoded."""
    parts = partition_path.split("/") if partition_path else []
    if len(parts) != len(fields):
        return None
    values: dict[str, str] = {}
    for field, part in zip(fields, parts):
        if hive_style:
            name, sep, value = part.partition("=")
            if not sep or name != field:
                return None
        else:
            value = part
        values[field] = unquote(value) if url_encoded else value
    return values


def plan_read(meta: TableMetaClient, read: ReadConfig, *,
              partition_filter: Callable[[str], bool] | None = None,
              data_filters: Sequence[ColumnPredicate] = ()) -> ReadPlan:
    """The files a query reads (see the module doc).

    Args:
        partition_filter: keeps a partition path when it returns True (partition pruning).
        data_filters: the query's filters on data columns, for data skipping.
    """
    query_type = read.query_type
    completed = meta.timeline.completed_writes()
    latest = completed.last.instant_time if completed.last else None
    if query_type is QueryType.INCREMENTAL:
        return _plan_incremental(meta, read, latest)
    as_of_raw = read.as_of_instant
    as_of = normalize_instant_time(as_of_raw) if as_of_raw else latest
    if as_of_raw and as_of is not None:
        _check_not_cleaned(meta, as_of_raw, as_of)
        visible = completed.up_to(as_of)
        if visible.last is None and completed.last is not None and not _known_at(meta, as_of):
            # Before anything the table's timeline knows of, the table did not exist: an error,
            # not an empty answer that looks like a table without rows. From its first instant on
            # (a commit rolled back since included) it had no rows yet: empty, as Apache Hudi answers.
            first = completed.first.instant_time if completed.first else completed.last.instant_time
            raise HudiTimelineError(
                f"Time travel to '{as_of_raw}' is before the first commit {first} of '{meta.table_name}'.",
                help=f"use an instant at or after {first}")
        as_of = visible.last.instant_time if visible.last else None
    schema = meta.latest_schema(as_of) if as_of else meta.latest_schema()
    if as_of is None:
        return ReadPlan(query_type, None, schema)
    view = FileSystemView(meta, as_of=as_of, use_metadata=read.use_metadata)
    partitions = [p for p in view.partition_paths() if partition_filter is None or partition_filter(p)]
    slices, stitched = bootstrap_slices(meta, view.latest_file_slices(partitions))
    skipping = None
    if read.data_skipping and query_type is not QueryType.INCREMENTAL:
        skipping = skip_by_column_stats(meta, slices, data_filters, schema, enabled=read.use_metadata)
        slices = list(skipping.kept)
        _log.info("Data skipping on '%s': %d of %d file slices skipped.", meta.base_path, skipping.skipped,
                  skipping.total)
    native: list[str] = []
    merge: list[FileSlice] = []
    read_optimized = query_type is QueryType.READ_OPTIMIZED or meta.table_type is TableType.COPY_ON_WRITE
    for file_slice in slices:
        if file_slice.has_logs and not read_optimized:
            merge.append(file_slice)
        elif file_slice.base_file is not None:
            native.append(file_slice.base_file.path)
    return ReadPlan(query_type, as_of, schema, tuple(native), tuple(merge),
                    completed_instants=tuple(completed.up_to(as_of).times()), bootstrap_slices=tuple(stitched),
                    skipping=skipping)


def _check_not_cleaned(meta: TableMetaClient, as_of_raw: str, as_of: str) -> None:
    """Time travel may not reach what the cleaner removed (Apache Hudi's rule): before the latest
    clean's earliest commit to retain, or, for a clean by file versions (which records none),
    before the first write still on the active timeline. Without this, a cleaned instant reads as
    a table with fewer rows, or none."""
    completed = meta.timeline.completed()
    clean = completed.with_actions(Action.CLEAN).last
    if clean is None:
        return
    retained = meta.clean_metadata(clean.instant_time).get("earliestCommitToRetain") or ""
    if retained and as_of < retained:
        raise HudiTimelineError(
            f"Time travel to '{as_of_raw}' of '{meta.table_name}' reaches files the cleaner removed: the clean at "
            f"{clean.instant_time} kept the commits from {retained} on.",
            help=f"use an instant at or after {retained}, or retain more commits "
                 f"({HudiServiceConfig.CLEANER_COMMITS_RETAINED.key}) for time travel to reach further back")
    first = completed.write_timeline().first
    if not retained and first is not None and as_of < first.instant_time:
        raise HudiTimelineError(
            f"Time travel to '{as_of_raw}' of '{meta.table_name}' reaches before {first.instant_time}, the first "
            "commit neither cleaned nor archived.",
            help=f"use an instant at or after {first.instant_time}")


def skip_by_column_stats(meta: TableMetaClient, slices: Sequence[FileSlice], predicates: Sequence[ColumnPredicate],
                         schema_json: str | None, *, enabled: bool = True) -> SkippingResult:
    """:func:`~hudi_sql.read.skipping.skip_file_slices` with the statistics of the metadata table's
    ``column_stats`` partition; every slice is kept (with a warning, as Apache Hudi does) when
    the table has no such partition."""
    fields = [f["name"] for f in json.loads(schema_json).get("fields", ())] if schema_json else []
    types = column_types(schema_json)
    if meta.populate_meta_fields:
        fields += list(META_FIELDS)
        types.update((name.lower(), "string") for name in META_FIELDS)
    names = {name.lower(): name for name in fields}
    columns = {p.column.lower() for p in predicates if p.column.lower() in names}
    if not columns:
        return SkippingResult(tuple(slices), len(slices), ())
    reader = MetadataTableReader.open(meta) if enabled else None
    if reader is None or not reader.has(MetadataPartition.COLUMN_STATS):
        _log.warning("Data skipping on '%s' needs the metadata table's column_stats partition (%s=true on a "
                     "write); reading every file.", meta.base_path, HudiMetadataConfig.COLUMN_STATS_ENABLE.key)
        return SkippingResult(tuple(slices), len(slices), ())
    prefixes = [column_hash(names[c]) for c in sorted(columns)]
    by_hash = {partition_hash(s.partition_path): s.partition_path for s in slices}
    stats: dict[tuple[str, str], dict[str, ColumnStats]] = {}
    for key, record in reader.read(MetadataPartition.COLUMN_STATS, prefixes=prefixes).items():
        entry = record.column_stats
        partition = by_hash.get(column_stats_partition_hash(key))
        if entry is None or partition is None:
            continue
        stats.setdefault((partition, entry.file_name), {})[entry.column_name.lower()] = entry
    return skip_file_slices(slices, predicates, stats, types)


def _plan_incremental(meta: TableMetaClient, read: ReadConfig, latest: str | None) -> ReadPlan:
    if latest is None:
        # No completed commit: nothing changed in any range (Apache Hudi answers an empty relation
        # before it looks at the options or the table's meta fields).
        return ReadPlan(QueryType.INCREMENTAL, None, meta.latest_schema(), begin=EARLIEST, end=None)
    begin_raw = read.begin_instant
    if not begin_raw:
        raise HudiConfigError(
            f"An incremental query needs '{HudiReadConfig.BEGIN_INSTANT.key}'.",
            help="set it to an instant time (exclusive), or 'earliest' / '000' for everything",
        )
    if not meta.populate_meta_fields:
        raise UnsupportedFeatureError(
            f"Incremental queries need _hoodie_commit_time, and table '{meta.table_name}' does not populate meta "
            "fields.", help="use a snapshot or time-travel query instead")
    begin = EARLIEST if str(begin_raw).lower() in ("earliest", "0", "000") else normalize_instant_time(begin_raw)
    end_raw = read.end_instant
    end = normalize_instant_time(end_raw) if end_raw else latest
    if end_raw and end is not None and begin != EARLIEST and end < begin:
        raise HudiConfigError(
            f"Incremental range of '{meta.table_name}' ends at {end_raw} "
            f"({HudiReadConfig.END_INSTANT.key}), before it begins at {begin_raw} "
            f"({HudiReadConfig.BEGIN_INSTANT.key}).", help="swap the two instants")
    by_completion = meta.timeline.has_completion_times
    if by_completion:
        # Timeline layout 2 (Apache Hudi 1.x): begin and end are completion times, the begin
        # exclusive as in Apache Hudi 1.1+ (1.0 took it as inclusive) and the Rust reader; rows
        # carry requested times, so the range becomes one over requested times.
        if begin != EARLIEST:
            begin = meta.timeline.requested_time_at(begin) or EARLIEST
        if end_raw:
            end = meta.timeline.requested_time_at(end) or EARLIEST
    schema = meta.latest_schema(end) if end else meta.latest_schema()
    if end is None:
        return ReadPlan(QueryType.INCREMENTAL, None, schema, begin=begin, end=end)
    writes = meta.timeline.completed_writes()
    in_range = writes.between(begin, end)
    if in_range.contains_time(METADATA_BOOTSTRAP_INSTANT):
        raise UnsupportedFeatureError(
            f"The incremental range ({begin}, {end}] of '{meta.table_name}' includes its metadata-only bootstrap "
            f"({METADATA_BOOTSTRAP_INSTANT}), which incremental queries do not read yet.",
            help=f"begin the range at {METADATA_BOOTSTRAP_INSTANT} or later, or read a snapshot")
    replaced: set[tuple[str, str]] = set()
    for instant in writes.up_to(end).with_actions(Action.REPLACE_COMMIT):
        replaced |= meta.commit_metadata(instant).replaced_file_ids()
    latest_files: dict[tuple[str, str], str] = {}
    log_groups: dict[tuple[str, str], str] = {}
    for instant in in_range:
        for stat in meta.commit_metadata(instant).write_stats():
            partition = stat.partition_path or ""
            key = (partition, stat.file_id)
            if not stat.path:
                continue
            if stat.is_delta:
                log_groups[key] = stat.prev_commit
            elif stat.path.endswith(".parquet"):
                latest_files[key] = meta.layout.file_path("", stat.path)
    native = tuple(path for key, path in sorted(latest_files.items()) if key not in replaced)
    missing = [path for path in native if not meta.storage.exists(path)]
    if missing:
        # The cleaner removed files the range needs (Hudi: "Found deleted files in commit metadata").
        if not read.incremental_fallback_full_scan:
            raise HudiTimelineError(
                f"The incremental range ({begin}, {end}] of '{meta.table_name}' needs {len(missing)} file(s) the "
                f"cleaner already deleted, e.g. '{missing[0]}'.",
                help="start the range at a later instant, or set "
                     f"{HudiReadConfig.INCR_FALLBACK_FULL_SCAN.key}=true to scan the table instead")
        # Hudi's fallback: the latest snapshot, filtered to rows last written inside the range.
        snapshot = plan_read(meta, ReadConfig())
        return ReadPlan(QueryType.INCREMENTAL, end, schema, snapshot.native_files, snapshot.merge_slices,
                        begin=begin, end=end, completed_instants=snapshot.completed_instants)
    merge: list[FileSlice] = []
    if log_groups:
        view = FileSystemView(meta, as_of=end, use_metadata=read.use_metadata)
        by_id = {(s.partition_path, s.file_id): s for s in view.latest_file_slices(
            sorted({p for p, _ in log_groups}))}
        for key in sorted(log_groups):
            file_slice = by_id.get(key)
            if file_slice is not None and key not in replaced:
                if file_slice.base_file is not None and not (begin < file_slice.base_instant_time <= end):
                    # Apache Hudi (0.15 and 1.x) merges only the records the range wrote: its view of
                    # the range holds the files the range's commits wrote, so a base file written
                    # before it takes no part (an in-range update losing on event time still shows).
                    file_slice = replace(file_slice, base_file=None)
                merge.append(file_slice)
                if file_slice.base_file is not None and file_slice.base_file.path in native:
                    native = tuple(p for p in native if p != file_slice.base_file.path)
    visible = writes.between(begin, end)  # log blocks of the range's writes only, as Apache Hudi's log scanner
    return ReadPlan(QueryType.INCREMENTAL, end, schema, native, tuple(merge), begin=begin, end=end,
                    completed_instants=tuple(visible.times()))


def _known_at(meta: TableMetaClient, instant_time: str) -> bool:
    """Whether the table's timeline knows an instant at or before *instant_time*: one on the
    active timeline (any action or state), or a commit a rollback or restore undid."""
    timeline = meta.timeline
    if timeline.first is not None and timeline.first.instant_time <= instant_time:  # sorted by time
        return True
    undone = timeline.completed().with_actions(Action.ROLLBACK, Action.RESTORE)
    return any(time <= instant_time for instant in undone for time in rolled_back_commits(meta, instant))
