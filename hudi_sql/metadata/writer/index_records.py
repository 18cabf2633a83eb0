"""The index partitions' share of a change: which files, and the work per file group.

``column_stats`` and ``bloom_filters`` describe data files one by one, so what an instant changes
in them is a list of :class:`IndexFile` (added or deleted): base files added get their footer's
statistics and bloom filter (:mod:`hudi_sql.metadata.writer.file_stats`), log files added the
statistics their append task computed (carried on the write stat; a log file without them is
simply not indexed, which readers take as "may match"), and deleted files a tombstone per record
they had (``HoodieTableMetadataUtil.convertMetadataTo*Records``).

A bloom filter is a few hundred kilobytes, so the records are made where they are written: the
driver only assigns each record key to its file group (keys are hashes of names, computable
without the file) and hands each group a :class:`GroupTask`, which reads the footers it needs,
builds its records and writes the group's new file, a log file or, when a partition is created,
a base file (:func:`run_group_task`, run in Spark tasks by :mod:`hudi_sql.metadata.writer.metadata_exec`).
Only small results come back: the file written and its size.
"""

from __future__ import annotations

__all__ = [
    "GroupResult",
    "GroupTask",
    "IndexFile",
    "group_tasks",
    "index_files",
    "indexed_columns",
    "run_group_task",
]

import json
import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from hudi_sql.config.metadata import MetadataConfig
from hudi_sql.metadata.changes import FileChanges
from hudi_sql.metadata.index_keys import bloom_filter_key, column_stats_key
from hudi_sql.metadata.layout import MetadataPartition, file_group_index
from hudi_sql.metadata.records import BloomFilterEntry, ColumnStats, MetadataRecord, RecordType
from hudi_sql.metadata.writer.file_stats import footer_bloom_filter, parquet_column_stats
from hudi_sql.metadata.writer.file_writer import encode_base_file, encode_log_block
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.uri import join
from hudi_sql.table.meta_client import TableMetaClient


@dataclass(frozen=True)
class IndexFile:
    """A data file whose index records change: added (its records), or deleted (tombstones).

    Attributes:
        partition: the data partition path (``""`` when non-partitioned).
        file_name: the file's name.
        deleted: the file is gone.
        column_stats: statistics computed when the file was written (log files), if any.
    """

    partition: str
    file_name: str
    deleted: bool = False
    column_stats: tuple[ColumnStats, ...] | None = None

    @property
    def is_parquet_base(self) -> bool:
        return self.file_name.endswith(".parquet") and BaseFileName.try_parse(self.file_name) is not None


def indexed_columns(data: TableMetaClient, config: MetadataConfig, schema_json: str | None = None) -> tuple[str, ...]:
    """The columns ``column_stats`` indexes: the configured list, else every top-level column of
    the table's schema (*schema_json*, else its latest), meta columns first when populated."""
    if config.column_stats_columns:
        return config.column_stats_columns
    schema = schema_json or data.latest_schema()
    if not schema:
        return ()
    names = tuple(f["name"] for f in json.loads(schema).get("fields", ()) if f["name"] not in META_FIELDS)
    return (META_FIELDS + names) if data.populate_meta_fields else names


def index_files(changes: FileChanges, payload: object) -> list[IndexFile]:
    """The files whose index records *changes* adds or tombstones."""
    computed: dict[tuple[str, str], tuple[ColumnStats, ...]] = {}
    if isinstance(payload, CommitMetadata):
        for stat in payload.write_stats():
            if stat.path and stat.column_stats is not None:
                computed[(stat.partition_path or "", posixpath.basename(stat.path))] = stat.column_stats
    files = [IndexFile(p, name, True) for p, names in sorted(changes.deleted.items()) for name in names]
    for partition, added in sorted(changes.added.items()):
        for name in sorted(added):
            stats = computed.get((partition, name))
            base = BaseFileName.try_parse(name) is not None
            if base or stats is not None:
                files.append(IndexFile(partition, name, False, stats if not base else None))
    return files


