"""Reading the ``files`` partition of Apache Hudi's metadata table (table version 6, Hudi 0.14 / 0.15).

Apache Hudi keeps the listing of every partition in ``.hoodie/metadata``, a Merge-On-Read Hudi
table of its own, so that readers need not list storage. This module reads that listing, as a
foundation for listing files without storage listings; nothing here writes the metadata table
(hudi-sql removes it before its first write: :mod:`hudi_sql.commit.timeline_writer`).

**Layout.** The partition ``files`` holds a few file groups ``files-<NNNN>-0``; a file slice is a
base file ``files-0000-0_<token>_<instant>.hfile`` (an HFile, :mod:`hudi_sql.hfile`) and log files
``.files-0000-0_<baseInstant>.log.<n>_<token>`` whose data blocks are HFILE blocks (type 4): the
block content is a whole HFile, its header ``SCHEMA`` the writer schema. In both, an HFile key is
a record key and its value one Avro-encoded ``HoodieMetadataRecord`` (``HoodieMetadata.avsc``)
whose ``key`` field the writer blanked (``HoodieHFileDataBlock.serializeRecord``), so the key is
taken from the HFile. Metadata instants may carry a three-digit suffix after a data instant
(20 digits: ``001`` compaction, ``002`` clean, ``004`` indexer, ...; ``010`` and up partition
initialisation), which the data table's instant grammar does not accept, so this module parses
the metadata timeline itself.

**Records** (``HoodieMetadataPayload``): type 1, key ``__all_partitions__``, maps partition names
to a file info; type 2, key the partition path, maps file names to ``{size, isDeleted}``. The
non-partitioned table's partition ``""`` is named ``.`` (``NON_PARTITIONED_NAME``).

**Merging** (``HoodieMetadataPayload.combineFileSystemMetadata``): a newer record adds its entries
to the older one's; a deleted entry removes the file, or stays as a tombstone when the older
record has no such file (or has a tombstone too) so that it can remove the file from a base file
later; an entry present in both keeps the larger size (sizes only grow). As in Java, log records
merge among themselves first, in log order, and the result then merges onto the base file's
record, so tombstones in logs reach the base (but a file added and then deleted within the logs
leaves no tombstone, so a base file's entry for it survives: Java's result, kept). A delete block
drops the whole record.

**What counts** (``HoodieBackedTableMetadata``, ``HoodieTableMetadataUtil.getValidInstantTimestamps``,
``AbstractHoodieLogRecordReader``): the latest file slice of each group as of the latest completed
metadata instant; of its log blocks only those whose instant is a completed write on the metadata
timeline, not rolled back by a command block, and *valid*: a completed instant of the data table
(the metadata table commits before the data table does), a completed metadata deltacommit with an
operation or initialisation suffix or starting with ``00000000000000``, a metadata rollback or
restore, or an instant a completed data-table rollback or restore undid. The listing is used only
when the data table's properties declare ``files`` among its metadata partitions, as Apache does.

Not read: version 8 metadata tables and log-compacted blocks (refused, naming them); the other
metadata partitions (column stats, bloom filters, record index).
"""

from __future__ import annotations

__all__ = [
    "FILES_PARTITION",
    "NON_PARTITIONED_NAME",
    "PARTITION_LIST_KEY",
    "FileInfo",
    "MetadataFileListing",
    "MetadataFileSlice",
    "MetadataRecord",
    "RecordType",
    "decode_metadata_records",
    "is_valid_metadata_instant",
    "latest_file_slices",
    "load_metadata_timeline",
    "merge_file_slice",
    "read_metadata_files",
    "valid_instant_times",
]

import functools
import io
import json
import logging
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import fastavro

from hudi_sql.config import HudiTableConfig
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
from hudi_sql.model.file_names import LogFileName
from hudi_sql.model.instant import COMPLETES_AS, Action, Instant, State
from hudi_sql.model.timeline import Timeline
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

METADATA_TABLE_FOLDER = "metadata"
"""``.hoodie/metadata``: the metadata table's base path under the data table's meta folder."""
FILES_PARTITION = "files"
PARTITION_LIST_KEY = "__all_partitions__"
NON_PARTITIONED_NAME = "."
SOLO_COMMIT_TIME = "00000000000000"
"""The instant of a metadata table initialised before the data table had any commit."""
_OPERATION_SUFFIXES = frozenset({"001", "002", "003", "004", "005", "006"})
_PARTITION_INIT_SUFFIX = "010"
_SUFFIXED_LENGTH = 20
_HFILE_SCHEMA_KEY = b"schema"

