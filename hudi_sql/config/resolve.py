"""Options resolved once: the layers merged in Hudi's order, then read into typed, frozen configs.

Precedence, lowest first (Hudi's Spark SQL and datasource writer agree on it)::

    registry defaults < hoodie.properties < session SET < table (catalog) properties < statement options

:func:`resolve_options` merges the layers into one :class:`HudiConfigs`. An operation's entry
point (the write client, a table service called on its own, a procedure, a reader, a stream)
wraps them in one :class:`Resolved` and hands it down: each scope's typed config
(:class:`WriteConfig` here; the read, service, index, bootstrap, SQL insert and streaming configs
in :mod:`hudi_sql.config.scoped`; the metadata table's and concurrency's in their modules) is read
the first time it is asked for and kept; a value that does not parse fails there, naming its key.
:class:`TableConfig` is the one typed reading of a table's ``hoodie.properties``.

The record key and ordering field of an existing table come from its ``hoodie.properties``
(fixed at creation); an option naming other fields is an error raised here, once
(:meth:`WriteConfig.of` with a ``table``).
"""

from __future__ import annotations

__all__ = [
    "SCOPES",
    "Resolved",
    "TableConfig",
    "WriteConfig",
    "resolve_options",
]

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from hudi_sql.config.bootstrap import HudiBootstrapConfig
from hudi_sql.config.concurrency import ConcurrencyConfig
from hudi_sql.config.metadata import MetadataConfig
from hudi_sql.config.operation import WriteOperationType
from hudi_sql.config.registry import HudiConfigs
from hudi_sql.config.scoped import (
    ArchiveConfig,
    BootstrapConfig,
    CleanConfig,
    ClusteringConfig,
    CompactionConfig,
    IndexConfig,
    ReadConfig,
    StreamingConfig,
)
from hudi_sql.config.table import CdcLoggingMode, HudiTableConfig, TableType
from hudi_sql.config.write import HudiWriteConfig, IndexType
from hudi_sql.errors import HudiConfigError
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


def _table_version(configs: HudiConfigs) -> int:
    """``hoodie.table.version``: 6 when absent or blank; a value that is not a number is a damaged file."""
    raw = str(configs.raw().get(HudiTableConfig.VERSION.key) or "").strip()
    if not raw:
        return 6
    try:
        return int(raw)
    except ValueError:
        raise HudiConfigError(f"{HudiTableConfig.VERSION.key}='{raw}' is not a table version number.",
                              help="hoodie.properties is damaged; restore it from hoodie.properties.backup") from None


def _names(listed: str | None) -> tuple[str, ...]:
    """A comma-separated list of names, blanks dropped."""
    return tuple(n.strip() for n in str(listed or "").split(",") if n.strip())


