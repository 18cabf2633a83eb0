"""The commit-protocol step that keeps a data table's metadata table in step with its timeline.

:class:`~hudi_sql.commit.timeline_writer.TimelineWriter` calls :class:`MetadataTableSync` at two
points, both under the data table's lock (Apache Hudi's ``HoodieBackedTableMetadataWriter``,
driven by its write client):

* **before an instant is requested** (:meth:`MetadataTableSync.before_request`): a metadata table
  we do not maintain is removed (one of table version 8) or loses the partitions we do not
  maintain (the record index); and for a write (commit, deltacommit, replacecommit) the writer's
  options decide: ``hoodie.metadata.enable=false`` removes the metadata table, ``true`` creates
  the partitions that are on and missing, from a listing of storage (skipped, as in Apache Hudi,
  while another instant is pending: its files would be missed), then runs the metadata table's
  clean and compaction when they are due (:mod:`hudi_sql.metadata.maintenance.services`).
* **before an instant completes** (:meth:`MetadataTableSync.apply`): the files it added and
  removed (:mod:`hudi_sql.metadata.changes`) are committed as a deltacommit of the metadata table
  at the data instant's time, one new log file per file group touched. A rollback also removes
  the metadata deltacommit of the instant it undid, while that one is not compacted yet.

A deltacommit of the metadata table whose data instant never completed is ignored by readers
(they apply only blocks of completed data instants) and removed here when the data instant is
rolled back, retried, or found pending at the next metadata change (a metadata deltacommit left
pending is a crashed one: nothing else writes the metadata table while the lock is held).

The options are the operation's (``Resolved.metadata``), handed to the timeline writer by the
write or the table service that opened it.

The files partition's records are small (one per data partition written), so its log files
are written here, like the commit metadata that names the same files. The index partitions need
each written file's footer or log records read: their file groups are written in Spark tasks
when the change touches more than a handful of files (:mod:`hudi_sql.metadata.writer.metadata_exec`).
"""

from __future__ import annotations

__all__ = ["MetadataTableSync", "data_file_instant", "storage_listing"]

import logging
from collections.abc import Mapping
from typing import Any

from hudi_sql.commit.instant_files import InstantFileWriter, NoOpLockProvider
from hudi_sql.config import HudiTableConfig
from hudi_sql.config.metadata import MetadataConfig
from hudi_sql.errors import HudiFileFormatError
from hudi_sql.metadata.changes import FileChanges, files_partition_records
from hudi_sql.metadata.layout import (
    PARTITION_LIST_KEY,
    REBUILD_HELP,
    TABLE_NAME_SUFFIX,
    MetadataPartition,
    file_group_index,
    file_id,
    init_instant_time,
    is_metadata_table,
    metadata_base_path,
    partition_identifier,
)
from hudi_sql.metadata.maintenance.services import MetadataServices
from hudi_sql.metadata.reader import (
    MetadataFileSlice,
    MetadataTableReader,
    declared_partitions,
    latest_file_slices,
)
from hudi_sql.metadata.records import METADATA_SCHEMA_JSON, FileInfo, MetadataRecord, RecordType
from hudi_sql.metadata.writer.file_writer import (
    base_file_name,
    encode_base_file,
    encode_init_block,
    encode_log_block,
    log_file_name,
)
from hudi_sql.metadata.writer.index_records import (
    GroupResult,
    GroupTask,
    IndexFile,
    group_tasks,
    index_files,
    indexed_columns,
    run_group_task,
)
from hudi_sql.metadata.writer.metadata_exec import run_units
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.file_names import BaseFileName, LogFileName, is_data_file_name, parse_cdc_log_name
from hudi_sql.model.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_sql.storage.layout import INITIAL_FOLDERS, TableLayout
from hudi_sql.storage.properties import PartitionMetadata, format_properties, table_checksum
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.merge_modes import EVENT_TIME_MERGE_STRATEGY_ID
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

#: The partitions maintained here, in the order Apache Hudi initialises them.
MAINTAINED = (MetadataPartition.FILES, MetadataPartition.BLOOM_FILTERS, MetadataPartition.COLUMN_STATS)
_PAYLOAD_CLASS = "org.apache.hudi.metadata.HoodieMetadataPayload"
_KEY_GENERATOR = "org.apache.hudi.metadata.HoodieTableMetadataKeyGenerator"