_BASE = re.compile(r"^([A-Za-z0-9-]+)_(\d+-\d+-\d+)_(\d{14,20})\.hfile$")
_LOG = re.compile(r"^\.([A-Za-z0-9-]+)_(\d{14,20})\.log\.(\d+)_(\d+-\d+-\d+)$")
_INSTANT = re.compile(r"^(\d{14,20})\.([a-z]+)(?:\.(requested|inflight))?$")
_ACTIONS = {a.value: a for a in Action}
_WRITES = (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)


class RecordType(IntEnum):
    """The ``type`` field of the ``files`` partition's records."""

    PARTITION_LIST = 1
    FILE_LIST = 2


@dataclass(frozen=True)
class FileInfo:
    """``HoodieMetadataFileInfo``: a file's size, or a tombstone (``is_deleted``, size 0)."""

    size: int
    is_deleted: bool = False


@dataclass(frozen=True)
class MetadataRecord:
    """One ``HoodieMetadataRecord`` of the ``files`` partition, tombstones included.

    Attributes:
        key: the record key: ``__all_partitions__``, or a partition path (``.`` when non-partitioned).
        record_type: partition list or file list.
        files: entry name (partition or file) -> its info, tombstones included.
    """

    key: str
    record_type: RecordType
    files: Mapping[str, FileInfo] = field(default_factory=dict)

    def combine(self, older: MetadataRecord) -> MetadataRecord:
        """This (newer) record merged onto *older*, as ``HoodieMetadataPayload.preCombine``.

        Raises:
            HudiFileFormatError: when the two records disagree on their type.
        """
        if older.record_type is not self.record_type:
            raise HudiFileFormatError(
                f"metadata record '{self.key}' is of type {int(self.record_type)} but an older version "
                f"is of type {int(older.record_type)}",
                help="the metadata table is damaged; rebuild it with Apache Hudi")
        merged = dict(older.files)
        for name, new in self.files.items():
            old = merged.get(name)
            if old is None:
                merged[name] = new  # a tombstone is kept: it may delete the file from the base file
            elif new.is_deleted:
                if old.is_deleted:
                    merged[name] = new
                else:
                    del merged[name]
            else:
                merged[name] = FileInfo(max(new.size, old.size))
        return MetadataRecord(self.key, self.record_type, merged)

    def live(self) -> dict[str, int]:
        """The entries that are not tombstones: name -> size."""
        return {name: info.size for name, info in self.files.items() if not info.is_deleted}


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
    """The latest file slice of one file group of the ``files`` partition: names relative to it."""

    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]


# -- decoding -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _parsed_schema(schema_json: str) -> Any:
    return fastavro.parse_schema(json.loads(schema_json))


def decode_metadata_records(
    reader: HFileReader, schema_json: str | None, *, source: str
) -> dict[str, MetadataRecord]:
    """The records of one HFile (a base file, or the content of an HFILE log block).

    Args:
        reader: the HFile.
        schema_json: the Avro writer schema (a log block's header ``SCHEMA``); ``None`` takes the
            HFile's own file info ``schema``, as base files carry it.
        source: how messages name the file (a path, and for a block its offset).

    Raises:
        HudiFileFormatError: a schema that does not parse, a value that is not one record of it,
            or a record that does not belong to the ``files`` partition.
    """
    if schema_json is None:
        raw = reader.file_info.get(_HFILE_SCHEMA_KEY)
        if raw is None:
            raise HudiFileFormatError(
                f"{source}: the HFile carries no '{_HFILE_SCHEMA_KEY.decode()}' file info",
                help="this is not a metadata table file")
        schema_json = raw.decode("utf-8", "replace")
    try:
        schema = _parsed_schema(schema_json)
    except (ValueError, TypeError, KeyError, fastavro.schema.SchemaParseException) as exc:
        raise HudiFileFormatError(f"{source}: the writer schema does not parse: {exc}") from exc
    records: dict[str, MetadataRecord] = {}
    for key_bytes, value in reader.items():
        try:
            key = key_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HudiFileFormatError(f"{source}: the record key {key_bytes!r} is not UTF-8") from exc
        what = f"{source}, key '{key}'"
        records[key] = _to_record(key, _decode_value(value, schema, what), what)
    return records


