"""The bootstrap index of a metadata-only bootstrap (table version 6, Apache Hudi 0.15's ``HFileBootstrapIndex``).

A metadata-only bootstrap leaves the source's data files where they are. Each becomes a file
group of the table whose base file is a *skeleton* (the ``_hoodie_*`` columns only), and this
index maps every file group back to its source file, so that a reader can stitch skeleton and
source rows together. A table without the index was not bootstrapped that way.

**Files.** Two HFiles (:mod:`hudi_sql.hfile`) under one name, the name of a base file with file
id ``00000000-0000-0000-0000-000000000000-0``, write token ``1-0-1`` and the metadata bootstrap
instant (``FSUtils.makeBootstrapIndexFileName``; folders from ``HoodieTableMetaClient``)::

    .hoodie/.aux/.bootstrap/.partitions/00000000-0000-0000-0000-000000000000-0_1-0-1_00000000000001.hfile
    .hoodie/.aux/.bootstrap/.fileids/00000000-0000-0000-0000-000000000000-0_1-0-1_00000000000001.hfile

**Entries** (``HFileBootstrapIndex`` keys, ``HBaseHFileBootstrapIndexWriter`` values):

===========  =================================  ============================================
file         key (UTF-8, not escaped)           value: one Avro record
===========  =================================  ============================================
.partitions  ``part=<partition>``               ``HoodieBootstrapPartitionMetadata``: the
                                                partition, its source partition, and file id
                                                -> ``HoodieFileStatus`` of the source file
.fileids     ``part=<partition>;fileid=<id>``   ``HoodieBootstrapFilePartitionInfo``: the
                                                partition, source partition, source file
both         file info ``INDEX_INFO``           ``HoodieBootstrapIndexInfo``: version 1, the
                                                source base path, creation time (ms since the
                                                epoch), the number of keys of *that* file
===========  =================================  ============================================

A non-partitioned table's partition is the empty string (keys ``part=`` and
``part=;fileid=<id>``); there is no placeholder. Each value is a whole Avro object container
file holding one record (``TimelineMetadataUtils.serializeAvroMetadata``: codec null, only
``avro.schema`` in the header), so every value repeats its schema, about 2 KB.

**Exactly as Apache writes them.** The embedded schema is the text Hudi's generated Java
classes print (:func:`~hudi_sql.table.avro_container.java_schema`), records built with ``new`` and setters leave ``version``
null while those built by builders (``HoodiePath``, ``HoodieFSPermission``, the index info)
carry 1, and the trailer names Hudi 0.15's comparator. Files written here equal Apache's byte
for byte but for the Avro sync markers (random in Java, derived from the content here), the
creation time, and the order of the file-id map inside a partition's value (a Java ``HashMap``
there, file-id order here; readers load it into a map either way).

**Order.** HFile keys ascend as unsigned bytes. Apache sorts file-id entries by (partition,
file id) as Java strings instead, which differs when one partition is a prefix of another and
the next character sorts below ``;`` (``dt=1`` and ``dt=10``): HBase's writer then refuses the
file, so Apache 0.15 cannot bootstrap such a source, and its ``getSourceFileMappingForFileIds``
would need a backward seek. Here both files are written in key order; Apache's file-system view
only looks partitions up (``getSourceFileMappingForPartition``), which works in any case.

**Readers.** Apache 0.15 reads the index with its native HFile reader and takes ``INDEX_INFO``
from the ``.partitions`` file. It loads the index class the table's properties name
(``HudiBootstrapConfig.INDEX_CLASS``) and uses the index only when both files exist, the table
records a bootstrap base path and the last completed commit is at or after ``00000000000001``
(``BootstrapIndex.useIndex``). :func:`read_bootstrap_index` checks the files; the rest is the
caller's (the file-system view).
"""

from __future__ import annotations

