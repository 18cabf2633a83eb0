"""The typed configs of one scope each: a query, a table service, the index, a bootstrap, a SQL
insert, a stream. Every field names the option it is read from (:func:`option`), so one generic
constructor reads them all (``Config.of(configs)``) and the registry's default is the field's.
They are built by :class:`~hudi_sql.config.resolve.Resolved` at an operation's entry point and
handed down; a field that needs more than its option (a check, a derived value) says so in its
config's own ``of``.
"""

from __future__ import annotations

__all__ = [
    "ArchiveConfig",
    "BootstrapConfig",
    "CleanConfig",
    "ClusteringConfig",
    "CompactionConfig",
    "IndexConfig",
    "ReadConfig",
    "SqlInsertConfig",
    "StreamingConfig",
    "option",
]

import re
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, TypeVar

from hudi_sql.config.bootstrap import BootstrapMode, HudiBootstrapConfig
from hudi_sql.config.compaction import HudiCompactionConfig
from hudi_sql.config.metadata import HudiMetadataConfig
from hudi_sql.config.operation import WriteOperationType
from hudi_sql.config.read import HudiReadConfig, IncrementalFormat, QueryType
from hudi_sql.config.registry import ConfigOption, HudiConfigs
from hudi_sql.config.services import CleanerPolicy, HudiServiceConfig
from hudi_sql.config.streaming import HudiStreamingConfig
from hudi_sql.config.write import HudiWriteConfig, IndexType
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError


def option(member: ConfigOption[Any]) -> Any:
    """A config field read from *member* (``configs.get(member)``); its default is the registry's."""
    return field(default=member.default, metadata={"option": member})


class _FromOptions:
    """Configs whose every field names its option (:func:`option`): one generic reader."""

    @classmethod
    def of(cls: type[_C], configs: HudiConfigs) -> _C:  # noqa: PYI019 - Self needs Python 3.11
        assert is_dataclass(cls)
        return cls(**{f.name: configs.get(f.metadata["option"]) for f in fields(cls) if "option" in f.metadata})


_C = TypeVar("_C", bound=_FromOptions)


@dataclass(frozen=True)
class ReadConfig(_FromOptions):
    """The options of one query, typed: what the read planner (:func:`~hudi_sql.read.plan.plan_read`),
    the change-feed planner and the readers take. ``ReadConfig()`` is a snapshot of the latest
    commit with Apache Hudi's defaults."""

    query_type: QueryType = option(HudiReadConfig.QUERY_TYPE)
    incremental_format: IncrementalFormat = option(HudiReadConfig.INCREMENTAL_FORMAT)
    begin_instant: str | None = option(HudiReadConfig.BEGIN_INSTANT)
    end_instant: str | None = option(HudiReadConfig.END_INSTANT)
    as_of_instant: str | None = option(HudiReadConfig.AS_OF_INSTANT)
    incremental_fallback_full_scan: bool = option(HudiReadConfig.INCR_FALLBACK_FULL_SCAN)
    #: list files through the metadata table's ``files`` partition (where it exists)
    use_metadata: bool = option(HudiMetadataConfig.ENABLE)
    #: prune file slices by the metadata table's column statistics
    data_skipping: bool = option(HudiMetadataConfig.DATA_SKIPPING)

    @property
    def wants_changes(self) -> bool:
        """An incremental query in the CDC format (one row per change, not the latest state)."""
        return self.query_type is QueryType.INCREMENTAL and self.incremental_format is IncrementalFormat.CDC

    def incremental(self, begin: str, end: str) -> ReadConfig:
        """This read as an incremental query of ``(begin, end]`` (a stream's micro-batch)."""
        return replace(self, query_type=QueryType.INCREMENTAL, begin_instant=begin, end_instant=end)

    def as_of(self, instant: str) -> ReadConfig:
        """This read as a snapshot as of *instant* (time travel)."""
        return replace(self, query_type=QueryType.SNAPSHOT, as_of_instant=instant)


