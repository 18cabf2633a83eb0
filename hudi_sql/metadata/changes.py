"""What one completed instant of the data table changes in its metadata table (pure).

Every instant that adds or removes files is recorded in the metadata table before it completes
(:mod:`hudi_sql.metadata.maintenance.sync`). This module reads the instant's own metadata, the value the
timeline writer is about to publish, into a :class:`FileChanges`, and turns that into the
``files`` partition's records (``HoodieTableMetadataUtil.convertMetadataTo*Records``):

* a commit, deltacommit or replacecommit adds the files of its write stats (the larger size when a
  file appears twice; CDC log files too) and its partitions to the partition list;
* a clean deletes the files it deleted, and the partitions it removed from the list;
* a rollback adds the log files holding its rollback blocks and the failed write's log files
  (both stay on storage), as Apache Hudi records it, and, unlike Apache Hudi, also deletes the
  files it deleted. Apache Hudi removes a rolled-back write's entries by rolling back the
  metadata table's deltacommit of that write, which it can do only while that deltacommit is
  not compacted yet; recording the deletions keeps the listing right in every case (the
  deltacommit is still rolled back when it can be, :mod:`hudi_sql.metadata.maintenance.sync`);
* a restore is the rollbacks it made, in one record set;
* savepoints, and instants that change no file, change nothing.

The index partitions' changes are the same files: :meth:`FileChanges.base_files_added` and
:meth:`FileChanges.base_files_deleted` list what ``column_stats`` and ``bloom_filters`` must
add or tombstone (their records need the files' footers: :mod:`hudi_sql.metadata.writer.file_stats`).
"""

from __future__ import annotations

__all__ = ["FileChanges", "files_partition_records"]

import posixpath
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hudi_sql.metadata.layout import PARTITION_LIST_KEY, partition_identifier
from hudi_sql.metadata.records import FileInfo, MetadataRecord, RecordType
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.model.instant import WRITE_ACTIONS, Action, Instant


@dataclass(frozen=True)
class FileChanges:
    """Files one instant added and deleted, by data partition path (``""`` when non-partitioned).

    Attributes:
        added: partition -> file name -> size.
        deleted: partition -> file names.
        partitions_added: partitions to add to the partition list (a write's partitions).
        partitions_deleted: partitions to remove from it (a clean that emptied them).
        touched: partitions whose file list gets a record even without changes (Apache Hudi
            writes one for every partition of a commit's write stats).
    """

    added: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    deleted: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    partitions_added: tuple[str, ...] = ()
    partitions_deleted: tuple[str, ...] = ()
    touched: tuple[str, ...] = ()

    @classmethod
    def of(cls, instant: Instant, payload: Any) -> FileChanges | None:
        """The changes *instant* makes, from the *payload* its completed file holds; ``None``
        for an instant that changes no file (a savepoint, an index, ...)."""
        if instant.action in WRITE_ACTIONS and isinstance(payload, CommitMetadata):
            return cls.of_commit(payload)
        if not isinstance(payload, Mapping):
            return None
        if instant.action is Action.CLEAN:
            return cls.of_clean(payload)
        if instant.action is Action.ROLLBACK:
            return cls.of_rollbacks([payload])
        if instant.action is Action.RESTORE:
            nested = payload.get("hoodieRestoreMetadata") or {}
            return cls.of_rollbacks([m for metas in nested.values() for m in metas or () if m])
        return None

    @classmethod
    def of_commit(cls, metadata: CommitMetadata) -> FileChanges:
        added: dict[str, dict[str, int]] = {}
        for partition, stats in metadata.partition_to_write_stats.items():
            files = added.setdefault(partition, {})
            for stat in stats:
                if not stat.path:
                    continue  # an empty partition's stat
                name = posixpath.basename(stat.path)
                files[name] = max(files.get(name, 0), stat.file_size_in_bytes)
                for cdc_path, size in stat.cdc_stats or ():
                    files[posixpath.basename(cdc_path)] = size
        partitions = tuple(metadata.partition_to_write_stats)
        return cls(added, {}, partitions, (), partitions)

    @classmethod
    def of_clean(cls, record: Mapping[str, Any]) -> FileChanges:
        deleted: dict[str, tuple[str, ...]] = {}
        gone: list[str] = []
        for partition, meta in (record.get("partitionMetadata") or {}).items():
            deleted[partition] = tuple(posixpath.basename(p) for p in meta.get("deletePathPatterns") or ())
            if meta.get("isPartitionDeleted"):
                gone.append(partition)
        return cls({}, deleted, (), tuple(gone), tuple(deleted))

    @classmethod
    def of_rollbacks(cls, records: list[Mapping[str, Any]]) -> FileChanges:
        added: dict[str, dict[str, int]] = defaultdict(dict)
        deleted: dict[str, list[str]] = defaultdict(list)
        for record in records:
            for partition, meta in (record.get("partitionMetadata") or {}).items():
                for files in (meta.get("rollbackLogFiles"), meta.get("logFilesFromFailedCommit")):
                    for path, size in (files or {}).items():
                        name = posixpath.basename(path)
                        added[partition][name] = max(added[partition].get(name, 0), int(size or 0))
                deleted[partition].extend(posixpath.basename(p) for p in meta.get("successDeleteFiles") or ())
        for partition, names in deleted.items():
            for name in names:
                added.get(partition, {}).pop(name, None)
        return cls(dict(added), {p: tuple(dict.fromkeys(n)) for p, n in deleted.items()}, (), (),
                   tuple(sorted(set(added) | set(deleted))))

    @property
    def is_empty(self) -> bool:
        return not (self.touched or self.partitions_added or self.partitions_deleted)

    def base_files_added(self) -> list[tuple[str, str]]:
        """(partition, base file name) of the base files this instant added."""
        return [(p, name) for p, files in sorted(self.added.items()) for name in sorted(files)
                if BaseFileName.try_parse(name) is not None]

    def base_files_deleted(self) -> list[tuple[str, str]]:
        """(partition, base file name) of the base files this instant deleted."""
        return [(p, name) for p, names in sorted(self.deleted.items()) for name in names
                if BaseFileName.try_parse(name) is not None]

    def log_files_added(self) -> list[tuple[str, str]]:
        """(partition, file name) of the files added that are not base files (logs, CDC logs)."""
        return [(p, name) for p, files in sorted(self.added.items()) for name in sorted(files)
                if BaseFileName.try_parse(name) is None]


def files_partition_records(changes: FileChanges) -> list[MetadataRecord]:
    """The ``files`` partition's records for *changes*: a partition-list record when partitions
    come or go, and one file-list record per partition touched."""
    records = []
    if changes.partitions_added:
        records.append(MetadataRecord(PARTITION_LIST_KEY, RecordType.PARTITION_LIST,
                                      {partition_identifier(p): FileInfo(0) for p in changes.partitions_added}))
    for partition in dict.fromkeys(changes.touched):
        files = {name: FileInfo(size) for name, size in changes.added.get(partition, {}).items()}
        files.update((name, FileInfo(0, True)) for name in changes.deleted.get(partition, ()))
        records.append(MetadataRecord(partition_identifier(partition), RecordType.FILE_LIST, files))
    if changes.partitions_deleted:
        records.append(MetadataRecord(PARTITION_LIST_KEY, RecordType.PARTITION_LIST,
                                      {partition_identifier(p): FileInfo(0, True) for p in changes.partitions_deleted}))
    return records