__all__ = [
    "BOOTSTRAP_INDEX_FILE_NAME",
    "BootstrapFileMapping",
    "BootstrapIndex",
    "FilePermission",
    "SourceFile",
    "bootstrap_index_paths",
    "read_bootstrap_index",
    "stat_source_file",
    "write_bootstrap_index",
]

import grp
import os
import pwd
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hudi_sql.errors import HudiError, HudiFileFormatError, HudiKeyError, TableAlreadyExistsError
from hudi_sql.hfile import HFileReader, write_hfile
from hudi_sql.model.instant import METADATA_BOOTSTRAP_INSTANT
from hudi_sql.storage.fs import Storage, to_local_path
from hudi_sql.storage.guard import check_partition_path
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.status import FileStatus
from hudi_sql.storage.uri import is_local
from hudi_sql.table.avro_container import decode_single, encode_single

#: The one "file id" of both index files (``HFileBootstrapIndex.BOOTSTRAP_INDEX_FILE_ID``).
INDEX_FILE_ID = "00000000-0000-0000-0000-000000000000-0"
BOOTSTRAP_INDEX_FILE_NAME = f"{INDEX_FILE_ID}_1-0-1_{METADATA_BOOTSTRAP_INSTANT}.hfile"
INDEX_INFO_KEY = b"INDEX_INFO"
#: What HBase's writer records in the trailer for Hudi 0.15 (``HBaseHFileBootstrapIndexWriter``).
COMPARATOR_CLASS_NAME = "org.apache.hudi.common.bootstrap.index.HFileBootstrapIndex$HoodieKVComparator"
#: Hadoop's local file system reports this block size (``fs.local.block.size``) and replication 1.
LOCAL_BLOCK_SIZE = 32 * 1024 * 1024

_PARTITION_PREFIX = "part="
_FILE_ID_SEPARATOR = ";fileid="
#: Hadoop's ``FsAction`` names, indexed by the three permission bits.
_FS_ACTIONS = ("NONE", "EXECUTE", "WRITE", "WRITE_EXECUTE", "READ", "READ_EXECUTE", "READ_WRITE", "ALL")

_PARTITION_METADATA = "HoodieBootstrapPartitionMetadata"
_FILE_PARTITION_INFO = "HoodieBootstrapFilePartitionInfo"
_INDEX_INFO = "HoodieBootstrapIndexInfo"


# --------------------------------------------------------------------------------------------
# Values


@dataclass(frozen=True)
class FilePermission:
    """A source file's permission as Hadoop names it (``HoodieFSPermission``): ``FsAction`` names
    such as ``READ_WRITE`` for the user, group and others, and the sticky bit."""

    user: str | None
    group: str | None
    other: str | None
    sticky_bit: bool | None = False

    @classmethod
    def from_mode(cls, mode: int) -> FilePermission:
        """The permission of a POSIX ``st_mode`` (``0o644`` is READ_WRITE, READ, READ)."""
        return cls(_FS_ACTIONS[mode >> 6 & 7], _FS_ACTIONS[mode >> 3 & 7], _FS_ACTIONS[mode & 7],
                   bool(mode & stat.S_ISVTX))


