"""What to change: recommendations read off a table's own figures (``CALL advise``, the report's
"Recommendations" section).

Each rule looks at evidence the report already gathered (commit write stats, the latest file
slices) plus the record-key range in the footers of a sample of base files, and, when the
evidence crosses its threshold, names the one setting to apply and what it should change. None
is applied: a recommendation is a row to read or script (``finding``, ``evidence``, ``setting``,
``expected_effect``). The thresholds are constants here, and docs/report.md explains each rule.

The rules follow Apache Hudi's tuning guidance for daily upserts:

* **key ranges overlap**: with the bloom index, an upsert checks the bloom filter of every file
  whose key range holds the key. Keys that grow with time (a timestamp prefix) written in key
  order give each file a narrow range; random keys (UUIDs), or ordered keys written unsorted,
  give every file nearly its partition's whole range, so range pruning keeps every file.
  Measured as the mean share of a partition's other files whose key range overlaps a file's.
  When the partitions' own key ranges are apart (ordered keys, time partitions), the files were
  written unsorted: the advice is a clustering sorted by the record key. Otherwise the keys are
  random: the simple index (one join of the batch's keys with the partitions' keys), Apache
  Hudi's choice for random keys until a record-level index.
* **small files**: base files under ``hoodie.parquet.small.file.limit``: with the limit at 0,
  inserts never top up small files (set it); otherwise a clustering rewrites them into files of
  ``hoodie.clustering.plan.strategy.target.file.max.bytes``.
* **update-heavy Copy-On-Write**: recent commits rewrite whole files to change a few records
  (write amplification, :mod:`~hudi_sql.report.collect`); a Merge-On-Read table appends the
  changed records to logs instead.
* **compaction backlog**: a Merge-On-Read table whose log bytes approach its base bytes, whose
  deltacommits since the last compaction are well past the trigger, or are at it with nothing
  compacting inline, makes every snapshot read merge its logs into their base files; compact
  inline, or now.
* **no column statistics**: a table of many files without the metadata table's column
  statistics cannot skip files for a query's filters.
* **filter columns** (the columns the caller says its queries filter on, ``CALL advise(...,
  filters => 'city,event_ts')``): a column the column statistics leave out cannot skip a file,
  so index it; a column whose per-file ranges overlap (measured like the key ranges, from the
  column statistics) skips few files, so cluster the table sorted by it.
"""

from __future__ import annotations

__all__ = ["FilterColumn", "advise", "filter_columns", "key_range_overlap", "procedure_call", "recommend",
           "sample_key_ranges"]

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hudi_sql.config import (
    HudiCompactionConfig,
    HudiMetadataConfig,
    HudiServiceConfig,
    HudiWriteConfig,
    IndexType,
)
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiConfigError, HudiError
from hudi_sql.index.bloom import footer_key_range
from hudi_sql.metadata.index_keys import column_hash, column_stats_partition_hash
from hudi_sql.metadata.layout import MetadataPartition
from hudi_sql.metadata.reader import MetadataTableReader, declared_partitions
from hudi_sql.report.collect import CommitStats, TableReport, report_configs
from hudi_sql.report.recommendation import Recommendation
from hudi_sql.spark.schema import from_avro_schema
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

#: Key ranges compared: base files whose footers are read, at most (spread over the partitions).
KEY_RANGE_SAMPLE = 64
#: Base files with a key range needed before the key order is judged.
MIN_FILES_FOR_KEY_ORDER = 4
#: Mean share of a partition's other files whose key range overlaps a file's, from which keys are
#: taken for unordered (time-ordered keys give ~0; random keys ~1).
KEY_OVERLAP_THRESHOLD = 0.5
#: Small base files needed, and their share of the base files, before small files are reported.
MIN_SMALL_FILES = 10
SMALL_FILE_SHARE = 0.3
#: Recent commits judged for write amplification, and the median amplification that is "heavy".
RECENT_COMMITS = 10
HEAVY_AMPLIFICATION = 10.0
#: Log bytes over the base bytes of the slices that have logs, from which compaction is behind.
LOG_TO_BASE_BACKLOG = 0.5
#: Deltacommits since the last compaction, as a multiple of the trigger, that is a backlog.
DELTA_COMMITS_BACKLOG = 2
#: Latest file slices from which a table profits from column statistics.
MIN_FILES_FOR_COLUMN_STATS = 20
#: Column ranges compared per filter column: files whose statistics are read, at most.
COLUMN_RANGE_SAMPLE = 256
#: Mean share of a partition's other files whose range of a filter column overlaps a file's, from
#: which a filter on it skips too few files (a column the files are sorted by gives ~0).
COLUMN_OVERLAP_THRESHOLD = 0.5
#: Apache Hudi's default small-file limit (what ``hoodie.parquet.small.file.limit=0`` turned off).
DEFAULT_SMALL_FILE_LIMIT = 104_857_600


