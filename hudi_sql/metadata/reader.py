"""Reading Apache Hudi's metadata table (table version 6): the merged records of a partition.

**Layout** (:mod:`hudi_sql.metadata.layout`). A partition holds a few file groups
``<prefix><NNNN>-0``; a file slice is a base file ``<group>_<token>_<instant>.hfile`` (an HFile,
:mod:`hudi_sql.hfile`) and log files ``.<group>_<baseInstant>.log.<n>_<token>`` whose data blocks
are HFILE blocks (type 4): the block content is a whole HFile, its header ``SCHEMA`` the writer
schema. In both, an HFile key is a record key and its value one Avro ``HoodieMetadataRecord``
(:mod:`hudi_sql.metadata.records`).

**Merging** (``HoodieBackedTableMetadata``): as in Java, log records merge among themselves
first, in log order, and the result then merges onto the base file's record, so tombstones in
logs reach the base (but a file added and then deleted within the logs leaves no tombstone, so a
base file's entry for it survives: Java's result, kept). A delete block drops the whole record.

**What counts** (``HoodieBackedTableMetadata``, ``HoodieTableMetadataUtil.getValidInstantTimestamps``,
``AbstractHoodieLogRecordReader``): the latest file slice of each group as of the latest completed
metadata instant; of its log blocks only those whose instant is a completed write on the metadata
timeline, not rolled back by a command block, and *valid*: a completed instant of the data table
(the metadata table commits before the data table does), a completed metadata deltacommit with an
operation or initialisation suffix or starting with ``00000000000000``, a metadata rollback or
restore, or an instant a completed data-table rollback or restore undid. The metadata table is
used only when the data table's properties declare ``files`` among its complete partitions, as
Apache does; an index partition only when it is declared too.

Not read: version 8 metadata tables and log-compacted blocks (refused, naming them), and the
record index.
"""

from __future__ import annotations

__all__ = [
    "BlockFilter",
    "FileInfo",
    "MetadataFileListing",
    "MetadataFileSlice",
    "MetadataRecord",
    "MetadataTableReader",
    "RecordType",
    "declared_partitions",
    "decode_metadata_records",
    "is_valid_metadata_instant",
    "latest_file_slices",
    "load_metadata_timeline",
    "merge_file_slice",
    "read_file_slice",
    "read_metadata_files",
    "rolled_back_commits",
    "valid_instant_times",
]

import functools
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from hudi_sql.errors import HudiFileFormatError, TableNotFoundError, UnsupportedFeatureError
from hudi_sql.hfile import HFileReader
from hudi_sql.log.block import (
    BlockType,
    CommandBlock,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    HeaderKey,
    RawBlock,
)
from hudi_sql.log.reader import decode_block, read_raw_blocks
from hudi_sql.metadata.layout import (
    LIST_FROM_STORAGE_HELP,
    NON_PARTITIONED_NAME,
    PARTITION_LIST_KEY,
    REBUILD_HELP,
    SOLO_COMMIT_TIME,
    MetadataPartition,
    metadata_base_path,
)
from hudi_sql.metadata.records import FileInfo, MetadataRecord, RecordType, decode_record
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.model.instant import Action, Instant
from hudi_sql.model.timeline import Timeline
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

_OPERATION_SUFFIXES = frozenset({"001", "002", "003", "004", "005", "006"})
_PARTITION_INIT_SUFFIX = "010"
_SUFFIXED_LENGTH = 20
_HFILE_SCHEMA_KEY = b"schema"
_WRITES = (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)
#: The record types each partition may hold.
_TYPES = {
    MetadataPartition.FILES: frozenset({RecordType.PARTITION_LIST, RecordType.FILE_LIST}),
    MetadataPartition.COLUMN_STATS: frozenset({RecordType.COLUMN_STATS}),
    MetadataPartition.BLOOM_FILTERS: frozenset({RecordType.BLOOM_FILTER}),
    MetadataPartition.RECORD_INDEX: frozenset({RecordType.RECORD_INDEX}),
}
#: Which keys of a file slice to decode: all (``None``), or those starting with any prefix.
KeyFilter = Sequence[str] | None