@dataclass(frozen=True)
class SourceFile:
    """A data file of the bootstrap source, as the index records it (Hudi's ``HoodieFileStatus``).

    Apache fills it from Hadoop's ``FileStatus`` (``HadoopFSUtils.fromFileStatus``): *path* as
    Hadoop prints it (``file:/abs/path`` on a local disk), times in milliseconds, the access time
    set to the modification time (``None`` here means the same). Apache's reader needs *path*,
    *length*, *modification_time*, *block_replication* and *block_size*; the rest is carried along.
    """

    path: str
    length: int
    modification_time: int
    access_time: int | None = None
    block_replication: int = 1
    block_size: int = LOCAL_BLOCK_SIZE
    permission: FilePermission | None = None
    owner: str | None = None
    group: str | None = None
    is_dir: bool = False
    symlink: str | None = None

    def __post_init__(self) -> None:
        if self.access_time is None:
            object.__setattr__(self, "access_time", self.modification_time)

    @property
    def name(self) -> str:
        """The file's name, the last segment of its path."""
        return self.path.rstrip("/").rsplit("/", 1)[-1]

    def to_avro(self) -> dict[str, Any]:
        """The ``HoodieFileStatus`` record Apache writes (``version`` null: built with setters)."""
        permission = None
        if self.permission is not None:
            permission = {"version": 1, "userAction": self.permission.user, "groupAction": self.permission.group,
                          "otherAction": self.permission.other, "stickyBit": self.permission.sticky_bit}
        return {
            "version": None,
            "path": _avro_path(self.path),
            "length": self.length,
            "isDir": self.is_dir,
            "blockReplication": self.block_replication,
            "blockSize": self.block_size,
            "modificationTime": self.modification_time,
            "accessTime": self.access_time,
            "permission": permission,
            "owner": self.owner,
            "group": self.group,
            "symlink": _avro_path(self.symlink),
        }

    @classmethod
    def from_avro(cls, record: Mapping[str, Any] | None, where: str) -> SourceFile:
        """The source file of a ``HoodieFileStatus`` record; *where* names it in errors."""
        uri = ((record or {}).get("path") or {}).get("uri")
        if record is None or uri is None or record.get("length") is None or record.get("modificationTime") is None:
            raise HudiFileFormatError(
                f"{where}: the source file status lacks its path, length or modification time: {record}",
                help="the bootstrap index is damaged; bootstrap the table again")
        permission = record.get("permission")
        return cls(
            path=uri,
            length=record["length"],
            modification_time=record["modificationTime"],
            access_time=record.get("accessTime"),
            block_replication=_or(record.get("blockReplication"), 1),
            block_size=_or(record.get("blockSize"), LOCAL_BLOCK_SIZE),
            permission=None if permission is None else FilePermission(
                permission.get("userAction"), permission.get("groupAction"), permission.get("otherAction"),
                permission.get("stickyBit")),
            owner=record.get("owner"),
            group=record.get("group"),
            is_dir=bool(record.get("isDir")),
            symlink=(record.get("symlink") or {}).get("uri"),
        )


@dataclass(frozen=True)
class BootstrapFileMapping:
    """One file group of a bootstrapped table and the source file it stands for (Hudi's
    ``BootstrapFileMapping``).

    *partition_path* is the table's partition, *source_partition_path* the source's folder of
    the file relative to the source base path (the same with Hudi's default identity
    translator); both are ``""`` for a non-partitioned table.
    """

    partition_path: str
    file_id: str
    source_partition_path: str
    source_file: SourceFile


def stat_source_file(path: str, listed: FileStatus | None = None) -> SourceFile:
    """*path*'s status as Hadoop's file system reports it, which is what Apache records.

    Local files: modification time truncated to milliseconds, replication 1, block size 32 MiB,
    owner and group by name (the numeric id when the name is unknown), from one ``stat``. Objects
    (S3A and the other connectors): the size and time *listed* (the source's listing has them; looked up
    when not given), permission ``rw-rw-rw-`` and the current user as owner and group, which is what
    those connectors make up.
    """
    if not is_local(path):
        import getpass

        if listed is None:
            storage = Storage.for_path(path)
            listed = FileStatus(path, path.rsplit("/", 1)[-1], storage.size(path), False,
                                storage.modification_time(path) or 0.0)
        user = getpass.getuser()
        return SourceFile(path=path, length=listed.size, modification_time=int(listed.modification_time * 1000),
                          permission=FilePermission.from_mode(0o666), owner=user, group=user)
    local = to_local_path(path)
    status = os.stat(local)
    return SourceFile(
        path=f"file:{local}",
        length=status.st_size,
        modification_time=status.st_mtime_ns // 1_000_000,
        permission=FilePermission.from_mode(status.st_mode),
        owner=_name_of(lambda: pwd.getpwuid(status.st_uid).pw_name, status.st_uid),
        group=_name_of(lambda: grp.getgrgid(status.st_gid).gr_name, status.st_gid),
        is_dir=stat.S_ISDIR(status.st_mode),
    )