class MetadataTableSync:
    """The metadata table of one data table, as its timeline writer keeps it (module doc)."""

    def __init__(self, data: TableMetaClient, config: MetadataConfig) -> None:
        self.data = data
        #: the operation's metadata table options (``hoodie.metadata.*``)
        self.config = config

    @property
    def _active(self) -> bool:
        """A metadata table has no metadata table of its own."""
        return not is_metadata_table(self.data.base_path)

    @property
    def base_path(self) -> str:
        return metadata_base_path(self.data.layout.meta_path)

    def declared(self) -> frozenset[str]:
        return declared_partitions(self.data)

    # -- before an instant is requested ---------------------------------------------------

    def before_request(self, instant: Instant) -> None:
        """Prepare the metadata table for *instant* (see the module doc)."""
        if not self._active:
            return
        if self.data.table_version != 6:
            self.retire()  # Apache Hudi 1.x's metadata table is not maintained here
            return
        self._drop_unmaintained()
        if instant.action not in WRITE_ACTIONS:
            return
        config = self.config
        if not config.enable:
            self.retire()
            return
        self.initialize(config)
        if MetadataPartition.FILES.value in self.declared():
            MetadataServices(self.data, self.base_path).run_due(config)

    def retire(self) -> None:
        """Remove the metadata table (Apache Hudi's answer to ``hoodie.metadata.enable=false``).

        The table property that declares its partitions is cleared first: from then on no reader
        uses it, and a crash leaves a folder nobody reads, removed the next time.
        """
        meta = self.data
        state_keys = (HudiTableConfig.METADATA_PARTITIONS, HudiTableConfig.METADATA_PARTITIONS_INFLIGHT)
        declared = [option.key for option in state_keys if meta.properties.get(option.key)]
        if declared:
            _log.warning("Removing the metadata table of %s (the metadata table is off for this writer, or "
                         "of a table version hudi-sql does not maintain it for).", meta.base_path)
            meta.update_properties({key: "" for key in declared})
        if meta.storage.exists(self.base_path):
            meta.storage.delete_dir(self.base_path)

    def _drop_unmaintained(self) -> None:
        """Drop declared partitions we do not maintain (record index, partitions being indexed)."""
        meta = self.data
        inflight = list(meta.config.metadata_partitions_inflight)
        unknown = sorted(p for p in self.declared() if p not in {m.value for m in MAINTAINED}) + inflight
        if not unknown:
            return
        if MetadataPartition.FILES.value in inflight:
            self.retire()
            return
        _log.warning("Dropping metadata table partitions %s of %s: hudi-sql does not maintain them.",
                     ", ".join(unknown), meta.base_path)
        keep = sorted(p for p in self.declared() if p not in unknown)
        meta.update_properties({HudiTableConfig.METADATA_PARTITIONS.key: ",".join(keep),
                                HudiTableConfig.METADATA_PARTITIONS_INFLIGHT.key: ""})
        for partition in unknown:
            folder = meta.storage.join(self.base_path, partition)
            if meta.storage.exists(folder):
                meta.storage.delete_dir(folder)

    def _set_declared(self, partitions: set[str]) -> None:
        self.data.update_properties({HudiTableConfig.METADATA_PARTITIONS.key: ",".join(sorted(partitions))})

    # -- initialisation -------------------------------------------------------------------

    def initialize(self, config: MetadataConfig) -> None:
        """Create the partitions *config* turns on that the table does not declare yet (under the
        lock of the writer's transaction; skipped while another instant is pending)."""
        declared = set(self.declared())
        wanted = [MetadataPartition.FILES]
        wanted += [MetadataPartition.BLOOM_FILTERS] if config.bloom_filters else []
        wanted += [MetadataPartition.COLUMN_STATS] if config.column_stats else []
        missing = [p for p in wanted if p.value not in declared]
        if not missing:
            return
        pending = [i for i in self.data.timeline.pending() if i.action is not Action.INDEXING]
        if pending:
            _log.warning("Not creating the metadata table partitions %s of %s: instants are in progress (%s); "
                         "a later write will.", ", ".join(p.value for p in missing), self.data.base_path,
                         ", ".join(str(i) for i in pending[:3]))
            return
        storage = self.data.storage
        if MetadataPartition.FILES in missing:
            if storage.exists(self.base_path):
                storage.delete_dir(self.base_path)  # left by a crash before `files` was declared
            self._create_table()
        latest = self.data.timeline.completed().last
        base_time = latest.instant_time if latest is not None else None
        listing = self._listing(base_time)
        mdt = TableMetaClient.load(self.base_path, storage=storage)
        writer = InstantFileWriter(mdt, NoOpLockProvider())
        offset = 0
        for partition in missing:
            with writer.transaction(f"initialise {partition.value}"):
                instant_time = init_instant_time(base_time, offset)
                while mdt.timeline.find(instant_time) is not None:
                    offset += 1
                    instant_time = init_instant_time(base_time, offset)
                offset += 1
                count = self._write_initial(writer, partition, instant_time, listing, config)
            declared.add(partition.value)
            self._set_declared(declared)
            _log.info("Created the %s partition of the metadata table of %s at %s (%d records).",
                      partition.value, self.data.base_path, instant_time, count)

    def _create_table(self) -> None:
        """The metadata table's folders and ``hoodie.properties``, exactly the keys Apache Hudi writes
        (``initializeMetaClient``; no database, so the checksum is of ``.<table>_metadata``)."""
        t = HudiTableConfig
        name = f"{self.data.table_name}{TABLE_NAME_SUFFIX}"
        values = {
            t.PAYLOAD_CLASS.key: _PAYLOAD_CLASS,
            t.TYPE.key: "MERGE_ON_READ",
            t.ARCHIVELOG_FOLDER.key: "archived",
            t.TIMELINE_LAYOUT_VERSION.key: "1",
            t.CHECKSUM.key: str(table_checksum(None, name)),
            t.DROP_PARTITION_COLUMNS.key: "false",
            t.RECORD_KEY_FIELDS.key: "key",
            t.NAME.key: name,
            t.RECORD_MERGER_STRATEGY.key: EVENT_TIME_MERGE_STRATEGY_ID,
            t.POPULATE_META_FIELDS.key: "false",
            t.KEY_GENERATOR_CLASS.key: _KEY_GENERATOR,
            t.BASE_FILE_FORMAT.key: "HFILE",
            t.VERSION.key: "6",
        }
        storage = self.data.storage
        layout = TableLayout.of(self.base_path)
        for folder in INITIAL_FOLDERS:
            storage.mkdirs(f"{layout.meta_path}/{folder}")
        storage.write_bytes(layout.properties_path, format_properties(values))

    def _listing(self, up_to: str | None) -> dict[str, dict[str, int]]:
        """Partition -> data file -> size: from the ``files`` partition when it is there, else
        from storage, files of instants after *up_to* left out (``DirectoryInfo``)."""
        reader = MetadataTableReader.open(self.data)
        if reader is not None:
            listing = reader.file_listing()
            return {p: listing.files(p) for p in listing.partitions}
        return storage_listing(self.data, up_to)

    @staticmethod
    def _files_records(listing: Mapping[str, Mapping[str, int]]) -> dict[str, MetadataRecord]:
        """The ``files`` partition of a listing: the partition list and each partition's files."""
        records = {PARTITION_LIST_KEY: MetadataRecord(
            PARTITION_LIST_KEY, RecordType.PARTITION_LIST, {partition_identifier(p): FileInfo(0) for p in listing})}
        for path, files in listing.items():
            key = partition_identifier(path)
            records[key] = MetadataRecord(key, RecordType.FILE_LIST,
                                          {name: FileInfo(size) for name, size in files.items() if size > 0})
        return records

    @staticmethod
    def _file_group_count(partition: MetadataPartition, config: MetadataConfig) -> int:
        if partition is MetadataPartition.COLUMN_STATS:
            return config.column_stats_file_groups
        if partition is MetadataPartition.BLOOM_FILTERS:
            return config.bloom_filter_file_groups
        return 1

    def _write_initial(self, writer: InstantFileWriter, partition: MetadataPartition, instant_time: str,
                       listing: Mapping[str, Mapping[str, int]], config: MetadataConfig) -> int:
        """A partition's first deltacommit (a bulk insert): in every file group an empty first log
        file, then a base file of the group's records (none when it has no record). Returns the
        number of records."""
        mdt = writer.meta_client
        storage = mdt.storage
        folder = storage.join(mdt.base_path, partition.value)
        if storage.exists(folder):
            storage.delete_dir(folder)  # a crashed attempt's files
        storage.mkdirs(folder)
        storage.write_bytes(storage.join(folder, ".hoodie_partition_metadata"),
                            PartitionMetadata.for_partition(instant_time, partition.value).to_bytes())
        writer.request(Instant(instant_time, Action.DELTA_COMMIT, State.REQUESTED))
        writer.start(Instant(instant_time, Action.DELTA_COMMIT, State.INFLIGHT), CommitMetadata({}, "BULK_INSERT"))
        ids = [file_id(partition, i) for i in range(self._file_group_count(partition, config))]
        for fid in ids:
            storage.write_bytes(storage.join(folder, log_file_name(fid, instant_time, 1)),
                                encode_init_block(instant_time), overwrite=False)
        names = {fid: base_file_name(fid, instant_time) for fid in ids}
        if partition is MetadataPartition.FILES:
            records = self._files_records(listing)
            data = encode_base_file(records, names[ids[0]])
            storage.write_bytes(storage.join(folder, names[ids[0]]), data, overwrite=False)
            results = [GroupResult(partition, names[ids[0]], len(data), len(records))]
        else:
            files = [IndexFile(p, name) for p, by_name in sorted(listing.items()) for name in sorted(by_name)
                     if IndexFile(p, name).is_parquet_base]
            columns = indexed_columns(self.data, config) if partition is MetadataPartition.COLUMN_STATS else ()
            tasks = group_tasks(partition, files, columns, ids, names, data_base_path=self.data.base_path,
                                folder=folder, instant_time=instant_time, base_file=True, storage=self.data.storage)
            results = run_units(tasks, run_group_task, weight=len(files))
        stats = [WriteStat(r.file_name.split("_", 1)[0], f"{partition.value}/{r.file_name}", partition.value,
                           num_writes=r.records, num_inserts=r.records, total_write_bytes=r.size,
                           file_size_in_bytes=r.size) for r in results if r.size]
        writer.complete(Instant(instant_time, Action.DELTA_COMMIT),
                        CommitMetadata({partition.value: tuple(stats)} if stats else {}, "BULK_INSERT",
                                       {"schema": METADATA_SCHEMA_JSON}))
        return sum(r.records for r in results)

    # -- before an instant completes --------------------------------------------------------

    def apply(self, instant: Instant, payload: Any) -> None:
        """Commit what *instant* changed to the metadata table, as its deltacommit (module doc)."""
        if not self._active or self.data.table_version != 6:
            return
        declared = self.declared()
        if MetadataPartition.FILES.value not in declared:
            return
        changes = FileChanges.of(instant, payload)
        if changes is None or changes.is_empty:
            return
        services = MetadataServices(self.data, self.base_path)
        config = self.config
        with services.writer.transaction(f"apply {instant.instant_time}"):
            services.recover()
            services.remove_deltacommit(instant.instant_time)  # a retried instant's earlier attempt
            index_partitions = [p for p in (MetadataPartition.BLOOM_FILTERS, MetadataPartition.COLUMN_STATS)
                                if p.value in declared]
            files = index_files(changes, payload) if index_partitions else []
            columns = ()
            if MetadataPartition.COLUMN_STATS in index_partitions:
                schema = payload.schema if isinstance(payload, CommitMetadata) else None
                columns = indexed_columns(self.data, config, schema)
            self._write_deltacommit(services.writer, instant.instant_time,
                                    _by_key(files_partition_records(changes)), index_partitions, files, columns)
        if instant.action in (Action.ROLLBACK, Action.RESTORE):
            for target in _rolled_back(instant, payload):
                with services.writer.transaction(f"remove {target}"):
                    services.remove_deltacommit(target, only_uncompacted=True)

    def _write_deltacommit(self, writer: InstantFileWriter, instant_time: str,
                           files_records: Mapping[str, MetadataRecord], index_partitions: list[MetadataPartition],
                           index_files_changed: list[IndexFile], columns: tuple[str, ...]) -> None:
        """One deltacommit at *instant_time*: a new log version in each file group with records,
        the ``files`` partition's written here, the index partitions' by their group tasks."""
        mdt = writer.meta_client
        storage = mdt.storage
        writer.request(Instant(instant_time, Action.DELTA_COMMIT, State.REQUESTED))
        writer.start(Instant(instant_time, Action.DELTA_COMMIT, State.INFLIGHT), CommitMetadata({}, "UPSERT_PREPPED"))
        stats: dict[str, tuple[WriteStat, ...]] = {}
        work = [(MetadataPartition.FILES, None)] + [(p, p) for p in index_partitions]
        tasks: list[GroupTask] = []
        slices_of: dict[MetadataPartition, dict[str, MetadataFileSlice]] = {}
        for partition, index in work:
            folder = storage.join(mdt.base_path, partition.value)
            names = [s.name for s in storage.list(folder) if not s.is_dir] if storage.is_dir(folder) else []
            slices = {s.file_id: s for s in latest_file_slices(names, mdt.timeline)}
            if not slices:
                raise HudiFileFormatError(
                    f"The {partition.value} partition of the metadata table at '{mdt.base_path}' has no file group.",
                    help=REBUILD_HELP)
            slices_of[partition] = slices
            ids = sorted(slices)
            new_names = {fid: _next_log_name(names, slices[fid], instant_time) for fid in ids}
            if index is None:
                groups: dict[str, dict[str, MetadataRecord]] = {}
                for key, record in files_records.items():
                    groups.setdefault(ids[file_group_index(key, len(ids))], {})[key] = record
                results = []
                for fid, group in sorted(groups.items()):
                    data = encode_log_block(instant_time, group)
                    storage.write_bytes(storage.join(folder, new_names[fid]), data, overwrite=False)
                    results.append(GroupResult(partition, new_names[fid], len(data), len(group)))
                stats[partition.value] = self._log_stats(partition, results, slices)
            else:
                tasks += group_tasks(index, index_files_changed, columns, ids, new_names, data_base_path=self.data.base_path,
                                     folder=folder, instant_time=instant_time, storage=self.data.storage)
        by_partition: dict[MetadataPartition, list[GroupResult]] = {}
        for result in run_units(tasks, run_group_task, weight=len(index_files_changed) * max(1, len(index_partitions))):
            if result.size:
                by_partition.setdefault(result.partition, []).append(result)
        for partition, results in by_partition.items():
            stats[partition.value] = self._log_stats(partition, results, slices_of[partition])
        writer.complete(Instant(instant_time, Action.DELTA_COMMIT),
                        CommitMetadata({p: s for p, s in stats.items() if s}, "UPSERT_PREPPED",
                                       {"schema": METADATA_SCHEMA_JSON}))

    @staticmethod
    def _log_stats(partition: MetadataPartition, results: list[GroupResult],
                   slices: Mapping[str, MetadataFileSlice]) -> tuple[WriteStat, ...]:
        stats = []
        for result in results:
            log = LogFileName.parse(result.file_name)
            current = slices[log.file_id]
            stats.append(WriteStat(
                log.file_id, f"{partition.value}/{result.file_name}", partition.value, prev_commit=current.base_instant,
                num_writes=result.records, num_update_writes=result.records, total_write_bytes=result.size,
                file_size_in_bytes=result.size, log_version=log.version, log_offset=0,
                base_file=current.base_file or "", log_files=(*current.log_files, result.file_name)))
        return tuple(stats)