@dataclass(frozen=True)
class MetadataFileListing:
    """The merged ``files`` partition as of one metadata instant.

    Attributes:
        instant_time: the latest completed instant of the metadata table that was read.
        records: the merged records by key (tombstones kept inside them, as Java keeps them).
        file_slices: the file slices read, for diagnostics.
    """

    instant_time: str
    records: Mapping[str, MetadataRecord]
    file_slices: tuple[MetadataFileSlice, ...] = ()

    @property
    def partitions(self) -> list[str]:
        """Every partition path, sorted; a non-partitioned table's is ``""``."""
        record = self.records.get(PARTITION_LIST_KEY)
        names = record.live() if record is not None else {}
        return sorted("" if name == NON_PARTITIONED_NAME else name for name in names)

    def files(self, partition: str) -> dict[str, int]:
        """File name -> size of the files of *partition* (``""`` when non-partitioned); empty if unknown."""
        record = self.records.get(partition or NON_PARTITIONED_NAME)
        return record.live() if record is not None else {}


@dataclass(frozen=True)
class MetadataFileSlice:
    """The latest file slice of one file group of a metadata partition: names relative to it."""

    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]


# -- decoding -------------------------------------------------------------------------------


def decode_metadata_records(
    reader: HFileReader, schema_json: str | None, *, source: str, partition: MetadataPartition = MetadataPartition.FILES,
    prefixes: KeyFilter = None,
) -> dict[str, MetadataRecord]:
    """The records of one HFile (a base file, or the content of an HFILE log block).

    Args:
        reader: the HFile.
        schema_json: the Avro writer schema (a log block's header ``SCHEMA``); ``None`` takes the
            HFile's own file info ``schema``, as base files carry it.
        source: how messages name the file (a path, and for a block its offset).
        partition: the metadata partition the file belongs to (its record types are checked).
        prefixes: decode only the keys starting with one of these (``None``: every key).

    Raises:
        HudiFileFormatError: a schema that does not parse, a value that is not one record of it,
            or a record of a type that does not belong to *partition*.
    """
    if schema_json is None:
        raw = reader.file_info.get(_HFILE_SCHEMA_KEY)
        if raw is None:
            raise HudiFileFormatError(
                f"{source}: the HFile carries no '{_HFILE_SCHEMA_KEY.decode()}' file info",
                help="this is not a metadata table file")
        schema_json = raw.decode("utf-8", "replace")
    if prefixes is None:
        cells: Iterable[tuple[bytes, bytes]] = reader.items()
    else:
        cells = (cell for prefix in sorted(set(prefixes)) for cell in reader.items_with_prefix(prefix.encode()))
    allowed = _TYPES[partition]
    records: dict[str, MetadataRecord] = {}
    for key_bytes, value in cells:
        try:
            key = key_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HudiFileFormatError(f"{source}: the record key {key_bytes!r} is not UTF-8") from exc
        what = f"{source}, key '{key}'"
        records[key] = decode_record(key, value, schema_json, what=what, allowed=allowed, partition=partition.value)
    return records


# -- the metadata timeline and which instants count -----------------------------------------


def load_metadata_timeline(names: Iterable[str]) -> Timeline:
    """The metadata table's active timeline from the names listed in its ``.hoodie`` folder."""
    return Timeline.of(i for i in map(Instant.parse_file_name, names) if i is not None)


def is_valid_metadata_instant(instant: Instant) -> bool:
    """Java's ``isValidInstant``: a deltacommit whose time carries an operation suffix (``001`` to
    ``006``) or a partition initialisation suffix (``010`` and up) after a 17-digit data instant."""
    time = instant.instant_time
    if instant.action is not Action.DELTA_COMMIT or len(time) != _SUFFIXED_LENGTH:
        return False
    suffix = time[-3:]
    return suffix in _OPERATION_SUFFIXES or suffix >= _PARTITION_INIT_SUFFIX