def _name_of(lookup: Callable[[], str], number: int) -> str:
    try:
        return lookup()
    except KeyError:  # no such user or group: Hadoop shows the number
        return str(number)


def _avro_path(uri: str | None) -> dict[str, Any] | None:
    # HoodiePath is built by its builder in Apache, so its version is the default 1
    return None if uri is None else {"version": 1, "uri": uri}


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


# --------------------------------------------------------------------------------------------
# Paths and keys


def bootstrap_index_paths(base_path: str) -> tuple[str, str]:
    """The ``.partitions`` and ``.fileids`` files of the table at *base_path*, in that order."""
    root = os.path.join(TableLayout.of(base_path).meta_path, ".aux", ".bootstrap")
    return (os.path.join(root, ".partitions", BOOTSTRAP_INDEX_FILE_NAME),
            os.path.join(root, ".fileids", BOOTSTRAP_INDEX_FILE_NAME))


def _partition_key(partition_path: str) -> bytes:
    return f"{_PARTITION_PREFIX}{partition_path}".encode()


def _file_group_key(partition_path: str, file_id: str) -> bytes:
    return f"{_PARTITION_PREFIX}{partition_path}{_FILE_ID_SEPARATOR}{file_id}".encode()


def _partition_of(key: bytes, where: str) -> str:
    text = key.decode("utf-8", "replace")
    if not text.startswith(_PARTITION_PREFIX):
        raise HudiFileFormatError(f"{where}: key {text!r} does not start with {_PARTITION_PREFIX!r}")
    return text[len(_PARTITION_PREFIX):]


def _file_group_of(key: bytes, where: str) -> tuple[str, str]:
    # Apache splits at the first ';'; a file id never holds ';fileid=', so the last one is safer
    partition, separator, file_id = _partition_of(key, where).rpartition(_FILE_ID_SEPARATOR)
    if not separator:
        raise HudiFileFormatError(f"{where}: key {key!r} has no {_FILE_ID_SEPARATOR!r} part")
    return partition, file_id


# --------------------------------------------------------------------------------------------
# Reading