def _next_log_name(names: list[str], current: MetadataFileSlice, instant_time: str) -> str:
    """The next log version of *current*'s slice (each deltacommit writes a new log file)."""
    prefix = f".{current.file_id}_{current.base_instant}.log."
    versions = [LogFileName.parse(n).version for n in names if n.startswith(prefix)]
    return log_file_name(current.file_id, current.base_instant, max(versions, default=0) + 1)


def _by_key(records: list[MetadataRecord]) -> dict[str, MetadataRecord]:
    """Records by key; a key given twice keeps both changes (the later merged onto the earlier)."""
    out: dict[str, MetadataRecord] = {}
    for record in records:
        previous = out.get(record.key)
        out[record.key] = record if previous is None else record.combine(previous)
    return out


def storage_listing(data: TableMetaClient, up_to: str | None = None) -> dict[str, dict[str, int]]:
    """Partition -> data file -> size, as storage lists them (files of instants after *up_to* left out)."""
    storage = data.storage
    out: dict[str, dict[str, int]] = {}
    for partition in FileSystemView(data, use_metadata=False).partition_paths():
        folder = data.layout.partition_dir(partition)
        if not storage.is_dir(folder):
            continue
        files: dict[str, int] = {}
        for status in storage.list(folder):
            instant = None if status.is_dir else data_file_instant(status.name)
            if instant is not None and (up_to is None or instant <= up_to):
                files[status.name] = status.size
        out[partition] = files
    return out


def data_file_instant(name: str) -> str | None:
    """The instant a data file's name carries (a log file: its slice's base instant), or ``None``
    for a file that is not a data file (``.hoodie_partition_metadata``, crc files, strays)."""
    base = BaseFileName.try_parse(name)
    if base is not None:
        return base.instant_time
    cdc = parse_cdc_log_name(name)
    if cdc is not None:
        return cdc.base_instant
    if is_data_file_name(name):
        return LogFileName.parse(name).base_instant
    return None


def _rolled_back(instant: Instant, payload: Any) -> list[str]:
    """The instants a rollback or restore undid."""
    if not isinstance(payload, Mapping):
        return []
    if instant.action is Action.ROLLBACK:
        return [str(t) for t in payload.get("commitsRollback") or ()]
    return [str(t) for t in payload.get("instantsToRollback") or ()]

