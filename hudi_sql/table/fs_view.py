"""FileSystemView: the table's file groups and slices as of an instant.

Built from two inputs: listings of partition folders, and the timeline with the metadata of
completed replacecommits. :func:`build_file_groups` is pure, so the slice rules below are
tested without a file system; :class:`FileSystemView` adds the listing, cached per partition
for the life of the view (one view per planned operation).

Rules (Java's ``HoodieFileGroup`` and hudi-rs agree on them for v6):

* a slice is *committed* when its base instant is a completed write instant (commit,
  deltacommit, replacecommit; a compaction completes as a commit) or lies before the first
  instant of the active timeline (archived); a pending compaction's slice counts too, for
  MOR logs written while it runs;
* the latest slice as of T is the committed slice with the greatest base instant <= T;
* file groups replaced by a completed replacecommit <= T are left out.

Files of failed or pending writes are thus invisible, whatever their instant.

**Listings.** A table whose metadata table declares its ``files`` partition is listed from there
(:class:`~hudi_sql.metadata.reader.MetadataTableReader`), as Apache Hudi's readers and writers
do with ``hoodie.metadata.enable`` on: one read of a few HFiles instead of a listing per
partition. Storage is listed instead when the option is off, when the table has no usable
metadata table, and for views that must see uncommitted files (rollback and clean planning),
which the metadata table never records.
"""

from __future__ import annotations

__all__ = ["FileSystemView", "PartitionListing", "build_file_groups", "list_partition_paths",
           "refuse_bootstrap_skeletons"]

import fnmatch
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.metadata.reader import MetadataFileListing, MetadataTableReader
from hudi_sql.model.file_group import BaseFile, FileGroup, FileGroupId, FileSlice, LogFile
from hudi_sql.model.file_names import PARTITION_METADATA_FILE, BaseFileName, LogFileName, parse_cdc_log_name
from hudi_sql.model.instant import METADATA_BOOTSTRAP_INSTANT, Action
from hudi_sql.model.log_slicing import log_slice_instant
from hudi_sql.model.timeline import Timeline
from hudi_sql.storage.fs import FileStatus, Storage
from hudi_sql.storage.layout import METAFOLDER
from hudi_sql.table.meta_client import TableMetaClient


@dataclass(frozen=True)
class PartitionListing:
    partition_path: str
    files: tuple[FileStatus, ...]


def list_partition_paths(storage: Storage, base_path: str, *, partitioned: bool) -> list[str]:
    """Relative paths of every partition: folders holding ``.hoodie_partition_metadata``.

    A non-partitioned table has the single partition ``""`` (the base path itself). As in
    Apache Hudi's file-system listing, only the ``.hoodie`` folder is left out: a folder whose
    name starts with ``.`` is a partition like any other (a URL-encoded value ``../x`` is the
    folder ``..%2Fx``).
    """
    if not partitioned:
        return [""]
    return sorted(folder for folder, files in storage.walk_folders(base_path, skip_top=frozenset({METAFOLDER}))
                  if folder and any(name.startswith(PARTITION_METADATA_FILE) for name in files))


def _is_committed(instant_time: str, committed: set[str], timeline: Timeline) -> bool:
    # Java's rule uses the commits timeline: a file older than its first instant was archived.
    return instant_time in committed or timeline.write_timeline().is_before_start(instant_time)