def _schema_fields(avro_schema: str | None) -> tuple[str, ...]:
    """The field names of an Avro record schema (JSON); none when unset.

    Raises:
        HudiConfigError: the text is not an Avro record schema.
    """
    if not avro_schema:
        return ()
    try:
        fields = json.loads(avro_schema)["fields"]
        return tuple(str(f["name"]) for f in fields)
    except (ValueError, KeyError, TypeError):
        raise HudiConfigError(f"{HudiWriteConfig.PARTIAL_UPDATE_SCHEMA.key} is not an Avro record schema: "
                              f"{avro_schema[:200]}") from None


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
    #: ``hoodie.table.version`` (6 when absent, as for tables of Apache Hudi before 0.14)
    version: int = 6
    #: ``hoodie.timeline.layout.version`` as the file says it (``None``: absent); the version implies it
    declared_timeline_layout: str | None = None
    #: ``hoodie.table.format`` (lower case): ``native`` for Hudi's own timeline and files
    table_format: str = "native"
    #: the payload class the file names (``payload_class`` falls back to Apache Hudi's default)
    declared_payload_class: str | None = None
    #: ``hoodie.table.create.schema``: the Avro schema the table was created with
    create_schema: str | None = None
    #: layout 2: the timeline's folder under ``.hoodie/`` and its history's under that
    timeline_path: str = "timeline"
    timeline_history_path: str = "history"
    #: metadata table partitions built (complete) and being built (inflight)
    metadata_partitions: tuple[str, ...] = ()
    metadata_partitions_inflight: tuple[str, ...] = ()
    #: version 8 and up: how records of one key merge (upper case; empty when the file says nothing)
    record_merge_mode: str = ""
    record_merge_strategy_id: str | None = None
    ordering_fields: tuple[str, ...] = ()
    #: version 9: partial-update mode (upper case, ``NONE`` when unset) and the delete marker
    partial_update_mode: str = "NONE"
    merge_delete_field: str | None = None
    merge_delete_marker: str | None = None
    #: the Parquet table a bootstrapped table was made from (``hoodie.bootstrap.base.path``), else None
    bootstrap_base_path: str | None = None

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
            version=_table_version(configs),
            declared_timeline_layout=str(configs.raw().get(HudiTableConfig.TIMELINE_LAYOUT_VERSION.key) or "").strip()
            or None,
            table_format=(configs.get(HudiTableConfig.TABLE_FORMAT) or "native").strip().lower(),
            declared_payload_class=(configs.get(HudiTableConfig.PAYLOAD_CLASS) or None
                                    if configs.is_set(HudiTableConfig.PAYLOAD_CLASS) else None),
            create_schema=configs.get(HudiTableConfig.CREATE_SCHEMA) or None,
            timeline_path=configs.get(HudiTableConfig.TIMELINE_PATH) or str(HudiTableConfig.TIMELINE_PATH.default),
            timeline_history_path=(configs.get(HudiTableConfig.TIMELINE_HISTORY_PATH)
                                   or str(HudiTableConfig.TIMELINE_HISTORY_PATH.default)),
            metadata_partitions=_names(configs.get(HudiTableConfig.METADATA_PARTITIONS)),
            metadata_partitions_inflight=_names(configs.get(HudiTableConfig.METADATA_PARTITIONS_INFLIGHT)),
            record_merge_mode=(configs.get(HudiTableConfig.RECORD_MERGE_MODE) or "").strip().upper(),
            record_merge_strategy_id=configs.get(HudiTableConfig.RECORD_MERGE_STRATEGY_ID) or None,
            ordering_fields=tuple(ordering),
            partial_update_mode=(configs.get(HudiTableConfig.PARTIAL_UPDATE_MODE) or "NONE").strip().upper(),
            merge_delete_field=configs.get(HudiTableConfig.MERGE_DELETE_FIELD) or None,
            merge_delete_marker=configs.get(HudiTableConfig.MERGE_DELETE_MARKER) or None,
            bootstrap_base_path=configs.get(HudiBootstrapConfig.BASE_PATH) or None,
        )

    @property
    def single_complex_key_field(self) -> str | None:
        """The one record key field of a table keyed by a ComplexKeyGenerator over one field, whose
        stored key form Apache Hudi's releases disagree on (``1`` or ``id:1``); else ``None``."""
        generator = (self.key_generator_class or "").rsplit(".", 1)[-1]
        if generator in ("ComplexKeyGenerator", "ComplexAvroKeyGenerator") and len(self.record_key_fields) == 1:
            return self.record_key_fields[0]
        return None

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
    #: (:meth:`~hudi_sql.engine.write_client.WriteClient.handle_options`)
    markers_type: str | None
    log_data_block_format: str
    log_max_size: int
    #: the columns a partial update's log blocks hold (``hoodie.write.partial.update.schema``'s
    #: fields); empty: whole records
    partial_update_columns: tuple[str, ...] = ()
    #: ``hoodie.spark.sql.merge.into.partial.updates``: MERGE INTO may log partial updates
    merge_into_partial_updates: bool = True
    #: upgrade an older table to ``hoodie.write.table.version`` before writing
    auto_upgrade: bool = True
    #: commit a write that has no records (Apache Hudi's default)
    allow_empty_commit: bool = True

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
            partial_update_columns=_schema_fields(configs.get(HudiWriteConfig.PARTIAL_UPDATE_SCHEMA)),
            merge_into_partial_updates=configs.get(HudiWriteConfig.MERGE_INTO_PARTIAL_UPDATES),
            auto_upgrade=configs.get(HudiWriteConfig.AUTO_UPGRADE),
            allow_empty_commit=configs.get(HudiWriteConfig.ALLOW_EMPTY_COMMIT),
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


