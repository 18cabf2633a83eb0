"""Options resolved once: the layers merged in Hudi's order, then read into typed, frozen configs.

Precedence, lowest first (Hudi's Spark SQL and datasource writer agree on it)::

    registry defaults < hoodie.properties < session SET < table (catalog) properties < statement options

:func:`resolve_options` merges the layers into one :class:`HudiConfigs`; the ``*Config.of``
constructors below read it into frozen dataclasses with typed fields: :class:`TableConfig`
(the table's fixed properties), :class:`WriteConfig`, :class:`ReadConfig` and the service
configs (:class:`CleanConfig`, :class:`ArchiveConfig`, :class:`CompactionConfig`,
:class:`ClusteringConfig`). Each is built once, at the driver, and handed down; a value that
does not parse fails here, naming its key, before anything touches the table.

The record key and ordering field of an existing table come from its ``hoodie.properties``
(fixed at creation); an option naming other fields is an error raised here, once
(:meth:`WriteConfig.of` with a ``table``).
"""

from __future__ import annotations

__all__ = [
    "ArchiveConfig",
    "CleanConfig",
    "ClusteringConfig",
    "CompactionConfig",
    "ReadConfig",
    "TableConfig",
    "WriteConfig",
    "resolve_options",
]

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, TypeVar

from hudi_sql.config.compaction import HudiCompactionConfig
from hudi_sql.config.operation import WriteOperationType
from hudi_sql.config.read import HudiReadConfig, QueryType
from hudi_sql.config.registry import ConfigOption, HudiConfigs
from hudi_sql.config.services import CleanerPolicy, HudiServiceConfig
from hudi_sql.config.table import CdcLoggingMode, HudiTableConfig, TableType
from hudi_sql.config.write import HudiWriteConfig, IndexType
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError
from hudi_sql.model.payload import Payload

DEFAULT_PAYLOAD = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
OVERWRITE_PAYLOAD = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"


def resolve_options(
    *,
    table_properties: Mapping[str, object] | None = None,
    session: Mapping[str, object] | None = None,
    catalog_properties: Mapping[str, object] | None = None,
    options: Mapping[str, object] | None = None,
) -> HudiConfigs:
    """The option layers of one operation merged, later layers winning.

    Args:
        table_properties: the table's ``hoodie.properties`` (absent for a new table).
        session: the session's ``SET`` options.
        catalog_properties: the catalog table's properties (``TBLPROPERTIES``).
        options: the statement's or DataFrame writer's options; only these are checked for
            unknown ``hoodie.*`` keys (the other layers were checked when they were set).
    """
    statement = HudiConfigs.of(options or {})
    return HudiConfigs.layered(table_properties, session, catalog_properties, statement.raw())


def _table_name(configs: HudiConfigs) -> str | None:
    return configs.get(HudiTableConfig.NAME) or configs.get(HudiWriteConfig.TABLE_NAME)


@dataclass(frozen=True)
class TableConfig:
    """A table's fixed properties (``hoodie.properties``), typed: the one reading of them, with the
    rules every version's file needs (:meth:`of`)."""

    name: str
    table_type: TableType
    database_name: str
    record_key_fields: tuple[str, ...]
    precombine_field: str | None
    partition_fields: tuple[str, ...]
    key_generator_class: str | None
    hive_style_partitioning: bool
    url_encode_partitioning: bool
    populate_meta_fields: bool
    payload_class: str
    base_file_format: str
    #: the CDC logging mode when the table logs changes (``hoodie.table.cdc.enabled``), else None
    cdc_logging_mode: CdcLoggingMode | None = None

    @classmethod
    def of(cls, properties: Mapping[str, str] | HudiConfigs) -> TableConfig:
        """Typed properties. Two rules of the newer versions' files: a partition field may carry
        its key generator type (``city:SIMPLE``, ``ts:TIMESTAMP``, version 8), the column being
        the part before ``:``; the ordering field is ``hoodie.table.precombine.field`` (versions 6
        and 8) or else the first of ``hoodie.table.ordering.fields`` (where 1.1 moved it)."""
        configs = properties if isinstance(properties, HudiConfigs) else HudiConfigs.of(properties, validate=False)
        ordering = configs.get(HudiTableConfig.ORDERING_FIELDS)
        return cls(
            name=configs.get(HudiTableConfig.NAME) or "",
            table_type=configs.get(HudiTableConfig.TYPE),
            database_name=configs.get(HudiTableConfig.DATABASE_NAME) or "default",
            record_key_fields=configs.get(HudiTableConfig.RECORD_KEY_FIELDS),
            precombine_field=configs.get(HudiTableConfig.PRECOMBINE_FIELD) or (ordering[0] if ordering else None),
            partition_fields=tuple(f.split(":", 1)[0] for f in configs.get(HudiTableConfig.PARTITION_FIELDS)),
            key_generator_class=configs.get(HudiTableConfig.KEY_GENERATOR_CLASS),
            hive_style_partitioning=configs.get(HudiTableConfig.HIVE_STYLE_PARTITIONING),
            url_encode_partitioning=configs.get(HudiTableConfig.URL_ENCODE_PARTITIONING),
            populate_meta_fields=configs.get(HudiTableConfig.POPULATE_META_FIELDS),
            payload_class=configs.get(HudiTableConfig.PAYLOAD_CLASS) or OVERWRITE_PAYLOAD,
            base_file_format=configs.get(HudiTableConfig.BASE_FILE_FORMAT) or "PARQUET",
            cdc_logging_mode=(configs.get(HudiTableConfig.CDC_SUPPLEMENTAL_LOGGING_MODE)
                              if configs.get(HudiTableConfig.CDC_ENABLED) else None),
        )

    @staticmethod
    def cdc_properties(configs: HudiConfigs) -> dict[str, str]:
        """The CDC entries of a new table's ``hoodie.properties``: both keys when the options turn
        CDC on (the mode defaulted, as Apache Hudi records it), none otherwise."""
        if not configs.get(HudiTableConfig.CDC_ENABLED):
            return {}
        mode: CdcLoggingMode = configs.get(HudiTableConfig.CDC_SUPPLEMENTAL_LOGGING_MODE)
        return {HudiTableConfig.CDC_ENABLED.key: "true", HudiTableConfig.CDC_SUPPLEMENTAL_LOGGING_MODE.key: mode.value}