def valid_instant_times(
    data_timeline: Timeline,
    metadata_timeline: Timeline,
    rolled_back: Callable[[Instant], Iterable[str]],
) -> frozenset[str]:
    """The instants whose log blocks a reader applies (``getValidInstantTimestamps``).

    The metadata table commits a data instant's changes before the data table completes it, so
    a block of a data instant that failed must not count.

    Args:
        data_timeline: the data table's active timeline.
        metadata_timeline: the metadata table's active timeline.
        rolled_back: the instants a completed data-table rollback or restore undid.
    """
    valid = {i.instant_time for i in data_timeline.completed()}
    metadata_done = metadata_timeline.completed()
    valid.update(i.instant_time for i in metadata_done if is_valid_metadata_instant(i))
    earliest = min(valid, default=SOLO_COMMIT_TIME)
    for instant in data_timeline.completed().with_actions(Action.ROLLBACK, Action.RESTORE):
        if instant.instant_time > earliest:
            valid.update(rolled_back(instant))
    valid.update(i.instant_time for i in metadata_done.with_actions(Action.ROLLBACK, Action.RESTORE))
    valid.update(i.instant_time for i in metadata_done.with_actions(Action.DELTA_COMMIT)
                 if i.instant_time.startswith(SOLO_COMMIT_TIME))
    return frozenset(valid)


def rolled_back_commits(meta: TableMetaClient, instant: Instant) -> list[str]:
    """The commits a completed rollback or restore of the data table undid.

    A rollback whose completed file is empty names its target in its plan, as Java falls back to.
    """
    record = meta.instant_record(instant)
    if instant.action is Action.ROLLBACK:
        if record is None:
            plan = meta.instant_record(instant.to(instant.state.REQUESTED)) or {}
            target = plan.get("instantToRollback") or {}
            return [target["commitTime"]] if target.get("commitTime") else []
        return list(record.get("commitsRollback") or [])
    rollbacks = (record or {}).get("hoodieRestoreMetadata") or {}
    return [commit for metas in rollbacks.values() for meta in metas or () if meta
            for commit in meta.get("commitsRollback") or ()]


# -- file slices ----------------------------------------------------------------------------


def latest_file_slices(names: Iterable[str], timeline: Timeline) -> list[MetadataFileSlice]:
    """The latest file slice of each file group of a metadata partition, from its folder listing.

    Java's file-system view on the metadata timeline: a slice counts when its base instant is a
    completed write of that timeline (or older than its first one: archived); logs written under
    a pending compaction belong to the slice before it; everything after the latest completed
    instant is ignored. Other names (``.hoodie_partition_metadata``, ``.crc`` files) are skipped.
    """
    completed = timeline.completed()
    latest = completed.last.instant_time if completed.last else None
    commits = {i.instant_time for i in completed.with_actions(*_WRITES)}
    first = min(commits, default=None)
    pending = {i.instant_time for i in timeline.pending().with_actions(Action.COMPACTION)}

    def committed(instant_time: str) -> bool:
        return instant_time in commits or (first is not None and instant_time < first)

    bases: dict[str, dict[str, str]] = defaultdict(dict)
    logs: dict[str, dict[str, list[LogFileName]]] = defaultdict(lambda: defaultdict(list))
    for name in names:
        base = BaseFileName.try_parse(name)
        if base is not None:
            if base.extension == "hfile" and committed(base.instant_time) and latest is not None \
                    and base.instant_time <= latest:
                bases[base.file_id][base.instant_time] = name
            continue
        log = LogFileName.try_parse(name)
        if log is not None:
            logs[log.file_id][log.base_instant].append(log)
    slices = []
    for file_id in sorted(set(bases) | set(logs)):
        group_logs = logs.get(file_id, {})
        candidates = set(bases.get(file_id, {})) or {t for t in group_logs if committed(t)}
        if not candidates:
            continue
        instant = max(candidates)
        chosen = [log for t, found in group_logs.items() if t == instant or (t in pending and t > instant)
                  for log in found]
        slices.append(MetadataFileSlice(file_id, instant, bases.get(file_id, {}).get(instant),
                                        tuple(log.name for log in sorted(chosen, key=lambda lf: lf.sort_key))))
    return slices