def _decode_value(value: bytes, schema: Any, what: str) -> dict[str, Any]:
    stream = io.BytesIO(value)
    try:
        datum = fastavro.schemaless_reader(stream, schema, None)
    except (EOFError, ValueError, IndexError, KeyError, UnicodeDecodeError, StopIteration, TypeError) as exc:
        raise HudiFileFormatError(
            f"{what}: the value does not decode as a HoodieMetadataRecord: {exc}") from exc
    if stream.tell() != len(value) or not isinstance(datum, dict):
        raise HudiFileFormatError(f"{what}: the value is {len(value)} bytes, its record {stream.tell()}")
    return datum


def _to_record(key: str, datum: Mapping[str, Any], what: str) -> MetadataRecord:
    raw_type = datum.get("type")
    if isinstance(raw_type, bool) or raw_type not in (1, 2):
        raise HudiFileFormatError(
            f"{what}: record type {raw_type!r} does not belong to the files partition "
            "(1 partition list, 2 file list)")
    record_type = RecordType(int(raw_type))
    entries = datum.get("filesystemMetadata") or {}
    try:
        files = {name: FileInfo(int(info["size"]), bool(info["isDeleted"])) for name, info in entries.items()}
    except (KeyError, TypeError, AttributeError) as exc:
        raise HudiFileFormatError(f"{what}: filesystemMetadata is not a map of file infos: {exc}") from exc
    return MetadataRecord(key, record_type, files)


# -- the metadata timeline and which instants count -----------------------------------------


def _parse_instant(name: str) -> Instant | None:
    """A metadata timeline file name as an instant; unlike the data table's grammar it admits the
    20-digit suffixed times (``<t>001.commit``) the metadata table gives its own operations."""
    if name.count(".") == 1 and name.endswith(".inflight"):
        time_part = name.split(".")[0]
        return Instant(time_part, Action.COMMIT, State.INFLIGHT) if time_part.isdigit() else None
    match = _INSTANT.match(name)
    action = _ACTIONS.get(match.group(2)) if match else None
    if match is None or action is None or action is Action.CLUSTERING:
        return None
    state = State(match.group(3)) if match.group(3) else State.COMPLETED
    if state is State.COMPLETED and action.value in COMPLETES_AS:
        return None  # a compaction completes as a commit
    return Instant(match.group(1), action, state)


def load_metadata_timeline(names: Iterable[str]) -> Timeline:
    """The metadata table's active timeline from the names listed in its ``.hoodie`` folder."""
    return Timeline.of(i for i in map(_parse_instant, names) if i is not None)


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


def _rolled_back_commits(meta: TableMetaClient, instant: Instant) -> list[str]:
    """The commits a completed rollback or restore of the data table undid.

    A rollback whose completed file is empty names its target in its plan, as Java falls back to.
    """
    record = meta.instant_record(instant)
    if instant.action is Action.ROLLBACK:
        if record is None:
            plan = meta.instant_record(instant.to(State.REQUESTED)) or {}
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
        base = _BASE.match(name)
        if base is not None:
            if committed(base.group(3)) and latest is not None and base.group(3) <= latest:
                bases[base.group(1)][base.group(3)] = name
        elif _LOG.match(name):
            log = LogFileName.parse(name)
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
                                        tuple(log.name for log in sorted(chosen))))
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


def _block_batch(raw: RawBlock, where: str) -> dict[str, MetadataRecord | None]:
    """The records of one data or delete block by key; ``None`` marks a key a delete block removed."""
    if HeaderKey.COMPACTED_BLOCK_TIMES in raw.header:
        raise UnsupportedFeatureError(
            f"log file {where}: the block at offset {raw.offset} was written by a log compaction of the "
            "metadata table, which is not read here", help="list the table's partitions from storage instead")
    if raw.block_type is BlockType.HFILE_DATA:
        source = f"log file {where}, HFILE block at offset {raw.offset}"
        batch: dict[str, MetadataRecord | None] = {}
        batch.update(decode_metadata_records(HFileReader(raw.content, source=source),
                                             raw.header.get(HeaderKey.SCHEMA), source=source))
        return batch
    if raw.block_type is BlockType.DELETE:
        deletes = _decoded(raw, where)
        assert isinstance(deletes, DeleteBlock)
        # the metadata table has no ordering field: every delete applies (natural order)
        return {record.record_key: None for record in deletes.records}
    raise HudiFileFormatError(
        f"log file {where}: a {raw.block_type.name} block at offset {raw.offset} in the metadata table",
        help="the metadata table's files partition holds only HFILE, delete and command blocks")


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


