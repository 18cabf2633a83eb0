"""The write plan: what each Spark task of a write does, decided on the driver.

A plan is a frozen, picklable value: the instant, the schema, and one :class:`BucketInfo` per
output file group. Tasks receive it (captured by the task function) and never consult the
timeline; the driver builds it from a :class:`WorkloadProfile` and the file-system view.
"""

from __future__ import annotations

__all__ = [
    "BucketInfo",
    "BucketType",
    "HandleOptions",
    "InsertRange",
    "PartitionWorkload",
    "WorkloadProfile",
    "WritePlan",
]

import json
from dataclasses import asdict, dataclass, field
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hudi_sql.storage.fs import Storage
from hudi_sql.storage.parquet import FileWriteSettings
from hudi_sql.storage.settings import StorageSettings

if TYPE_CHECKING:
    from hudi_sql.table.meta_client import TableMetaClient


class BucketType(str, Enum):
    UPDATE = "UPDATE"  # rewrite (COW merge) or append to (MOR) an existing file group
    INSERT = "INSERT"  # a new file group


@dataclass(frozen=True)
class BucketInfo:
    """One output file group of the write.

    For UPDATE buckets, ``base_file_path`` is the latest base file of the group (absolute),
    ``prev_commit`` its instant; for INSERT buckets ``file_id`` is freshly generated. On
    Merge-On-Read an UPDATE bucket appends a log file, except when it takes inserts into a
    small file (the group is merged into a new base file then, as Hudi does for indexes that
    cannot find keys in logs), or when its base file is a bootstrap skeleton (rewritten whole).
    """

    bucket_id: int
    bucket_type: BucketType
    partition_path: str
    file_id: str
    prev_commit: str = "null"
    base_file_path: str | None = None
    log_file_names: tuple[str, ...] = ()
    expected_records: int = 0
    small_file_inserts: bool = False  # inserts packed into this group's small base file
    append_base_instant: str | None = None  # MOR: a pending compaction's instant, for new logs
    #: The base file is a metadata-only bootstrap skeleton: its source file (absolute), whose
    #: rows the merge stitches to the skeleton's, and the source folder's partition values.
    bootstrap_source_path: str | None = None
    bootstrap_partition_values: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class InsertRange:
    """Inserts of *partition_path* whose hash slot falls in [lo, hi) go to *bucket_id*."""

    partition_path: str
    lo: int
    hi: int
    bucket_id: int


@dataclass(frozen=True)
class PartitionWorkload:
    partition_path: str
    inserts: int = 0
    updates_by_file_id: dict[str, int] = field(default_factory=dict)
    deletes_by_file_id: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkloadProfile:
    """Counts per partition (Hudi's ``WorkloadProfile``): the only table facts a plan needs from Spark."""

    partitions: dict[str, PartitionWorkload]
    #: Every partition the batch's records are in, also those whose records write nothing (deletes
    #: of keys no file group holds): the partitions a ``delete_partition`` of the batch deletes.
    batch_partitions: frozenset[str] = frozenset()

    @property
    def total_inserts(self) -> int:
        return sum(p.inserts for p in self.partitions.values())

    @property
    def total_updates(self) -> int:
        return sum(sum(p.updates_by_file_id.values()) for p in self.partitions.values())

    @property
    def total_deletes(self) -> int:
        return sum(sum(p.deletes_by_file_id.values()) for p in self.partitions.values())