# -- merging a file slice -------------------------------------------------------------------


def _scan_log(
    data: bytes, where: str, blocks: list[tuple[RawBlock, str]], targets: set[str], latest: str
) -> None:
    """Collects the data and delete blocks of one log file, and the targets of its rollbacks."""
    for block in read_raw_blocks(data, name=where):
        if isinstance(block, CorruptBlock):
            continue  # a torn write, skipped with a warning by the reader, as Java skips it
        instant_time = block.header.get(HeaderKey.INSTANT_TIME)
        if instant_time is None:
            raise HudiFileFormatError(
                f"log file {where}: the {block.block_type.name} block at offset {block.offset} has no "
                "INSTANT_TIME header")
        if instant_time > latest:
            continue  # written by a metadata instant not completed yet
        if block.block_type is BlockType.COMMAND:
            command = _decoded(block, where)
            assert isinstance(command, CommandBlock)
            targets.add(command.target_instant_time)
        else:
            blocks.append((block, where))


def _decoded(raw: RawBlock, where: str) -> DataBlock | DeleteBlock | CommandBlock:
    """:func:`decode_block`, its error naming the log file."""
    try:
        return decode_block(raw)
    except HudiFileFormatError as exc:
        message = str(exc).rsplit("\nHelp: ", 1)[0] if exc.help else str(exc)
        raise HudiFileFormatError(f"log file {where}: {message}", help=exc.help) from exc


def _block_batch(raw: RawBlock, where: str, partition: MetadataPartition,
                 prefixes: KeyFilter) -> dict[str, MetadataRecord | None]:
    """The records of one data or delete block by key; ``None`` marks a key a delete block removed."""
    if HeaderKey.COMPACTED_BLOCK_TIMES in raw.header:
        raise UnsupportedFeatureError(
            f"log file {where}: the block at offset {raw.offset} was written by a log compaction of the "
            "metadata table, which is not read here",
            help=REBUILD_HELP)
    if raw.block_type is BlockType.HFILE_DATA:
        source = f"log file {where}, HFILE block at offset {raw.offset}"
        batch: dict[str, MetadataRecord | None] = {}
        batch.update(decode_metadata_records(HFileReader(raw.content, source=source),
                                             raw.header.get(HeaderKey.SCHEMA), source=source,
                                             partition=partition, prefixes=prefixes))
        return batch
    if raw.block_type is BlockType.DELETE:
        deletes = _decoded(raw, where)
        assert isinstance(deletes, DeleteBlock)
        # the metadata table has no ordering field: every delete applies (natural order)
        return {record.record_key: None for record in deletes.records
                if prefixes is None or record.record_key.startswith(tuple(prefixes))}
    raise HudiFileFormatError(
        f"log file {where}: a {raw.block_type.name} block at offset {raw.offset} in the metadata table",
        help="the metadata table's partitions hold only HFILE, delete and command blocks")


def merge_file_slice(
    base: Mapping[str, MetadataRecord], log_batches: Iterable[Mapping[str, MetadataRecord | None]]
) -> dict[str, MetadataRecord]:
    """The records of a file slice: the log batches merged in order, then merged onto the base.

    Two stages as in Java's metadata reader (log records scanner, then base file): a tombstone
    for a file the logs never added survives the first stage and removes the file from the base.
    A key a delete block removed loses everything before the delete, the base's record included;
    a later record of that key starts afresh.
    """
    merged: dict[str, MetadataRecord | None] = {}
    dropped: set[str] = set()
    for batch in log_batches:
        for key, record in batch.items():
            previous = merged.get(key)
            if record is None:
                dropped.add(key)
            merged[key] = record if record is None or previous is None else record.combine(previous)
    result = dict(base)
    for key, record in merged.items():
        older = None if key in dropped else result.get(key)
        if record is None:
            result.pop(key, None)
        else:
            result[key] = record if older is None else record.combine(older)
    return result