def sample_key_ranges(meta: TableMetaClient, *, limit: int = KEY_RANGE_SAMPLE) -> dict[str, list[tuple[str, str]]]:
    """partition -> the ``[min, max]`` record keys of up to *limit* latest base files in all,
    read from their footers (the bloom index's own source; no data is read). Files without a
    key range (a table without meta fields) are left out."""
    view = FileSystemView(meta)
    if view.is_empty:
        return {}
    partitions = view.partition_paths()
    share = max(1, limit // max(1, len(partitions)))
    out: dict[str, list[tuple[str, str]]] = {}
    taken = 0
    for partition in partitions:
        for file_slice in view.latest_file_slices([partition])[:share]:
            if taken >= limit or file_slice.base_file is None:
                continue
            try:
                low, high = footer_key_range(file_slice.base_file.path, meta.storage)  # the bloom index's reader
            except (HudiError, OSError, ValueError):  # an unreadable footer: the verifier's finding, not ours
                continue
            if low is not None and high is not None:
                out.setdefault(partition, []).append((low, high))
                taken += 1
    return out


def key_range_overlap(ranges_by_partition: Mapping[str, Sequence[tuple[str, str]]]) -> tuple[float, int] | None:
    """The mean share of a partition's other files whose key range overlaps a file's, over every
    file of a partition with at least two; and how many files that covers. ``None`` when no
    partition has two files with a key range."""
    shares: list[float] = []
    for ranges in ranges_by_partition.values():
        if len(ranges) < 2:
            continue
        for i, (low, high) in enumerate(ranges):
            others = [r for j, r in enumerate(ranges) if j != i]
            shares.append(sum(1 for lo, hi in others if lo <= high and low <= hi) / len(others))
    return (statistics.fmean(shares), len(shares)) if shares else None


@dataclass(frozen=True)
class FilterColumn:
    """What the column statistics say about one column the caller's queries filter on.

    Attributes:
        name: the column as the caller named it.
        indexed: the metadata table keeps statistics of it.
        overlap: :func:`key_range_overlap` of its per-file ranges (``None``: fewer than two files
            of one partition have a range).
    """

    name: str
    indexed: bool
    overlap: tuple[float, int] | None = None


def filter_columns(meta: TableMetaClient, names: Sequence[str], *,
                   limit: int = COLUMN_RANGE_SAMPLE) -> tuple[FilterColumn, ...]:
    """:class:`FilterColumn` of each of *names* (matched to the table's columns regardless of case),
    from the metadata table's column statistics (only the records of those columns are read; up to
    *limit* files per column are compared).

    Raises:
        HudiConfigError: a name the table has no column for.
    """
    schema = meta.latest_schema()
    columns = {name.lower(): name for name in from_avro_schema(schema).fieldNames()} if schema else {}
    unknown = [n for n in names if n.lower() not in columns]
    if unknown:
        raise HudiConfigError(f"The table at '{meta.base_path}' has no column {', '.join(unknown)} to filter on.",
                              help=f"its columns: {', '.join(sorted(columns.values()))}")
    names = [columns[n.lower()] for n in names]
    reader = MetadataTableReader.open(meta)
    if reader is None or not reader.has(MetadataPartition.COLUMN_STATS):
        return tuple(FilterColumn(name, indexed=False) for name in names)
    out = []
    for name in names:
        ranges: dict[str, list[tuple[Any, Any]]] = {}
        taken = 0
        for key, record in reader.read(MetadataPartition.COLUMN_STATS, prefixes=[column_hash(name)]).items():
            entry = record.column_stats
            if entry is None or entry.is_deleted or entry.min_value is None or entry.max_value is None:
                continue
            if taken < limit:
                ranges.setdefault(column_stats_partition_hash(key), []).append((entry.min_value.sort_key(), entry.max_value.sort_key()))
                taken += 1
        out.append(FilterColumn(name, indexed=taken > 0, overlap=key_range_overlap(ranges)))
    return tuple(out)


def procedure_call(name: str, **args: str) -> str:
    """The text of ``CALL name(arg => 'value', ...)`` for a reader to run, each value a quoted SQL string."""
    quoted = ", ".join(f"{key} => '" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
                       for key, value in args.items())
    return "CALL " + name + "(" + quoted + ")"


def recommend(meta: TableMetaClient, report: TableReport, options: Mapping[str, object] | None = None, *,
              filters: Sequence[str] = ()) -> tuple[Recommendation, ...]:
    """The recommendations for the table *meta* whose figures are *report*, judged under the
    table's properties with *options* over them (as the report is); *filters* are the columns the
    caller's queries filter on."""
    resolved = Resolved(report_configs(meta, options))
    return advise(report, resolved, sample_key_ranges(meta), tuple(declared_partitions(meta)),
                  filter_columns(meta, filters) if filters else ())


def advise(report: TableReport, options: Resolved,
           key_ranges: Mapping[str, Sequence[tuple[str, str]]] | None = None,
           declared_metadata_partitions: Sequence[str] = (),
           filters: Sequence[FilterColumn] = ()) -> tuple[Recommendation, ...]:
    """The recommendations the table's figures support, most costly finding first (see the module doc).

    Args:
        report: the table's figures (:func:`~hudi_sql.report.collect.collect_report`).
        options: the options the table is written with (its index type, the compaction trigger).
        key_ranges: base files' key ranges by partition (:func:`sample_key_ranges`).
        declared_metadata_partitions: the metadata table's complete partitions.
        filters: the columns the caller's queries filter on (:func:`filter_columns`).
    """
    no_statistics = _no_column_statistics(report, options, declared_metadata_partitions)
    found = [
        _unordered_keys(options, key_ranges or {}, report),
        _update_heavy_copy_on_write(report),
        _compaction_backlog(report, options),
        _small_files(report, options),
        no_statistics,
    ]
    # Where the table keeps no column statistics at all, that finding speaks for every column.
    found += [_filter_column(report, options, column) for column in filters
              if column.indexed or no_statistics is None]
    return tuple(r for r in found if r is not None)


def _unordered_keys(options: Resolved, key_ranges: Mapping[str, Sequence[tuple[str, str]]],
                    report: TableReport) -> Recommendation | None:
    index_type = options.index.index_type
    if index_type not in (IndexType.BLOOM, IndexType.GLOBAL_BLOOM):
        return None
    overlap = key_range_overlap(key_ranges)
    if overlap is None:
        return None
    share, files = overlap
    if files < MIN_FILES_FOR_KEY_ORDER or share < KEY_OVERLAP_THRESHOLD:
        return None
    evidence = (f"the key range of a base file overlaps {share:.0%} of its partition's other files' "
                f"(over {files} sampled files)")
    partitions = {p: (min(lo for lo, _ in r), max(hi for _, hi in r)) for p, r in key_ranges.items() if r}
    apart = key_range_overlap({"": list(partitions.values())})
    if apart is not None and apart[0] < KEY_OVERLAP_THRESHOLD and report.record_key_fields:
        keys = ",".join(report.record_key_fields)
        return Recommendation(
            finding="base files were written unsorted: bloom range pruning keeps nearly every file of a partition",
            evidence=f"{evidence}, while the partitions' key ranges overlap {apart[0]:.0%} of each other's: "
                     "the keys are ordered, the files are not",
            setting=procedure_call("run_clustering", table=report.table_name, order=keys),
            expected_effect=f"files sorted by {keys}, each holding a narrow key range, so an upsert probes only "
                            f"the files its keys fall in (and {HudiWriteConfig.BULK_INSERT_SORT_MODE.key}="
                            "PARTITION_SORT keeps later bulk inserts so)",
        )
    simple = IndexType.GLOBAL_SIMPLE if index_type is IndexType.GLOBAL_BLOOM else IndexType.SIMPLE
    return Recommendation(
        finding="record keys are not ordered: bloom range pruning keeps nearly every file as a candidate",
        evidence=f"{evidence}; ordered keys overlap none",
        setting=f"{HudiWriteConfig.INDEX_TYPE.key}={simple.value}",
        expected_effect="each upsert matches its keys against the partitions' keys in one join instead of "
                        "loading and probing the bloom filter of every file",
    )


def _write_commits(report: TableReport) -> list[CommitStats]:
    return [c for c in report.commits if c.write_amplification is not None][-RECENT_COMMITS:]


def _update_heavy_copy_on_write(report: TableReport) -> Recommendation | None:
    if report.is_mor:
        return None
    recent = [c for c in _write_commits(report) if c.records_updated]
    if len(recent) < 2:
        return None
    amplification = statistics.median(c.write_amplification or 0.0 for c in recent)
    updated = sum(c.records_updated for c in recent)
    changed = sum(c.records_inserted + c.records_updated + c.records_deleted for c in recent)
    if amplification < HEAVY_AMPLIFICATION or updated * 2 < changed:
        return None
    written = sum(c.bytes_written for c in recent)
    return Recommendation(
        finding="updates rewrite whole files: a Copy-On-Write table under an update-heavy workload",
        evidence=f"the last {len(recent)} commits with updates wrote {written} bytes for {updated} updated "
                 f"of {changed} changed records: median write amplification {amplification:.1f}",
        setting=f"{HudiWriteConfig.TABLE_TYPE.key}=MERGE_ON_READ (a new table: CREATE TABLE ... "
                "TBLPROPERTIES (type = 'mor') AS SELECT ... from this one)",
        expected_effect=f"updates appended to log files (write amplification about 1 instead of "
                        f"{amplification:.0f}), the files rewritten once per compaction",
    )


def _compaction_backlog(report: TableReport, options: Resolved) -> Recommendation | None:
    if not report.is_mor:
        return None
    with_logs = [s for s in report.slices if s.log_files]
    log_bytes = sum(s.log_bytes for s in with_logs)
    base_bytes = sum(s.base_bytes for s in with_logs)
    trigger = options.compaction.max_delta_commits
    deltas = report.delta_commits_since_compaction or 0
    heavy_logs = bool(with_logs) and log_bytes >= LOG_TO_BASE_BACKLOG * max(base_bytes, 1)
    many_deltas = deltas >= DELTA_COMMITS_BACKLOG * trigger
    due = bool(with_logs) and deltas >= trigger and not options.compaction.inline and not report.pending_compactions
    if not (heavy_logs or many_deltas or due):
        return None
    table = report.table_name
    if report.pending_compactions:
        setting = procedure_call("run_compaction", op="execute", table=table)
        effect = f"the {len(report.pending_compactions)} scheduled compactions merged into new base files"
    elif options.compaction.inline:
        setting = (procedure_call("run_compaction", op="scheduleAndExecute", table=table)
                   + f", and a lower {HudiCompactionConfig.MAX_DELTA_COMMITS.key} than {trigger}")
        effect = "the logs merged into base files now, and sooner after each write"
    else:
        setting = (procedure_call("run_compaction", op="scheduleAndExecute", table=table)
                   + f", and {HudiCompactionConfig.INLINE.key}=true (with "
                   f"{HudiCompactionConfig.MAX_DELTA_COMMITS.key}={trigger})")
        effect = (f"the logs merged into base files now, and a compaction after every {trigger} deltacommits, so "
                  "logs never hold more than that")
    return Recommendation(
        finding="compaction is behind: every snapshot read merges the logs into their base files",
        evidence=f"{len(with_logs)} file slices hold {log_bytes} log bytes over {base_bytes} base bytes; "
                 f"{deltas} deltacommits since the last compaction (trigger: {trigger})",
        setting=setting,
        expected_effect=effect,
    )


def _small_files(report: TableReport, options: Resolved) -> Recommendation | None:
    small = sum(p.small_files for p in report.partitions)
    base_files = sum(p.base_files for p in report.partitions)
    limit = options.write.small_file_limit
    sizes = [s for p in report.partitions for s in p.base_file_sizes]
    if limit <= 0:
        # With the limit off nothing counts as small; judge by the default limit.
        small = sum(1 for s in sizes if s < DEFAULT_SMALL_FILE_LIMIT)
        if small < MIN_SMALL_FILES or small < SMALL_FILE_SHARE * base_files:
            return None
        return Recommendation(
            finding="inserts never top up small files: the small-file limit is off",
            evidence=f"{HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT.key}=0; {small} of {base_files} base files are under "
                     f"{DEFAULT_SMALL_FILE_LIMIT} bytes",
            setting=f"{HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT.key}={DEFAULT_SMALL_FILE_LIMIT}",
            expected_effect=f"new inserts fill the small files up to {HudiWriteConfig.PARQUET_MAX_FILE_SIZE.key} "
                            "before opening new ones",
        )
    if small < MIN_SMALL_FILES or small < SMALL_FILE_SHARE * base_files:
        return None
    small_bytes = sum(s for s in sizes if s < limit)
    target = options.clustering.target_file_max_bytes
    # A clustering group never spans partitions: each partition's small files make their own files.
    expected = sum(math.ceil(b / max(target, 1)) for p in report.partitions
                   if (b := sum(s for s in p.base_file_sizes if s < limit)))
    if expected * 2 > small:
        return None  # already about one file per partition: a clustering would rewrite them as they are
    return Recommendation(
        finding="many small files: every query opens more files than the data needs",
        evidence=f"{small} of {base_files} base files are under the small-file limit {limit} bytes "
                 f"({small_bytes} bytes in all)",
        setting=procedure_call("run_clustering", table=report.table_name),
        expected_effect=f"the small files rewritten as about {expected} files of up to {target} bytes "
                        f"({HudiServiceConfig.CLUSTERING_TARGET_FILE_MAX_BYTES.key})",
    )


def _no_column_statistics(report: TableReport, options: Resolved,
                          declared: Sequence[str]) -> Recommendation | None:
    files = sum(p.file_groups for p in report.partitions)
    if files < MIN_FILES_FOR_COLUMN_STATS or MetadataPartition.COLUMN_STATS.value in declared:
        return None
    m = HudiMetadataConfig
    setting = f"{m.COLUMN_STATS_ENABLE.key}=true and, for queries, {m.DATA_SKIPPING.key}=true"
    if not options.metadata.enable:
        setting = f"{m.ENABLE.key}=true, {setting}"
    return Recommendation(
        finding="queries read every file: the metadata table keeps no column statistics",
        evidence=f"{files} file groups in {len(report.partitions)} partitions and no column_stats partition",
        setting=setting,
        expected_effect="a query's filters skip the files whose column ranges cannot match",
    )


def _filter_column(report: TableReport, options: Resolved, column: FilterColumn) -> Recommendation | None:
    m = HudiMetadataConfig
    if not column.indexed:
        listed = options.metadata.column_stats_columns
        setting = (f"{m.COLUMN_STATS_COLUMNS.key}={','.join([*listed, column.name])}" if listed and
                   options.metadata.column_stats else f"{m.COLUMN_STATS_ENABLE.key}=true")
        if not options.metadata.enable:
            setting = f"{m.ENABLE.key}=true, {setting}"
        return Recommendation(
            finding=f"a filter on {column.name} reads every file: the metadata table keeps no statistics of it",
            evidence=f"no column_stats records of {column.name}",
            setting=f"{setting} (then, for queries, {m.DATA_SKIPPING.key}=true)",
            expected_effect=f"a filter on {column.name} skips the files whose range of it cannot match",
        )
    if column.overlap is None:
        return None
    share, files = column.overlap
    if files < MIN_FILES_FOR_KEY_ORDER or share < COLUMN_OVERLAP_THRESHOLD:
        return None
    return Recommendation(
        finding=f"a filter on {column.name} skips few files: every file holds nearly its whole range",
        evidence=f"the {column.name} range of a file overlaps {share:.0%} of its partition's other files' "
                 f"(over {files} files' column statistics)",
        setting=procedure_call("run_clustering", table=report.table_name, order=column.name),
        expected_effect=f"files rewritten sorted by {column.name}, each holding a narrow range of it, so an "
                        f"equality or range filter on {column.name} reads about one file per partition",
    )