@dataclass(frozen=True)
class CleanConfig(_FromOptions):
    """Cleaner options (``HoodieCleanConfig``), typed."""

    automatic: bool = option(HudiServiceConfig.CLEAN_AUTOMATIC)
    policy: CleanerPolicy = option(HudiServiceConfig.CLEANER_POLICY)
    commits_retained: int = option(HudiServiceConfig.CLEANER_COMMITS_RETAINED)
    file_versions_retained: int = option(HudiServiceConfig.CLEANER_FILE_VERSIONS_RETAINED)
    hours_retained: int = option(HudiServiceConfig.CLEANER_HOURS_RETAINED)
    max_commits: int = option(HudiServiceConfig.CLEAN_MAX_COMMITS)
    parallelism: int = option(HudiServiceConfig.CLEANER_PARALLELISM)


@dataclass(frozen=True)
class ArchiveConfig(_FromOptions):
    """Archival options (``HoodieArchivalConfig``), typed."""

    automatic: bool = option(HudiServiceConfig.ARCHIVE_AUTOMATIC)
    max_commits: int = option(HudiServiceConfig.ARCHIVE_MAX_COMMITS)
    min_commits: int = option(HudiServiceConfig.ARCHIVE_MIN_COMMITS)
    batch_size: int = option(HudiServiceConfig.ARCHIVE_BATCH_SIZE)


@dataclass(frozen=True)
class CompactionConfig(_FromOptions):
    """Merge-On-Read compaction options, typed."""

    inline: bool = option(HudiCompactionConfig.INLINE)
    schedule_inline: bool = option(HudiCompactionConfig.SCHEDULE_INLINE)
    max_delta_commits: int = option(HudiCompactionConfig.MAX_DELTA_COMMITS)
    max_delta_seconds: int = option(HudiCompactionConfig.MAX_DELTA_SECONDS)
    trigger_strategy: str = option(HudiCompactionConfig.TRIGGER_STRATEGY)
    strategy: str = option(HudiCompactionConfig.STRATEGY)
    target_io_mb: int = option(HudiCompactionConfig.TARGET_IO)
    logfile_num_threshold: int = option(HudiCompactionConfig.LOGFILE_NUM_THRESHOLD)