@dataclass(frozen=True)
class WriteConfig:
    """The options of one write, typed; ``configs`` keeps the merged option strings for the
    services and key generators that read further keys from them."""

    configs: HudiConfigs
    operation: WriteOperationType
    table_name: str | None
    table_type: TableType
    database_name: str
    record_key_fields: tuple[str, ...]
    partition_path_fields: tuple[str, ...]
    precombine_field: str | None
    write_table_version: int | None  # hoodie.write.table.version: the version of a new table
    payload_class: Payload | None  # the write's payload, parsed (an unknown class failed here)
    populate_meta_fields: bool
    hive_style_partitioning: bool
    url_encode_partitioning: bool
    index_type: IndexType
    combine_before_insert: bool
    combine_before_upsert: bool
    insert_drop_duplicates: bool
    bulk_insert_sort_mode: str
    partitions_to_delete: tuple[str, ...]
    static_overwrite_partitions: tuple[str, ...]
    # file sizing
    max_file_size: int
    small_file_limit: int
    record_size_estimate: int
    record_size_estimation_threshold: float
    insert_split_size: int
    auto_tune_insert_splits: bool
    # parquet and bloom filter settings of the files a write produces
    parquet_compression: str
    parquet_block_size: int
    parquet_page_size: int
    parquet_dictionary: bool
    bloom_num_entries: int
    bloom_fpp: float
    bloom_max_entries: int
    bloom_filter_type: str
    # markers and logs
    #: ``hoodie.write.markers.type`` when the options set it; unset, the write chooses by its store
    #: (:meth:`~hudi_sql.write.client.WriteClient.handle_options`)
    markers_type: str | None
    log_data_block_format: str
    log_max_size: int

    @classmethod
    def of(cls, configs: HudiConfigs, table: TableConfig | None = None) -> WriteConfig:
        """Read the write options; with *table* (an existing table) its fixed properties win.

        Raises:
            HudiConfigError: a value does not parse, or the options name a record key or
                ordering field other than the table's.
        """
        keys = configs.get(HudiWriteConfig.RECORD_KEY_FIELDS)
        ordering = configs.get(HudiWriteConfig.PRECOMBINE_FIELD)
        table_type = configs.get(HudiWriteConfig.TABLE_TYPE)
        if configs.is_set(HudiTableConfig.TYPE):
            table_type = configs.get(HudiTableConfig.TYPE)
        if table is not None:
            _check_against_table(keys, ordering, table)
            keys = table.record_key_fields or keys
            ordering = table.precombine_field or ordering
            table_type = table.table_type
        return cls(
            configs=configs,
            operation=configs.get(HudiWriteConfig.OPERATION),
            table_name=table.name if table is not None else _table_name(configs),
            table_type=table_type,
            database_name=configs.get(HudiWriteConfig.DATABASE_NAME) or "default",
            record_key_fields=tuple(keys),
            partition_path_fields=configs.get(HudiWriteConfig.PARTITION_PATH_FIELDS),
            precombine_field=ordering or None,
            write_table_version=configs.get(HudiWriteConfig.WRITE_TABLE_VERSION),
            payload_class=configs.get(HudiWriteConfig.PAYLOAD_CLASS),
            populate_meta_fields=configs.get(HudiWriteConfig.POPULATE_META_FIELDS),
            hive_style_partitioning=configs.get(HudiWriteConfig.HIVE_STYLE_PARTITIONING),
            url_encode_partitioning=configs.get(HudiWriteConfig.URL_ENCODE_PARTITIONING),
            index_type=configs.get(HudiWriteConfig.INDEX_TYPE),
            combine_before_insert=configs.get(HudiWriteConfig.COMBINE_BEFORE_INSERT),
            combine_before_upsert=configs.get(HudiWriteConfig.COMBINE_BEFORE_UPSERT),
            insert_drop_duplicates=configs.get(HudiWriteConfig.INSERT_DROP_DUPS),
            bulk_insert_sort_mode=configs.get(HudiWriteConfig.BULK_INSERT_SORT_MODE).upper(),
            partitions_to_delete=configs.get(HudiWriteConfig.PARTITIONS_TO_DELETE),
            static_overwrite_partitions=configs.get(HudiWriteConfig.STATIC_OVERWRITE_PARTITIONS),
            max_file_size=configs.get(HudiWriteConfig.PARQUET_MAX_FILE_SIZE),
            small_file_limit=configs.get(HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT),
            record_size_estimate=configs.get(HudiWriteConfig.RECORD_SIZE_ESTIMATE),
            record_size_estimation_threshold=configs.get(HudiWriteConfig.RECORD_SIZE_ESTIMATION_THRESHOLD),
            insert_split_size=configs.get(HudiWriteConfig.INSERT_SPLIT_SIZE),
            auto_tune_insert_splits=configs.get(HudiWriteConfig.AUTO_TUNE_INSERT_SPLITS),
            parquet_compression=configs.get(HudiWriteConfig.PARQUET_COMPRESSION),
            parquet_block_size=configs.get(HudiWriteConfig.PARQUET_BLOCK_SIZE),
            parquet_page_size=configs.get(HudiWriteConfig.PARQUET_PAGE_SIZE),
            parquet_dictionary=configs.get(HudiWriteConfig.PARQUET_DICTIONARY_ENABLED),
            bloom_num_entries=configs.get(HudiWriteConfig.BLOOM_NUM_ENTRIES),
            bloom_fpp=configs.get(HudiWriteConfig.BLOOM_FPP),
            bloom_max_entries=configs.get(HudiWriteConfig.BLOOM_DYNAMIC_MAX_ENTRIES),
            bloom_filter_type=configs.get(HudiWriteConfig.BLOOM_FILTER_TYPE),
            markers_type=configs.get(HudiWriteConfig.MARKERS_TYPE) if configs.is_set(HudiWriteConfig.MARKERS_TYPE)
            else None,
            log_data_block_format=configs.get(HudiWriteConfig.LOGFILE_DATA_BLOCK_FORMAT),
            log_max_size=configs.get(HudiWriteConfig.LOGFILE_MAX_SIZE),
        )

    @property
    def commit_extra_metadata(self) -> dict[str, str]:
        """The options stored in the commit's extra metadata: those whose keys start with
        ``hoodie.datasource.write.commitmeta.key.prefix`` (Apache Hudi's rule, default ``_``)."""
        prefix = self.configs.get(HudiWriteConfig.COMMIT_METADATA_KEY_PREFIX)
        if not prefix:
            return {}
        return {key: value for key, value in self.configs.raw().items() if key.startswith(prefix)}

    @property
    def dedup(self) -> bool:
        """Whether this operation combines duplicate keys of the batch before writing."""
        return {
            WriteOperationType.UPSERT: self.combine_before_upsert,
            WriteOperationType.INSERT: self.combine_before_insert,
            WriteOperationType.BULK_INSERT: self.combine_before_insert,
        }.get(self.operation, True)