@dataclass(frozen=True)
class Resolved:
    """The options of one operation, resolved once at its entry point (the write client, a table
    service called on its own, a procedure, a stream) and handed down: each scope's typed config,
    read from the merged layers the first time it is asked for and kept.

    Services, planners and the commit protocol take the typed config they need from here rather
    than reading option keys themselves. :meth:`check` reads every scope, so one invalid value
    fails an operation before it touches the table, whichever service would have read it.
    """

    configs: HudiConfigs = field(default_factory=HudiConfigs)

    @classmethod
    def of(cls, options: Resolved | HudiConfigs | Mapping[str, object] | None = None) -> Resolved:
        """The resolution of *options*: an entry point's own (kept as it is), merged layers, or a
        plain map of option strings (checked for unknown keys)."""
        if isinstance(options, Resolved):
            return options
        return cls(options if isinstance(options, HudiConfigs) else HudiConfigs.of(options or {}))

    def check(self) -> Resolved:
        """Every scope read now; a value that does not parse fails here, naming its key."""
        for scope in SCOPES:
            getattr(self, scope)
        return self

    @cached_property
    def write(self) -> WriteConfig:
        return WriteConfig.of(self.configs)

    @cached_property
    def read(self) -> ReadConfig:
        return ReadConfig.of(self.configs)

    @cached_property
    def clean(self) -> CleanConfig:
        return CleanConfig.of(self.configs)

    @cached_property
    def archive(self) -> ArchiveConfig:
        return ArchiveConfig.of(self.configs)

    @cached_property
    def compaction(self) -> CompactionConfig:
        return CompactionConfig.of(self.configs)

    @cached_property
    def clustering(self) -> ClusteringConfig:
        return ClusteringConfig.of(self.configs)

    @cached_property
    def metadata(self) -> MetadataConfig:
        return MetadataConfig.of(self.configs)

    @cached_property
    def concurrency(self) -> ConcurrencyConfig:
        return ConcurrencyConfig.of(self.configs)

    @cached_property
    def bootstrap(self) -> BootstrapConfig:
        return BootstrapConfig.of(self.configs)

    @cached_property
    def index(self) -> IndexConfig:
        return IndexConfig.of(self.configs)

    @cached_property
    def streaming(self) -> StreamingConfig:
        return StreamingConfig.of(self.configs)

    def given(self, **scopes: object) -> Resolved:
        """These options with some scopes' configs given as typed values (``given(concurrency=c)``):
        for a caller that holds a typed config rather than option strings."""
        unknown = set(scopes) - set(SCOPES)
        if unknown:
            raise TypeError(f"not a scope of Resolved: {', '.join(sorted(unknown))}")
        resolved = Resolved(self.configs)
        resolved.__dict__.update(scopes)  # where each scope's cached config lives
        return resolved

    def with_options(self, options: Mapping[str, object]) -> Resolved:
        """A new resolution with *options* over these (a service's own override, e.g. compacting
        every slice before a version change)."""
        return Resolved(self.configs.with_options(options))


#: The scopes a :class:`Resolved` reads (its cached properties).
SCOPES = ("write", "read", "clean", "archive", "compaction", "clustering", "metadata", "concurrency", "index",
           "bootstrap", "streaming")