@dataclass(frozen=True)
class ClusteringConfig(_FromOptions):
    """Clustering options (``HoodieClusteringConfig``), typed: the trigger, the planner's limits
    and the partitions it may pick, read and checked once (:meth:`of`)."""

    inline: bool = option(HudiServiceConfig.CLUSTERING_INLINE)
    inline_max_commits: int = option(HudiServiceConfig.CLUSTERING_INLINE_MAX_COMMITS)
    sort_columns: tuple[str, ...] = option(HudiServiceConfig.CLUSTERING_SORT_COLUMNS)
    target_file_max_bytes: int = option(HudiServiceConfig.CLUSTERING_TARGET_FILE_MAX_BYTES)
    small_file_limit: int = option(HudiServiceConfig.CLUSTERING_SMALL_FILE_LIMIT)
    updates_strategy: str = option(HudiServiceConfig.CLUSTERING_UPDATES_STRATEGY)
    max_bytes_per_group: int = option(HudiServiceConfig.CLUSTERING_MAX_BYTES_PER_GROUP)
    max_num_groups: int = option(HudiServiceConfig.CLUSTERING_MAX_NUM_GROUPS)
    single_group: bool = option(HudiServiceConfig.CLUSTERING_SINGLE_GROUP)
    preserve_commit_metadata: bool = option(HudiServiceConfig.CLUSTERING_PRESERVE_COMMIT_METADATA)
    #: the assumed size of a file slice without a base file
    parquet_max_file_size: int = option(HudiWriteConfig.PARQUET_MAX_FILE_SIZE)
    #: partition paths a plan is limited to; empty: every partition (then the pattern applies)
    selected_partitions: tuple[str, ...] = option(HudiServiceConfig.CLUSTERING_PARTITION_SELECTED)
    #: a regular expression the whole partition path matches; empty: any
    partition_pattern: str = option(HudiServiceConfig.CLUSTERING_PARTITION_REGEX)
    plan_strategy: str = option(HudiServiceConfig.CLUSTERING_PLAN_STRATEGY_CLASS)
    execution_strategy: str = option(HudiServiceConfig.CLUSTERING_EXECUTION_STRATEGY_CLASS)

    @classmethod
    def of(cls, configs: HudiConfigs) -> ClusteringConfig:
        read = super().of(configs)
        return replace(read, selected_partitions=tuple(p.strip("/") for p in read.selected_partitions),
                       sort_columns=tuple(read.sort_columns), partition_pattern=read.partition_pattern or "")

    def for_planning(self) -> ClusteringConfig:
        """This config, checked for planning a clustering: a strategy hudi-sql does not run, a
        pattern that is not a regular expression or a limit below 1 fails, naming its key. (Not
        checked by :meth:`of`: a write that never clusters does not fail on them.)"""
        for member, value, suffix in (
                (HudiServiceConfig.CLUSTERING_PLAN_STRATEGY_CLASS, self.plan_strategy, "SizeBasedClusteringPlanStrategy"),
                (HudiServiceConfig.CLUSTERING_EXECUTION_STRATEGY_CLASS, self.execution_strategy,
                 "SortAndSizeExecutionStrategy")):
            if not value.endswith(suffix):
                kind = "plan" if member is HudiServiceConfig.CLUSTERING_PLAN_STRATEGY_CLASS else "execution"
                raise UnsupportedFeatureError(f"Clustering {kind} strategy '{value}' is not supported.",
                                              help=f"use {member.default} (the default)")
        try:
            re.compile(self.partition_pattern)
        except re.error as exc:
            raise HudiConfigError(f"Option '{HudiServiceConfig.CLUSTERING_PARTITION_REGEX.key}' is not a regular "
                                  f"expression: {exc}.") from exc
        for key, limit in ((HudiServiceConfig.CLUSTERING_TARGET_FILE_MAX_BYTES.key, self.target_file_max_bytes),
                           (HudiServiceConfig.CLUSTERING_MAX_BYTES_PER_GROUP.key, self.max_bytes_per_group),
                           (HudiServiceConfig.CLUSTERING_MAX_NUM_GROUPS.key, self.max_num_groups)):
            if limit < 1:
                raise HudiConfigError(f"Option '{key}' is {limit}; it must be at least 1.")
        return self

    def plans_partition(self, partition: str) -> bool:
        """Whether *partition* may be clustered: named when partitions are selected by name,
        else matching the pattern in full (Apache Hudi's ``partition.selected`` /
        ``partition.regex.pattern``)."""
        if self.selected_partitions:
            return partition in self.selected_partitions
        return not self.partition_pattern or re.fullmatch(self.partition_pattern, partition) is not None


@dataclass(frozen=True)
class BootstrapConfig(_FromOptions):
    """The options of a bootstrap (``HoodieBootstrapConfig``), typed."""

    mode_selector: str = option(HudiBootstrapConfig.MODE_SELECTOR)
    mode_selector_regex: str = option(HudiBootstrapConfig.MODE_SELECTOR_REGEX)
    #: the mode of the partitions the regex matches (the others take the other mode)
    regex_mode: BootstrapMode = option(HudiBootstrapConfig.MODE_SELECTOR_REGEX_MODE)
    parallelism: int = option(HudiBootstrapConfig.PARALLELISM)
    index_class: str = option(HudiBootstrapConfig.INDEX_CLASS)