def _check_against_table(keys: tuple[str, ...], ordering: str | None, table: TableConfig) -> None:
    """Options that contradict the table's fixed properties are errors, not silently ignored."""
    if keys and tuple(keys) != tuple(table.record_key_fields):
        raise HudiConfigError(
            f"Option '{HudiWriteConfig.RECORD_KEY_FIELDS.key}' is {','.join(keys)} but table "
            f"'{table.name}' has record key {','.join(table.record_key_fields)}.",
            help="record keys are fixed when a table is created",
        )
    if ordering and table.precombine_field and ordering != table.precombine_field:
        raise HudiConfigError(
            f"Option '{HudiWriteConfig.PRECOMBINE_FIELD.key}' is {ordering} but table "
            f"'{table.name}' orders by {table.precombine_field}.")


def option(member: ConfigOption[Any]) -> Any:
    """A config field read from *member* (``configs.get(member)``); its default is the registry's."""
    return field(default=member.default, metadata={"option": member})


class _FromOptions:
    """Configs whose every field names its option (:func:`option`): one generic reader."""

    @classmethod
    def of(cls: type[_C], configs: HudiConfigs) -> _C:  # noqa: PYI019 - Self needs Python 3.11
        assert is_dataclass(cls)
        return cls(**{f.name: configs.get(f.metadata["option"]) for f in fields(cls)})


_C = TypeVar("_C", bound=_FromOptions)


@dataclass(frozen=True)
class ReadConfig(_FromOptions):
    """The options of one query, typed."""

    query_type: QueryType = option(HudiReadConfig.QUERY_TYPE)
    begin_instant: str | None = option(HudiReadConfig.BEGIN_INSTANT)
    end_instant: str | None = option(HudiReadConfig.END_INSTANT)
    as_of_instant: str | None = option(HudiReadConfig.AS_OF_INSTANT)
    incremental_fallback_full_scan: bool = option(HudiReadConfig.INCR_FALLBACK_FULL_SCAN)


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