def build_file_groups(
    partition_path: str,
    files: Iterable[FileStatus],
    timeline: Timeline,
    *,
    as_of: str | None = None,
    replaced: set[tuple[str, str]] | None = None,
    include_uncommitted: bool = False,
) -> list[FileGroup]:
    """The file groups of one partition as of *as_of* (default: the latest completed write).

    Args:
        partition_path: relative partition path (``""`` for non-partitioned tables).
        files: the partition folder's listing.
        timeline: the full active timeline (states included).
        as_of: only instants at or before it count.
        replaced: (partition, file id) pairs replaced by completed replacecommits <= as_of.
        include_uncommitted: keep slices of pending instants (rollback planning needs them).
    """
    view = timeline if as_of is None else timeline.up_to(as_of)
    completed = view.completed()
    committed = {i.instant_time for i in completed.with_actions(Action.COMMIT, Action.DELTA_COMMIT,
                                                                    Action.REPLACE_COMMIT)}
    pending_compactions = {i.instant_time for i in view.pending_compactions()}
    bases: dict[str, dict[str, BaseFile]] = defaultdict(dict)
    logs: dict[str, dict[str, list[LogFile]]] = defaultdict(lambda: defaultdict(list))
    by_completion = timeline.has_completion_times
    named_by_commit: list[LogFile] = []
    cdc_logs: dict[str, dict[str, list[LogFile]]] = defaultdict(lambda: defaultdict(list))
    for status in files:
        if status.is_dir:
            continue
        base_name = BaseFileName.try_parse(status.name)
        if base_name is not None:
            if as_of is not None and base_name.instant_time > as_of:
                continue
            if not include_uncommitted and not _is_committed(base_name.instant_time, committed, timeline):
                continue
            bases[base_name.file_id][base_name.instant_time] = BaseFile(status.path, status.size, base_name)
            continue
        cdc_name = parse_cdc_log_name(status.name)
        if cdc_name is not None:
            cdc_logs[cdc_name.file_id][cdc_name.base_instant].append(LogFile(status.path, status.size, cdc_name))
            continue
        log_name = LogFileName.try_parse(status.name)
        if log_name is not None:
            if as_of is not None and log_name.base_instant > as_of:
                continue
            if by_completion:
                named_by_commit.append(LogFile(status.path, status.size, log_name))
                continue
            logs[log_name.file_id][log_name.base_instant].append(LogFile(status.path, status.size, log_name))
    if by_completion:  # table version 8: logs are named by their deltacommit (model/log_slicing.py)
        _slice_logs_by_completion(named_by_commit, bases, pending_compactions, view, logs, include_uncommitted)
    groups: list[FileGroup] = []
    for file_id in sorted(set(bases) | set(logs)):
        if replaced and (partition_path, file_id) in replaced:
            continue
        group_id = FileGroupId(partition_path, file_id)
        slice_instants = sorted(set(bases.get(file_id, {})) | set(logs.get(file_id, {})))
        slices: list[FileSlice] = []
        for instant_time in slice_instants:
            base = bases.get(file_id, {}).get(instant_time)
            slice_logs = tuple(sorted(logs.get(file_id, {}).get(instant_time, []), key=lambda lf: lf.name.sort_key))
            if base is None:
                # Logs of a slice whose base file is not (yet) committed: either written during a
                # pending compaction (kept, merged below), or log-only file groups (kept), or
                # leftovers of a failed base write (skipped: no committed base instant).
                known = _is_committed(instant_time, committed, timeline) or instant_time in pending_compactions
                if not (known or include_uncommitted) and bases.get(file_id):
                    continue
            cdc_files = tuple(sorted(cdc_logs.get(file_id, {}).get(instant_time, []), key=lambda lf: lf.name.sort_key))
            slices.append(FileSlice(group_id, instant_time, base, slice_logs, cdc_files))
        slices = _merge_pending_compaction_slices(slices, pending_compactions)
        if slices:
            groups.append(FileGroup(group_id, tuple(slices)))
    return groups


def _slice_logs_by_completion(named_by_commit: list[LogFile], bases: dict[str, dict[str, BaseFile]],
                              pending_compactions: set[str], timeline: Timeline,
                              logs: dict[str, dict[str, list[LogFile]]], include_uncommitted: bool) -> None:
    """File version 8 logs under the slice their completion time falls in (see model/log_slicing.py)."""
    log_only: dict[str, list[LogFile]] = defaultdict(list)
    for log in named_by_commit:
        candidates = set(bases.get(log.file_id, {})) | pending_compactions
        slice_instant = log_slice_instant(log.base_instant_time, candidates, timeline)
        if slice_instant is None:
            if include_uncommitted:
                logs[log.file_id][log.base_instant_time].append(log)
            continue
        if slice_instant == log.base_instant_time and slice_instant not in candidates:
            log_only[log.file_id].append(log)
        else:
            logs[log.file_id][slice_instant].append(log)
    for file_id, group_logs in log_only.items():  # a file group without base file: one slice
        logs[file_id][min(lf.base_instant_time for lf in group_logs)].extend(group_logs)


def _merge_pending_compaction_slices(slices: list[FileSlice], pending: set[str]) -> list[FileSlice]:
    """Logs written under a pending compaction belong, for readers, to the slice before it."""
    merged: list[FileSlice] = []
    for current in slices:
        if current.base_file is None and current.base_instant_time in pending and merged:
            previous = merged.pop()
            merged.append(FileSlice(previous.file_group_id, previous.base_instant_time, previous.base_file,
                                    previous.log_files + current.log_files, previous.cdc_files + current.cdc_files))
        else:
            merged.append(current)
    return merged