@dataclass(frozen=True)
class IndexConfig(_FromOptions):
    """The options of the index that tags a write's records (``HoodieIndexConfig``), typed."""

    index_type: IndexType = option(HudiWriteConfig.INDEX_TYPE)
    bloom_prune_by_ranges: bool = option(HudiWriteConfig.BLOOM_PRUNE_BY_RANGES)
    #: read the bloom filters (and key ranges) from the metadata table rather than file footers
    bloom_use_metadata: bool = option(HudiMetadataConfig.BLOOM_INDEX_USE_METADATA)
    bloom_update_partition_path: bool = option(HudiWriteConfig.BLOOM_INDEX_UPDATE_PARTITION_PATH)
    simple_update_partition_path: bool = option(HudiWriteConfig.SIMPLE_INDEX_UPDATE_PARTITION_PATH)
    bucket_num: int = option(HudiWriteConfig.BUCKET_NUM)
    #: ``hoodie.bucket.index.hash.field`` as given; unset: the record key fields
    bucket_hash_field: str | None = option(HudiWriteConfig.BUCKET_HASH_FIELD)

    def update_partition_path(self, index_type: IndexType) -> bool:
        """Whether *index_type* (a global one) moves a key whose partition changed, deleting it
        from the old partition, rather than updating it where it is."""
        if index_type is IndexType.GLOBAL_SIMPLE:
            return self.simple_update_partition_path
        return self.bloom_update_partition_path


@dataclass(frozen=True)
class SqlInsertConfig(_FromOptions):
    """The options that choose what a SQL ``INSERT INTO`` / ``INSERT OVERWRITE`` does, typed
    (Apache Hudi's SQL layer reads them; :mod:`hudi_sql.sql.insert_planner` applies its rules)."""

    #: ``none``, ``drop`` or ``fail`` (lower case)
    dup_policy: str = option(HudiWriteConfig.INSERT_DUP_POLICY)
    #: ``hoodie.spark.sql.insert.into.operation`` when set
    insert_into_operation: str | None = option(HudiWriteConfig.SQL_INSERT_INTO_OPERATION)
    #: the older ``hoodie.sql.insert.mode`` when set
    legacy_insert_mode: str | None = option(HudiWriteConfig.SQL_INSERT_MODE)
    bulk_insert_enabled: bool = option(HudiWriteConfig.SQL_ENABLE_BULK_INSERT)
    drop_duplicates: bool = option(HudiWriteConfig.INSERT_DROP_DUPS)
    #: ``STATIC`` / ``DYNAMIC`` when set (upper case); unset: Spark's partitionOverwriteMode
    overwrite_mode: str | None = option(HudiWriteConfig.OVERWRITE_MODE)
    #: ``hoodie.datasource.write.operation`` when the options set it (its default is not a choice)
    operation: WriteOperationType | None = None
    #: whether the options set ``hoodie.combine.before.insert`` (else the SQL layer's default applies)
    combine_set: bool = False

    @classmethod
    def of(cls, configs: HudiConfigs) -> SqlInsertConfig:
        read = super().of(configs)
        return replace(
            read, dup_policy=str(read.dup_policy).lower(),
            overwrite_mode=str(read.overwrite_mode).upper() if read.overwrite_mode else None,
            operation=configs.get(HudiWriteConfig.OPERATION) if configs.is_set(HudiWriteConfig.OPERATION) else None,
            combine_set=configs.is_set(HudiWriteConfig.COMBINE_BEFORE_INSERT))


@dataclass(frozen=True)
class StreamingConfig(_FromOptions):
    """The options of a streaming write (the sink) or read (the source), typed."""

    checkpoint_identifier: str = option(HudiStreamingConfig.CHECKPOINT_IDENTIFIER)
    retries: int = option(HudiStreamingConfig.RETRY_COUNT)
    retry_interval_ms: int = option(HudiStreamingConfig.RETRY_INTERVAL_MS)
    ignore_failed_batch: bool = option(HudiStreamingConfig.IGNORE_FAILED_BATCH)
    disable_compaction: bool = option(HudiStreamingConfig.DISABLE_COMPACTION)
    async_compaction: bool = option(HudiStreamingConfig.ASYNC_COMPACTION)
    #: ``earliest``, ``latest`` or an instant time
    start_offset: str = option(HudiStreamingConfig.START_OFFSET)

    @property
    def compacts(self) -> bool:
        """Whether a Merge-On-Read sink compacts between micro-batches (unless told otherwise)."""
        return self.async_compaction and not self.disable_compaction