def _read_slice(storage: Storage, folder: str, file_slice: MetadataFileSlice, *, latest: str,
                counts: Callable[[str], bool]) -> dict[str, MetadataRecord]:
    base: dict[str, MetadataRecord] = {}
    if file_slice.base_file is not None:
        path = storage.join(folder, file_slice.base_file)
        base = decode_metadata_records(HFileReader(storage.read_bytes(path), source=path), None, source=path)
    blocks: list[tuple[RawBlock, str]] = []
    targets: set[str] = set()
    for name in file_slice.log_files:
        path = storage.join(folder, name)
        _scan_log(storage.read_bytes(path), path, blocks, targets, latest)
    batches = (_block_batch(raw, where) for raw, where in blocks
               if counts(raw.instant_time) and raw.instant_time not in targets)
    return merge_file_slice(base, batches)


# -- the entry point ------------------------------------------------------------------------


def read_metadata_files(base_path: str, *, storage: Storage | None = None) -> MetadataFileListing | None:
    """The listing in the metadata table's ``files`` partition, as of its latest completed instant.

    Args:
        base_path: the data table's base path.
        storage: the storage to read through.

    Returns:
        The listing, or ``None`` when there is none to use: the table's properties do not declare
        the ``files`` partition (no metadata table, or one being built or retired), or the
        metadata table, its ``files`` folder or any completed metadata instant is missing.

    Raises:
        TableNotFoundError: no Hudi table at *base_path*.
        HudiFileFormatError: a damaged base or log file (named in the message).
        UnsupportedFeatureError: a metadata table of table version 8 or later, or log-compacted.
    """
    storage = storage or Storage()
    data = TableMetaClient.load(base_path, storage=storage)
    declared = str(data.table_config.get(HudiTableConfig.METADATA_PARTITIONS) or "")
    if FILES_PARTITION not in {p.strip() for p in declared.split(",")}:
        return None
    if data.table_version != 6:
        raise UnsupportedFeatureError(
            f"The metadata table of '{data.base_path}' is of table version {data.table_version}; only "
            "version 6 (Apache Hudi 0.14 / 0.15) metadata tables are read",
            help="list the table's partitions from storage")
    metadata_path = storage.join(data.layout.meta_path, METADATA_TABLE_FOLDER)
    try:
        metadata = TableMetaClient.load(metadata_path, storage=storage)
    except TableNotFoundError:
        _log.warning("%s declares the metadata table partition '%s', but %s holds no table",
                     data.base_path, FILES_PARTITION, metadata_path)
        return None
    if metadata.table_version != 6:
        raise UnsupportedFeatureError(
            f"The metadata table at '{metadata_path}' is of table version {metadata.table_version}; only "
            "version 6 is read", help="list the table's partitions from storage")
    timeline = load_metadata_timeline(s.name for s in storage.list(metadata.timeline_path) if not s.is_dir)
    folder = storage.join(metadata.base_path, FILES_PARTITION)
    completed = timeline.completed()
    if completed.last is None or not storage.is_dir(folder):
        return None
    latest = completed.last.instant_time
    commits = {i.instant_time for i in completed.with_actions(*_WRITES)}
    first = min(commits, default=None)
    pending_writes = {i.instant_time for i in timeline.pending().with_actions(*_WRITES)}
    valid = valid_instant_times(data.timeline, timeline, functools.partial(_rolled_back_commits, data))

    def counts(instant_time: str) -> bool:
        """Java's ``containsOrBeforeTimelineStarts`` on completed metadata writes, then the valid set."""
        archived = first is not None and instant_time < first and instant_time not in pending_writes
        return (instant_time in commits or archived) and instant_time in valid

    slices = latest_file_slices((s.name for s in storage.list(folder) if not s.is_dir), timeline)
    records: dict[str, MetadataRecord] = {}
    owner: dict[str, str] = {}
    for file_slice in slices:
        for key, record in _read_slice(storage, folder, file_slice, latest=latest, counts=counts).items():
            if key in records:
                raise HudiFileFormatError(
                    f"metadata table '{metadata_path}': record '{key}' is in file groups {owner[key]} and "
                    f"{file_slice.file_id} of the {FILES_PARTITION} partition",
                    help="a key belongs to one file group; rebuild the metadata table with Apache Hudi")
            records[key] = record
            owner[key] = file_slice.file_id
    return MetadataFileListing(latest, records, tuple(slices))