class FileSystemView:
    """File groups of a table as of one instant; partitions listed lazily and cached."""

    def __init__(self, meta_client: TableMetaClient, *, as_of: str | None = None,
                 include_uncommitted: bool = False, use_metadata: bool = True) -> None:
        """*use_metadata*: list through the metadata table when it can (the operation's
        ``hoodie.metadata.enable``: a write or service passes its own; readers default to Apache
        Hudi's, on)."""
        self.meta_client = meta_client
        self._use_metadata = use_metadata and not include_uncommitted
        self._metadata: MetadataFileListing | None = None
        self._metadata_loaded = False
        self.timeline = meta_client.timeline
        completed_writes = self.timeline.completed_writes()
        self.as_of = as_of if as_of is not None else (completed_writes.last.instant_time
                                                      if completed_writes.last else None)
        self.include_uncommitted = include_uncommitted
        self._partitions: list[str] | None = None
        self._groups: dict[str, list[FileGroup]] = {}

    @property
    def is_empty(self) -> bool:
        return self.as_of is None and not self.include_uncommitted

    def replaced_file_groups(self) -> set[tuple[str, str]]:
        replaced: set[tuple[str, str]] = set()
        instants = self.timeline.completed().with_actions(Action.REPLACE_COMMIT)
        if self.as_of is not None:
            instants = instants.up_to(self.as_of)
        for instant in instants:
            replaced |= self.meta_client.commit_metadata(instant).replaced_file_ids()
        return replaced

    def metadata_listing(self) -> MetadataFileListing | None:
        """The ``files`` partition of the table's metadata table, when this view lists through it."""
        if not self._metadata_loaded:
            self._metadata_loaded = True
            if self._use_metadata:
                try:
                    reader = MetadataTableReader.open(self.meta_client)
                except UnsupportedFeatureError:
                    reader = None  # a metadata table of a version we do not read: list storage
                self._metadata = reader.file_listing() if reader is not None else None
        return self._metadata

    def _listed(self, partition_path: str) -> list[FileStatus]:
        listing = self.metadata_listing()
        folder = self.meta_client.layout.partition_dir(partition_path)
        if listing is None:
            return self.meta_client.storage.list(folder)
        return [FileStatus(self.meta_client.storage.join(folder, name), name, size, False, 0.0)
                for name, size in sorted(listing.files(partition_path).items())]

    def partition_paths(self) -> list[str]:
        if self._partitions is None and self.metadata_listing() is not None:
            listing = self.metadata_listing()
            assert listing is not None
            self._partitions = listing.partitions
        if self._partitions is None:
            partitioned = bool(self.meta_client.partition_fields) and not str(
                self.meta_client.config.key_generator_class or "").endswith("NonpartitionedKeyGenerator")
            self._partitions = list_partition_paths(self.meta_client.storage, self.meta_client.base_path,
                                                    partitioned=partitioned)
        return self._partitions

    def file_groups(self, partition_path: str) -> list[FileGroup]:
        if partition_path not in self._groups:
            if self.as_of is None and not self.include_uncommitted:
                self._groups[partition_path] = []
            else:
                files = self._listed(partition_path)
                self._groups[partition_path] = build_file_groups(
                    partition_path, files, self.timeline, as_of=self.as_of,
                    replaced=self._replaced(), include_uncommitted=self.include_uncommitted,
                )
        return self._groups[partition_path]

    def _replaced(self) -> set[tuple[str, str]]:
        if not hasattr(self, "_replaced_cache"):
            self._replaced_cache = self.replaced_file_groups()
        return self._replaced_cache

    def latest_file_slices(self, partitions: Sequence[str] | None = None) -> list[FileSlice]:
        chosen = self.partition_paths() if partitions is None else partitions
        out: list[FileSlice] = []
        for partition in chosen:
            for group in self.file_groups(partition):
                latest = group.latest_slice
                if latest is not None:
                    out.append(latest)
        return out

    def all_file_groups(self, partitions: Sequence[str] | None = None) -> list[FileGroup]:
        chosen = self.partition_paths() if partitions is None else partitions
        return [g for p in chosen for g in self.file_groups(p)]


def match_partitions(partitions: Iterable[str], patterns: Iterable[str]) -> list[str]:
    """Partitions matching any of *patterns* (``*`` wildcards, as delete_partition allows)."""
    pats = list(patterns)
    return [p for p in partitions if any(fnmatch.fnmatchcase(p, pat) for pat in pats)]


def refuse_bootstrap_skeletons(slices: Iterable[FileSlice], table_name: str, what: str,
                               why: str = "whose data lives in a source file only a stitched read sees") -> None:
    """Fail when a slice's base file is a metadata-only bootstrap skeleton: it holds only the
    meta columns, and its data lives in a source file only the bootstrap index names. For the
    operations that do not stitch skeleton and source (*why* says what is missing); handled as a
    base file, it would give rows of nulls."""
    for file_slice in slices:
        if file_slice.base_file is not None and file_slice.base_instant_time == METADATA_BOOTSTRAP_INSTANT:
            raise UnsupportedFeatureError(
                f"Cannot {what} '{table_name}': file group {file_slice.file_id} in "
                f"'{file_slice.partition_path}' is a metadata-only bootstrap skeleton "
                f"({file_slice.base_file.file_name}), {why}.",
                help="upsert the rows of that file group first (the write rewrites it as a regular base file), "
                     "or bootstrap the source again with "
                     "selector_class => 'org.apache.hudi.client.bootstrap.selector.FullRecordBootstrapModeSelector'")