class BootstrapIndex:
    """A table's bootstrap index, read from its two HFiles (held in memory, values decoded on use).

    Partition lookups use the ``.partitions`` file and file-group lookups the ``.fileids`` file,
    as in Apache; both describe the same mappings.
    """

    def __init__(self, partition_index: HFileReader, file_id_index: HFileReader, *,
                 partition_index_path: str = ".partitions", file_id_index_path: str = ".fileids") -> None:
        self._partitions = partition_index
        self._file_ids = file_id_index
        self._partitions_where = partition_index_path
        self._file_ids_where = file_id_index_path
        raw = partition_index.file_info.get(INDEX_INFO_KEY)
        if raw is None:
            raise HudiFileFormatError(f"{partition_index_path}: the file info has no {INDEX_INFO_KEY.decode()} entry",
                                      help="the bootstrap index is damaged; bootstrap the table again")
        info = decode_single(_INDEX_INFO, raw, f"{partition_index_path} {INDEX_INFO_KEY.decode()}")
        if info["bootstrapBasePath"] is None:
            raise HudiFileFormatError(f"{partition_index_path}: {INDEX_INFO_KEY.decode()} names no source base path")
        #: Where the source table lives, as the bootstrap was given it.
        self.source_base_path: str = info["bootstrapBasePath"]
        #: When the index was written (ms since the epoch), if recorded.
        self.created_at_millis: int | None = info["createdTimestamp"]

    def partitions(self) -> list[str]:
        """The table's bootstrapped partitions, in key order (Apache's ``getIndexedPartitionPaths``)."""
        return [_partition_of(key, self._partitions_where) for key, _ in self._partitions.items()]

    def source_partition(self, partition_path: str) -> str | None:
        """The source partition *partition_path* came from, ``None`` when it is not indexed."""
        metadata = self._partition_metadata(partition_path)
        return None if metadata is None else metadata["bootstrapPartitionPath"]

    def entries(self, partition_path: str) -> list[BootstrapFileMapping]:
        """The file groups of *partition_path* with their source files, by file id; ``[]`` when
        the partition is not indexed (Apache's ``getSourceFileMappingForPartition``)."""
        metadata = self._partition_metadata(partition_path)
        if metadata is None:
            return []
        where = f"{self._partitions_where} partition {partition_path!r}"
        files = metadata["fileIdToBootstrapFile"] or {}
        return [BootstrapFileMapping(partition_path, file_id, metadata["bootstrapPartitionPath"] or "",
                                     SourceFile.from_avro(files[file_id], f"{where} file id {file_id!r}"))
                for file_id in sorted(files)]

    def file_group_ids(self) -> list[tuple[str, str]]:
        """Every indexed ``(partition, file id)``, in key order (Apache's ``getIndexedFileGroupIds``)."""
        return [_file_group_of(key, self._file_ids_where) for key, _ in self._file_ids.items()]

    def file_mapping(self, partition_path: str, file_id: str) -> BootstrapFileMapping | None:
        """The mapping of one file group, ``None`` when it is not indexed."""
        value = self._file_ids.get(_file_group_key(partition_path, file_id))
        if value is None:
            return None
        where = f"{self._file_ids_where} file group {partition_path!r}/{file_id!r}"
        info = decode_single(_FILE_PARTITION_INFO, value, where)
        return BootstrapFileMapping(partition_path, file_id, info["bootstrapPartitionPath"] or "",
                                    SourceFile.from_avro(info["bootstrapFileStatus"], where))

    def source_file(self, partition_path: str, file_id: str) -> SourceFile | None:
        """The source file of one file group, ``None`` when it is not indexed."""
        mapping = self.file_mapping(partition_path, file_id)
        return None if mapping is None else mapping.source_file

    def _partition_metadata(self, partition_path: str) -> dict[str, Any] | None:
        value = self._partitions.get(_partition_key(partition_path))
        if value is None:
            return None
        return decode_single(_PARTITION_METADATA, value, f"{self._partitions_where} partition {partition_path!r}")


def read_bootstrap_index(base_path: str, *, storage: Storage | None = None) -> BootstrapIndex | None:
    """The bootstrap index of the table at *base_path*, ``None`` when the table has none.

    As in Apache, the index exists only when both of its files do.

    Raises:
        HudiFileFormatError: A file is not an HFile, or its ``INDEX_INFO`` is missing or unreadable.
    """
    storage = storage or Storage()
    partitions_path, file_ids_path = bootstrap_index_paths(base_path)
    if not (storage.exists(partitions_path) and storage.exists(file_ids_path)):
        return None
    return BootstrapIndex(
        HFileReader(storage.read_bytes(partitions_path), source=partitions_path),
        HFileReader(storage.read_bytes(file_ids_path), source=file_ids_path),
        partition_index_path=partitions_path, file_id_index_path=file_ids_path)


# --------------------------------------------------------------------------------------------
# Writing