# -- the reader -----------------------------------------------------------------------------


def declared_partitions(data: TableMetaClient) -> frozenset[str]:
    """The complete metadata partitions ``hoodie.table.metadata.partitions`` declares."""
    return frozenset(data.config.metadata_partitions)


@dataclass(frozen=True)
class BlockFilter:
    """Which log blocks of the metadata table count, as of one reading (module doc, "What counts").

    Picklable, so that a Spark task merging a file slice applies the same rule as the driver.

    Attributes:
        latest: the latest completed metadata instant; blocks after it are not read.
        valid: the instants whose blocks a reader applies (:func:`valid_instant_times`).
        commits: the completed write instants of the metadata timeline.
        pending_writes: its pending write instants.
    """

    latest: str
    valid: frozenset[str]
    commits: frozenset[str]
    pending_writes: frozenset[str] = frozenset()

    def counts(self, instant_time: str) -> bool:
        """Java's ``containsOrBeforeTimelineStarts`` on completed metadata writes, then the valid set."""
        first = min(self.commits, default=None)
        archived = first is not None and instant_time < first and instant_time not in self.pending_writes
        return (instant_time in self.commits or archived) and instant_time in self.valid


def read_file_slice(storage: Storage, folder: str, partition: MetadataPartition, file_slice: MetadataFileSlice,
                    blocks_counted: BlockFilter, *, prefixes: KeyFilter = None) -> dict[str, MetadataRecord]:
    """The merged records of one file slice of *partition* in *folder* (tombstones kept)."""
    base: dict[str, MetadataRecord] = {}
    if file_slice.base_file is not None:
        path = storage.join(folder, file_slice.base_file)
        base = decode_metadata_records(HFileReader(storage.read_bytes(path), source=path), None, source=path,
                                       partition=partition, prefixes=prefixes)
    blocks: list[tuple[RawBlock, str]] = []
    targets: set[str] = set()
    for name in file_slice.log_files:
        path = storage.join(folder, name)
        _scan_log(storage.read_bytes(path), path, blocks, targets, blocks_counted.latest)
    batches = (_block_batch(raw, where, partition, prefixes) for raw, where in blocks
               if blocks_counted.counts(raw.instant_time) and raw.instant_time not in targets)
    return merge_file_slice(base, batches)