@dataclass(frozen=True)
class HandleOptions:
    """Everything a write handle needs besides its bucket and records."""

    instant_time: str
    table_name: str
    avro_schema: str  # data columns, commit-metadata form
    spark_schema_json: str  # data columns, Spark StructType JSON (for the parquet footer)
    populate_meta_fields: bool = True
    record_key_fields: tuple[str, ...] = ()
    complex_keys: bool = False  # "field:value" keys (ComplexKeyGenerator) when recomputing keys
    ordering_field: str | None = None
    event_time_ordering: bool = True  # DefaultHoodieRecordPayload: stored record kept if its ordering is higher
    #: a batch's records of one key combine by the ordering value (else the latest arrival wins:
    #: a version 8+ table merging by commit time, as Apache Hudi 1.x's record merger does)
    combine_by_ordering: bool = True
    payload_class: str = ""  # the table's payload class (model.payload.Payload); empty: by event_time_ordering
    file: FileWriteSettings = field(default_factory=FileWriteSettings)  # codec, sizes, bloom filter
    marker_type: str = "DIRECT"
    marker_server_url: str | None = None  # TIMELINE_SERVER_BASED: the driver's marker service
    base_path: str = ""
    log_data_block_format: str = "avro"
    log_max_size: int = 1024 * 1024 * 1024
    #: Table version 8: a log file is named by the deltacommit writing it, not by its slice's base.
    log_files_named_by_instant: bool = False
    #: The table's CDC logging mode (``CdcLoggingMode`` name) when it logs changes, else empty.
    cdc_logging_mode: str = ""
    #: Table version 8+: a rewrite that changed no record still writes its (empty) CDC log, as
    #: Apache Hudi 1.x does, so every rewrite of a change-logging table names one.
    empty_cdc_logs: bool = False
    #: A partial update (MERGE INTO's ``UPDATE SET`` of some columns): the log blocks hold these data
    #: columns only, with the header ``IS_PARTIAL=true``; empty: whole records.
    partial_columns: tuple[str, ...] = ()
    #: Where the table's files are and how to reach them (endpoint, credentials), resolved on the driver.
    storage_settings: StorageSettings = field(default_factory=StorageSettings)

    @classmethod
    def for_table(cls, meta: TableMetaClient, *, instant_time: str, avro_schema: str, spark_schema_json: str,
                  file: FileWriteSettings, **choices: Any) -> HandleOptions:
        """The options of a handle writing into *meta*'s table, the one constructor: what the table
        fixes (name, key fields, meta fields, where its files live and how to reach them, how its
        logs are named, CDC) is read here from the table; what the operation chooses (ordering,
        payload, markers, log block format) comes as *choices*."""
        cdc_mode = meta.config.cdc_logging_mode
        return cls(
            instant_time=instant_time, table_name=meta.table_name, avro_schema=avro_schema,
            spark_schema_json=spark_schema_json, populate_meta_fields=meta.populate_meta_fields,
            record_key_fields=tuple(meta.record_key_fields), file=file, base_path=meta.base_path,
            log_files_named_by_instant=meta.table_version >= 8, cdc_logging_mode=cdc_mode.value if cdc_mode else "",
            empty_cdc_logs=meta.table_version >= 8,
            storage_settings=meta.storage.settings, **choices,
        )

    @cached_property
    def storage(self) -> Storage:
        """One storage per options object, so a task's handles share its store clients."""
        return Storage(self.storage_settings)

    def to_json(self) -> str:
        """The options as JSON, for task functions that take plain strings."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> HandleOptions:
        raw = json.loads(text)
        return cls(**{**raw, "record_key_fields": tuple(raw["record_key_fields"]),
                      "partial_columns": tuple(raw.get("partial_columns", ())),
                      "file": FileWriteSettings(**raw["file"]),
                      "storage_settings": StorageSettings(tuple(tuple(p) for p in raw["storage_settings"]["hadoop"]))})


SLOTS = 1_000_000  # resolution of the insert routing hash


@dataclass(frozen=True)
class WritePlan:
    operation: str
    action: str
    handle_options: HandleOptions
    buckets: tuple[BucketInfo, ...]
    insert_ranges: tuple[InsertRange, ...] = ()
    replaced_file_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sort_mode: str = "NONE"  # bulk_insert: NONE, GLOBAL_SORT (key ranges per file), PARTITION_SORT
    combine_in_task: bool = False  # tasks keep one record per key (hudi_sql.write.combine)

    def bucket(self, bucket_id: int) -> BucketInfo:
        return self.buckets[bucket_id]

    def update_bucket_ids(self) -> dict[tuple[str, str], int]:
        return {(b.partition_path, b.file_id): b.bucket_id for b in self.buckets if b.bucket_type is BucketType.UPDATE}
