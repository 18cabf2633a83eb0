"""Where Apache Hudi's metadata table keeps what, and how its instants are named (table version 6).

The metadata table is a Merge-On-Read Hudi table of its own at ``<base>/.hoodie/metadata``,
named ``<table>_metadata``, keyed by the field ``key``, with HFile base files and log blocks
whose content is an HFile. Its partitions are fixed, one per index (:class:`MetadataPartition`);
each has a fixed number of file groups, ``<prefix><NNNN>-0``, and a record goes to the group
:func:`file_group_index` picks from its key (Java's ``String.hashCode``), so that a reader
looking up one key opens one file group.

**Instant times.** A write to the data table at ``t`` is a deltacommit at ``t`` in the metadata
table, committed just before the data instant completes. The metadata table's own operations
take a data instant with a three-digit suffix (``HoodieTableMetadataUtil.create*Timestamp``),
so they sort after it and before the next data instant: ``<t>001`` a compaction, ``<t>002`` a
clean, ``<t>003`` a restore, ``<t>006`` a rollback, and ``010``, ``011``, ... the initialisation
of the first, second, ... partition (after ``00000000000000`` when the data table had no
completed instant yet).

**The data table's properties** ``hoodie.table.metadata.partitions`` (complete partitions,
written sorted and comma-separated) and ``hoodie.table.metadata.partitions.inflight`` declare
what exists; a reader uses the metadata table only when ``files`` is among the complete ones.
"""

from __future__ import annotations

__all__ = [
    "CLEAN_SUFFIX",
    "COMPACTION_SUFFIX",
    "LIST_FROM_STORAGE_HELP",
    "METADATA_TABLE_FOLDER",
    "NON_PARTITIONED_NAME",
    "PARTITION_LIST_KEY",
    "REBUILD_HELP",
    "RESTORE_SUFFIX",
    "ROLLBACK_SUFFIX",
    "SOLO_COMMIT_TIME",
    "TABLE_NAME_SUFFIX",
    "MetadataPartition",
    "file_group_index",
    "file_id",
    "init_instant_time",
    "is_metadata_table",
    "metadata_base_path",
    "partition_identifier",
    "suffixed",
]

from enum import Enum

from hudi_sql.config.metadata import HudiMetadataConfig

METADATA_TABLE_FOLDER = "metadata"
"""``.hoodie/metadata``: the metadata table's base path, under the data table's meta folder."""
TABLE_NAME_SUFFIX = "_metadata"
PARTITION_LIST_KEY = "__all_partitions__"
"""The key of the ``files`` partition's record that lists every partition of the data table."""
NON_PARTITIONED_NAME = "."
"""How the metadata table names the one partition (``""``) of a non-partitioned data table."""
SOLO_COMMIT_TIME = "00000000000000"
"""The instant a metadata table initialised before the data table had a completed instant takes."""

REBUILD_HELP = (f"drop the metadata table ('{HudiMetadataConfig.ENABLE.key}=false' on a write) and write again "
                "with it on to rebuild it from storage")
"""What a damaged metadata table's error suggests."""
LIST_FROM_STORAGE_HELP = f"set '{HudiMetadataConfig.ENABLE.key}=false' to list the table's files from storage"

COMPACTION_SUFFIX = "001"
CLEAN_SUFFIX = "002"
RESTORE_SUFFIX = "003"
ROLLBACK_SUFFIX = "006"
_INIT_SUFFIX = 10  # "010": the first partition initialised, "011" the second, ...


class MetadataPartition(str, Enum):
    """A partition of the metadata table (``MetadataPartitionType``): its folder and file ids.

    The value is the folder name, which is also the name ``hoodie.table.metadata.partitions``
    lists. Only the first three are maintained here; a table declaring another one loses it on
    our first write (see :mod:`hudi_sql.metadata.maintenance.sync`).
    """

    FILES = "files"
    COLUMN_STATS = "column_stats"
    BLOOM_FILTERS = "bloom_filters"
    RECORD_INDEX = "record_index"

    @property
    def file_id_prefix(self) -> str:
        return _PREFIXES[self]

    @property
    def record_type(self) -> int:
        """The ``type`` field of the partition's records (partition lists are ``files``' type 1)."""
        return _RECORD_TYPES[self]

    def __str__(self) -> str:
        return self.value


_PREFIXES = {
    MetadataPartition.FILES: "files-",
    MetadataPartition.COLUMN_STATS: "col-stats-",
    MetadataPartition.BLOOM_FILTERS: "bloom-filters-",
    MetadataPartition.RECORD_INDEX: "record-index-",
}
_RECORD_TYPES = {
    MetadataPartition.FILES: 2,
    MetadataPartition.COLUMN_STATS: 3,
    MetadataPartition.BLOOM_FILTERS: 4,
    MetadataPartition.RECORD_INDEX: 5,
}


def file_id(partition: MetadataPartition, index: int) -> str:
    """The id of file group *index* of *partition*: ``files-0000-0``, ``col-stats-0001-0``."""
    return f"{partition.file_id_prefix}{index:04d}-0"


def file_group_index(key: str, count: int) -> int:
    """The file group (of *count*) a record key belongs to: Java's ``String.hashCode`` of the
    key, as ``mapRecordKeyToFileGroupIndex`` computes it (over UTF-16 code units, 32-bit
    wrap-around, then ``abs(abs(h) % count)``). Java's remainder takes the dividend's sign, so
    the result is ``|h| mod count`` even for ``h = -2**31``, whose ``abs`` stays negative."""
    h = 0
    encoded = key.encode("utf-16-be")
    for i in range(0, len(encoded), 2):
        h = (31 * h + (encoded[i] << 8 | encoded[i + 1])) & 0xFFFFFFFF
    signed = h - (1 << 32) if h & 0x80000000 else h
    return abs(signed) % count


def partition_identifier(partition_path: str) -> str:
    """The name the metadata table gives a data partition: itself, ``.`` for the table's root."""
    return NON_PARTITIONED_NAME if partition_path == "" else partition_path


def suffixed(instant_time: str, suffix: str) -> str:
    """*instant_time* with a metadata operation suffix (``001`` compaction, ``002`` clean, ...)."""
    return instant_time + suffix


def init_instant_time(latest_completed: str | None, offset: int) -> str:
    """The instant initialising the *offset*-th partition after the data table's latest completed
    instant (``createIndexInitTimestamp``): ``<t>010``, ``<t>011``, ..."""
    return f"{latest_completed or SOLO_COMMIT_TIME}{_INIT_SUFFIX + offset:03d}"


def metadata_base_path(data_meta_path: str) -> str:
    """The metadata table's base path, from the data table's ``.hoodie`` folder."""
    return f"{data_meta_path.rstrip('/')}/{METADATA_TABLE_FOLDER}"


def is_metadata_table(base_path: str) -> bool:
    """Whether *base_path* is a metadata table (``HoodieTableMetadata.isMetadataTable``)."""
    return base_path.rstrip("/").endswith(f"/.hoodie/{METADATA_TABLE_FOLDER}")