@dataclass(frozen=True)
class GroupTask:
    """The records one file group of an index partition gets, and the file to write them to.

    Attributes:
        partition: ``column_stats`` or ``bloom_filters``.
        data_base_path: the data table's base path (footers are read from its files).
        folder: the partition's folder in the metadata table.
        file_name: the log or base file to write.
        instant_time: the metadata instant writing it (and a bloom record's timestamp).
        files: each data file with the columns whose statistics land in this group.
        base_file: write a base file (a partition's creation) rather than a log file.
    """

    partition: MetadataPartition
    data_base_path: str
    folder: str
    file_name: str
    instant_time: str
    files: tuple[tuple[IndexFile, tuple[str, ...]], ...]
    base_file: bool = False
    storage: Storage = field(default_factory=Storage)  # both tables' store, with the driver's credentials


@dataclass(frozen=True)
class GroupResult:
    """What a :class:`GroupTask` wrote: a file of *size* bytes holding *records* records."""

    partition: MetadataPartition
    file_name: str
    size: int
    records: int


def group_tasks(partition: MetadataPartition, files: Sequence[IndexFile], columns: Sequence[str],
                file_ids: Sequence[str], name_of: Mapping[str, str], *, data_base_path: str, folder: str,
                instant_time: str, base_file: bool = False, storage: Storage | None = None) -> list[GroupTask]:
    """One task per file group that receives records (records go to ``file_group_index(key)``).

    Args:
        file_ids: the partition's file groups, sorted.
        name_of: file id -> the file that group's task writes.
    """
    by_group: dict[str, dict[IndexFile, list[str]]] = defaultdict(lambda: defaultdict(list))
    count = len(file_ids)
    for file in files:
        if partition is MetadataPartition.BLOOM_FILTERS:
            if file.is_parquet_base:
                fid = file_ids[file_group_index(bloom_filter_key(file.partition, file.file_name), count)]
                by_group[fid].setdefault(file, [])
            continue
        for column in columns:
            key = column_stats_key(file.partition, file.file_name, column)
            by_group[file_ids[file_group_index(key, count)]][file].append(column)
    return [GroupTask(partition, data_base_path, folder, name_of[fid], instant_time,
                      tuple((file, tuple(cols)) for file, cols in group.items()), base_file, storage or Storage())
            for fid, group in sorted(by_group.items())]


def _records(task: GroupTask) -> dict[str, MetadataRecord]:
    records: dict[str, MetadataRecord] = {}
    for file, columns in task.files:
        path = join(task.data_base_path, file.partition, file.file_name)
        if task.partition is MetadataPartition.BLOOM_FILTERS:
            key = bloom_filter_key(file.partition, file.file_name)
            if file.deleted:
                entry = BloomFilterEntry("", task.instant_time, b"", True)
            else:
                found = footer_bloom_filter(path, task.storage)
                if found is None:
                    continue  # a file without a bloom filter (meta fields off) is not indexed
                entry = BloomFilterEntry(found[0], task.instant_time, found[1])
            records[key] = MetadataRecord(key, RecordType.BLOOM_FILTER, bloom_filter=entry)
            continue
        stats: Iterable[ColumnStats]
        if file.deleted:
            stats = (ColumnStats(file.file_name, c, None, None, 0, 0, is_deleted=True) for c in columns)
        elif file.column_stats is not None:
            stats = (s for s in file.column_stats if s.column_name in columns)
        else:
            stats = parquet_column_stats(path, file.file_name, columns, task.storage)
        for entry_stats in stats:
            key = column_stats_key(file.partition, file.file_name, entry_stats.column_name)
            records[key] = MetadataRecord(key, RecordType.COLUMN_STATS, column_stats=entry_stats)
    return records


def run_group_task(task: GroupTask) -> GroupResult:
    """Build the group's records and write its file (a Spark task, or the driver for small work):
    a log file of one HFILE block, or a base file when the partition is being created. A group
    left without records writes nothing (size 0)."""
    records = _records(task)
    if not records:  # nothing to index after all (files without a bloom filter)
        return GroupResult(task.partition, task.file_name, 0, 0)
    data = encode_base_file(records, task.file_name) if task.base_file else encode_log_block(task.instant_time, records)
    task.storage.write_bytes(join(task.folder, task.file_name), data, overwrite=False)
    return GroupResult(task.partition, task.file_name, len(data), len(records))