def write_bootstrap_index(
    base_path: str,
    source_base_path: str,
    mappings: Sequence[BootstrapFileMapping],
    created_at_millis: int,
    *,
    storage: Storage | None = None,
) -> list[str]:
    """Writes the bootstrap index of *mappings* as Apache Hudi 0.15 lays it out.

    Args:
        base_path: The bootstrapped table.
        source_base_path: The source table, recorded as given (Apache records the configured
            ``HudiBootstrapConfig.BASE_PATH`` and adds no scheme).
        mappings: One per file group; file groups of a partition must share its source partition.
        created_at_millis: The creation time recorded in both files' ``INDEX_INFO``.
        storage: Where to write (local by default).

    Returns:
        The paths written: the ``.partitions`` file, then the ``.fileids`` file.

    Raises:
        TableAlreadyExistsError: Either index file exists already (Apache refuses it too).
        HudiKeyError: A file group appears twice, a partition path holds ``;`` (Apache's reader
            splits file-group keys at the first one), a file id is empty, or one partition's
            file groups name different source partitions.
        PathOutsideTableError: A partition path is absolute or has ``.``/``..``/empty segments.
    """
    storage = storage or Storage()
    by_partition = _by_partition(mappings)
    partitions_path, file_ids_path = bootstrap_index_paths(base_path)
    existing = [path for path in (partitions_path, file_ids_path) if storage.exists(path)]
    if existing:
        raise TableAlreadyExistsError(
            f"A bootstrap index exists already: {', '.join(existing)}",
            help="the table was bootstrapped before; bootstrap into a new base path")
    partition_entries = sorted(
        (_partition_key(partition), encode_single(_PARTITION_METADATA, {
            "version": None,
            "bootstrapPartitionPath": group[0].source_partition_path,
            "partitionPath": partition,
            "fileIdToBootstrapFile": {m.file_id: m.source_file.to_avro() for m in sorted(group, key=_file_id)},
        }))
        for partition, group in by_partition.items())
    file_entries = sorted(
        (_file_group_key(m.partition_path, m.file_id), encode_single(_FILE_PARTITION_INFO, {
            "version": None,
            "bootstrapPartitionPath": m.source_partition_path,
            "bootstrapFileStatus": m.source_file.to_avro(),
            "partitionPath": m.partition_path,
        }))
        for m in mappings)
    files = [(partitions_path, _index_file(partition_entries, source_base_path, created_at_millis)),
             (file_ids_path, _index_file(file_entries, source_base_path, created_at_millis))]
    written: list[str] = []
    try:
        for path, data in files:
            storage.write_bytes(path, data, overwrite=False)
            written.append(path)
    except (OSError, HudiError):
        for path in written:  # no half index: Apache would refuse to write over it
            storage.delete(path)
        raise
    return written


def _file_id(mapping: BootstrapFileMapping) -> str:
    return mapping.file_id


def _by_partition(mappings: Iterable[BootstrapFileMapping]) -> dict[str, list[BootstrapFileMapping]]:
    """*mappings* by partition, after the checks :func:`write_bootstrap_index` documents."""
    groups: dict[str, list[BootstrapFileMapping]] = {}
    seen: set[tuple[str, str]] = set()
    for mapping in mappings:
        partition, file_id = mapping.partition_path, mapping.file_id
        check_partition_path(partition)
        if ";" in partition:
            raise HudiKeyError(
                f"Cannot index partition {partition!r}: its path holds ';'",
                help="Apache Hudi's bootstrap index reader splits its keys at ';'; rename the source folder")
        if not file_id:
            raise HudiKeyError(f"A file group of partition {partition!r} has an empty file id")
        if (partition, file_id) in seen:
            raise HudiKeyError(f"File group {file_id!r} of partition {partition!r} is mapped twice",
                               help="give each source file its own file id")
        seen.add((partition, file_id))
        group = groups.setdefault(partition, [])
        if group and group[0].source_partition_path != mapping.source_partition_path:
            raise HudiKeyError(
                f"Partition {partition!r} maps to two source partitions: "
                f"{group[0].source_partition_path!r} and {mapping.source_partition_path!r}",
                help="the index keeps one source partition per partition; map each source folder to its own")
        group.append(mapping)
    return groups


def _index_file(entries: list[tuple[bytes, bytes]], source_base_path: str, created_at_millis: int) -> bytes:
    info = encode_single(_INDEX_INFO, {"version": 1, "bootstrapBasePath": source_base_path,
                                 "createdTimestamp": created_at_millis, "numKeys": len(entries)})
    return write_hfile(entries, file_info={INDEX_INFO_KEY: info}, comparator_class_name=COMPARATOR_CLASS_NAME)