@dataclass
class MetadataTableReader:
    """The metadata table of one data table, as of its latest completed instant.

    Open one per planned operation (:meth:`open`); partitions are read on demand and the file
    slices of each are listed once.
    """

    data: TableMetaClient
    metadata: TableMetaClient
    partitions: frozenset[str]
    blocks_counted: BlockFilter
    _slices: dict[MetadataPartition, list[MetadataFileSlice]] = field(default_factory=dict)

    @classmethod
    def open(cls, data: TableMetaClient) -> MetadataTableReader | None:
        """The reader of *data*'s metadata table, or ``None`` when there is none to use: the table's
        properties do not declare the ``files`` partition (no metadata table, or one being built or
        retired), or the metadata table, its ``files`` folder or any completed metadata instant is
        missing.

        Raises:
            UnsupportedFeatureError: a metadata table of table version 8 or later.
        """
        declared = declared_partitions(data)
        if MetadataPartition.FILES.value not in declared:
            return None
        if data.table_version != 6:
            raise UnsupportedFeatureError(
                f"The metadata table of '{data.base_path}' is of table version {data.table_version}; only "
                "version 6 (Apache Hudi 0.14 / 0.15) metadata tables are read",
                help=LIST_FROM_STORAGE_HELP)
        path = metadata_base_path(data.layout.meta_path)
        try:
            metadata = TableMetaClient.load(path, storage=data.storage)
        except TableNotFoundError:
            _log.warning("%s declares the metadata table partition 'files', but %s holds no table",
                         data.base_path, path)
            return None
        if metadata.table_version != 6:
            raise UnsupportedFeatureError(
                f"The metadata table at '{path}' is of table version {metadata.table_version}; only "
                "version 6 is read", help=LIST_FROM_STORAGE_HELP)
        timeline = metadata.timeline
        completed = timeline.completed()
        if completed.last is None or not data.storage.is_dir(data.storage.join(path, MetadataPartition.FILES.value)):
            return None
        valid = valid_instant_times(data.timeline, timeline, functools.partial(rolled_back_commits, data))
        counted = BlockFilter(completed.last.instant_time, valid,
                              frozenset(i.instant_time for i in completed.with_actions(*_WRITES)),
                              frozenset(i.instant_time for i in timeline.pending().with_actions(*_WRITES)))
        return cls(data, metadata, declared, counted)

    @property
    def latest(self) -> str:
        """The latest completed metadata instant read."""
        return self.blocks_counted.latest

    def has(self, partition: MetadataPartition) -> bool:
        """Whether *partition* is declared complete (and so may be read)."""
        return partition.value in self.partitions

    def folder(self, partition: MetadataPartition) -> str:
        return self.metadata.storage.join(self.metadata.base_path, partition.value)

    def file_slices(self, partition: MetadataPartition) -> list[MetadataFileSlice]:
        """The latest file slice of each file group of *partition* (listed once)."""
        if partition not in self._slices:
            storage = self.metadata.storage
            folder = self.folder(partition)
            names = [s.name for s in storage.list(folder) if not s.is_dir] if storage.is_dir(folder) else []
            self._slices[partition] = latest_file_slices(names, self.metadata.timeline)
        return self._slices[partition]

    def read(self, partition: MetadataPartition, *, prefixes: KeyFilter = None) -> dict[str, MetadataRecord]:
        """The merged records of *partition* (those whose key starts with one of *prefixes*).

        Raises:
            HudiFileFormatError: a damaged file (named), or one key in two file groups.
        """
        records: dict[str, MetadataRecord] = {}
        owner: dict[str, str] = {}
        for file_slice in self.file_slices(partition):
            for key, record in self.read_slice(partition, file_slice, prefixes=prefixes).items():
                if key in records:
                    raise HudiFileFormatError(
                        f"metadata table '{self.metadata.base_path}': record '{key}' is in file groups "
                        f"{owner[key]} and {file_slice.file_id} of the {partition.value} partition",
                        help=f"a key belongs to one file group; {REBUILD_HELP}")
                records[key] = record
                owner[key] = file_slice.file_id
        return records

    def read_slice(self, partition: MetadataPartition, file_slice: MetadataFileSlice, *,
                   prefixes: KeyFilter = None) -> dict[str, MetadataRecord]:
        """The merged records of one file slice of *partition* (tombstones kept)."""
        return read_file_slice(self.metadata.storage, self.folder(partition), partition, file_slice,
                               self.blocks_counted, prefixes=prefixes)

    def file_listing(self) -> MetadataFileListing:
        """The merged ``files`` partition."""
        records = self.read(MetadataPartition.FILES)
        return MetadataFileListing(self.latest, records, tuple(self.file_slices(MetadataPartition.FILES)))


def read_metadata_files(base_path: str, *, storage: Storage | None = None) -> MetadataFileListing | None:
    """The listing in the metadata table's ``files`` partition, as of its latest completed instant.

    Args:
        base_path: the data table's base path.
        storage: the storage to read through.

    Returns:
        The listing, or ``None`` when there is no metadata table to use (:meth:`MetadataTableReader.open`).

    Raises:
        TableNotFoundError: no Hudi table at *base_path*.
        HudiFileFormatError: a damaged base or log file (named in the message).
        UnsupportedFeatureError: a metadata table of table version 8 or later, or log-compacted.
    """
    data = TableMetaClient.load(base_path, storage=storage or Storage())
    reader = MetadataTableReader.open(data)
    return reader.file_listing() if reader is not None else None

