"""Hive sync options: Apache Hudi's ``hoodie.datasource.hive_sync.*`` keys, with Hudi's defaults.

Keys, defaults and inference rules follow Hudi 0.14 (``HiveSyncConfigHolder``, ``HiveSyncConfig``
and ``HoodieSyncConfig``). Importing this module registers :class:`HiveSyncConfig` with the
option registry, so ``HudiConfigs.of`` accepts these keys in write options.

Several keys have no fixed default in Hudi but are *inferred* from the table:

* ``database`` from ``hoodie.database.name``; ``table`` from ``hoodie.table.name``;
* ``partition_fields`` from ``hoodie.table.partition.fields`` (else the write option
  ``hoodie.datasource.write.partitionpath.field``);
* ``partition_extractor_class``: none -> ``NonPartitionedExtractor``; one field and hive-style
  partitioning -> ``HiveStylePartitionValueExtractor``; one field -> ``SinglePartPartitionValueExtractor``;
  several -> ``MultiPartKeysValueExtractor``;
* ``hoodie.meta.sync.decode_partition`` from ``hoodie.datasource.write.partitionpath.urlencode``;
* ``base_file_format`` from ``hoodie.table.base.file.format``.

:func:`resolve_sync_settings` applies those rules once and returns a frozen
:class:`HiveSyncSettings`, which is all the planner and the clients see.
"""

from __future__ import annotations

__all__ = [
    "MANIFEST_BASE_PATH_PROPERTY",
    "HiveSyncConfig",
    "HiveSyncMode",
    "HiveSyncSettings",
    "parse_key_values",
    "resolve_sync_settings",
]

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from hudi_sql.config import HudiConfigs, HudiTableConfig
from hudi_sql.config.registry import ConfigOption, ConfigScope, parse_bool, parse_int, parse_str
from hudi_sql.config.resolve import TableConfig
from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.errors import HudiConfigError

_EXTRACTOR_PREFIX = "org.apache.hudi.hive."

#: Table property of a manifest-form Hive table: the Hudi table's base path (its ``LOCATION`` is
#: the manifest folder), which is how hudi-sql finds the table behind it.
MANIFEST_BASE_PATH_PROPERTY = "hoodie.base.path"


class HiveSyncMode(str, Enum):
    """How DDL reaches the metastore (``hoodie.datasource.hive_sync.mode``)."""

    HMS = "hms"
    JDBC = "jdbc"
    HIVEQL = "hiveql"

    @classmethod
    def parse(cls, value: str) -> HiveSyncMode:
        try:
            return cls(value.strip().lower())
        except ValueError:
            raise ValueError(f"'{value}' is not a hive sync mode (hms, jdbc, hiveql)") from None


class HiveSyncConfig(ConfigScope):
    """Hudi's hive sync keys (scope: meta sync)."""

    ENABLED = ConfigOption("hoodie.datasource.hive_sync.enable", parse_bool, False,
                           "Register/sync the table to a Hive metastore after each write.")
    META_SYNC_ENABLED = ConfigOption("hoodie.datasource.meta.sync.enable", parse_bool, False,
                                     "Enable syncing the table with an external meta store.")
    MODE = ConfigOption(
        "hoodie.datasource.hive_sync.mode", HiveSyncMode.parse, None,
        "hms, jdbc or hiveql. Unset: jdbc when hoodie.datasource.hive_sync.use_jdbc (default), else hiveql."
    )
    USE_JDBC = ConfigOption("hoodie.datasource.hive_sync.use_jdbc", parse_bool, True,
                            "Deprecated since Hudi 0.9: use hoodie.datasource.hive_sync.mode.")
    JDBC_URL = ConfigOption("hoodie.datasource.hive_sync.jdbcurl", parse_str, "jdbc:hive2://localhost:10000",
                            "HiveServer2 JDBC url (jdbc mode): jdbc:hive2://host:port[/db][;auth=...].")
    METASTORE_URIS = ConfigOption(
        "hoodie.datasource.hive_sync.metastore.uris", parse_str, "thrift://localhost:9083",
        "Hive metastore thrift uri(s) (hms mode)."
    )
    USERNAME = ConfigOption("hoodie.datasource.hive_sync.username", parse_str, "hive", "Hive user name.")
    PASSWORD = ConfigOption("hoodie.datasource.hive_sync.password", parse_str, "hive",
                            "Hive password (sent only with LDAP/CUSTOM authentication).")
    DATABASE = ConfigOption("hoodie.datasource.hive_sync.database", parse_str, "default",
                            "Target database; inferred from hoodie.database.name.")
    TABLE = ConfigOption("hoodie.datasource.hive_sync.table", parse_str, "unknown",
                         "Target table; inferred from hoodie.table.name.")
    PARTITION_FIELDS = ConfigOption("hoodie.datasource.hive_sync.partition_fields", parse_str, "",
                                    "Hive partition columns; inferred from the table's partition fields.")
    PARTITION_EXTRACTOR_CLASS = ConfigOption(
        "hoodie.datasource.hive_sync.partition_extractor_class", parse_str,
        "org.apache.hudi.hive.MultiPartKeysValueExtractor",
        "Turns a partition path into Hive partition values; inferred from the partitioning.",
    )
    AUTO_CREATE_DATABASE = ConfigOption("hoodie.datasource.hive_sync.auto_create_database", parse_bool, True,
                                        "Create the database when it does not exist.")
    IGNORE_EXCEPTIONS = ConfigOption("hoodie.datasource.hive_sync.ignore_exceptions", parse_bool, False,
                                     "Log sync failures instead of raising them.")
    SKIP_RO_SUFFIX = ConfigOption("hoodie.datasource.hive_sync.skip_ro_suffix", parse_bool, False,
                                  "Register a MOR table's read-optimized table without the _ro suffix.")
    SUPPORT_TIMESTAMP = ConfigOption("hoodie.datasource.hive_sync.support_timestamp", parse_bool, False,
                                     "Sync TIMESTAMP columns as Hive timestamp instead of bigint.")
    TABLE_PROPERTIES = ConfigOption("hoodie.datasource.hive_sync.table_properties", parse_str, None,
                                    "Extra table properties, one key=value per line.")
    SERDE_PROPERTIES = ConfigOption("hoodie.datasource.hive_sync.serde_properties", parse_str, None,
                                    "Extra serde properties, one key=value per line.")
    SYNC_AS_DATASOURCE = ConfigOption(
        "hoodie.datasource.hive_sync.sync_as_datasource", parse_bool, True,
        "Add the spark.sql.sources.* table properties so Spark reads it as a hudi table."
    )
    SYNC_AS_MANIFEST = ConfigOption(
        "hoodie.datasource.hive_sync.sync_as_manifest", parse_bool, False,
        "hudi-sql's own key: sync Copy-On-Write tables and the _ro table of Merge-On-Read tables as "
        "symlink-manifest tables (SymlinkTextInputFormat over manifests listing the latest base files, "
        "rewritten after every commit), which Trino/Presto/Athena-style readers read without duplicates "
        "(Spark's own Hive reader cannot); the _rt table is not synced (its merge needs a Hudi reader). "
        "Overrides sync_as_datasource. See docs/engines.md."
    )
    SCHEMA_STRING_LENGTH_THRESHOLD = ConfigOption(
        "hoodie.datasource.hive_sync.schema_string_length_thresh", parse_int, 4000,
        "Longest spark.sql.sources.schema.part.N value."
    )
    CREATE_MANAGED_TABLE = ConfigOption("hoodie.datasource.hive_sync.create_managed_table", parse_bool, False,
                                        "Create a managed table instead of an external one.")
    OMIT_METADATA_FIELDS = ConfigOption("hoodie.datasource.hive_sync.omit_metadata_fields", parse_bool, False,
                                        "Leave the five _hoodie_* columns out of the Hive schema.")
    BATCH_NUM = ConfigOption("hoodie.datasource.hive_sync.batch_num", parse_int, 1000,
                             "Partitions per ALTER TABLE ADD PARTITION statement.")
    BASE_FILE_FORMAT = ConfigOption("hoodie.datasource.hive_sync.base_file_format", parse_str, "PARQUET",
                                    "Base file format of the table.", ("PARQUET",))
    USE_PRE_APACHE_INPUT_FORMAT = ConfigOption(
        "hoodie.datasource.hive_sync.use_pre_apache_input_format", parse_bool, False,
        "Use the com.uber.hoodie input formats (tables migrated from pre-Apache Hudi).",
    )
    TABLE_STRATEGY = ConfigOption(
        "hoodie.datasource.hive_sync.table.strategy", parse_str, "ALL",
        "MOR tables: RO, RT or ALL (both the _ro and _rt tables).", ("RO", "RT", "ALL")
    )
    SYNC_COMMENT = ConfigOption("hoodie.datasource.hive_sync.sync_comment", parse_bool, False,
                                "Sync column comments.", effective=False)
    DECODE_PARTITION = ConfigOption(
        "hoodie.meta.sync.decode_partition", parse_bool, False,
        "URL-decode partition values; inferred from hoodie.datasource.write.partitionpath.urlencode."
    )
    CONDITIONAL_SYNC = ConfigOption(
        "hoodie.datasource.meta_sync.condition.sync", parse_bool, False,
        "Update last_commit_time_sync only when schema, properties or partitions changed."
    )
    INCREMENTAL = ConfigOption(
        "hoodie.meta.sync.incremental", parse_bool, True,
        "Sync only partitions touched since last_commit_time_sync (else list all partitions)."
    )
    SPARK_VERSION = ConfigOption(
        "hoodie.meta_sync.spark.version", parse_str, "",
        "Value of spark.sql.create.version; defaults to the running PySpark's version."
    )


def parse_key_values(text: str | None) -> dict[str, str]:
    """Hudi's ``ConfigUtils.toMap``: one ``key=value`` per line (blank lines skipped)."""
    out: dict[str, str] = {}
    for line in (text or "").split("\n"):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise HudiConfigError(f"Property line {line!r} is not key=value.", help="write one key=value per line")
        out[key.strip()] = value.strip()
    return out


@dataclass(frozen=True)
class HiveSyncSettings:
    """Every hive sync option resolved for one table: explicit value, else inferred, else Hudi's default."""

    mode: HiveSyncMode
    database: str
    table: str
    partition_fields: tuple[str, ...]
    partition_extractor_class: str
    jdbc_url: str = "jdbc:hive2://localhost:10000"
    metastore_uris: str = "thrift://localhost:9083"
    username: str = "hive"
    password: str = "hive"
    auto_create_database: bool = True
    ignore_exceptions: bool = False
    skip_ro_suffix: bool = False
    support_timestamp: bool = False
    sync_as_datasource: bool = True
    sync_as_manifest: bool = False
    schema_string_length_threshold: int = 4000
    create_managed_table: bool = False
    omit_metadata_fields: bool = False
    batch_num: int = 1000
    base_file_format: str = "PARQUET"
    use_pre_apache_input_format: bool = False
    table_strategy: str = "ALL"
    decode_partition: bool = False
    conditional_sync: bool = False
    incremental: bool = True
    spark_version: str = ""
    table_properties: Mapping[str, str] = field(default_factory=dict)
    serde_properties: Mapping[str, str] = field(default_factory=dict)


def _strip_field_types(fields: str) -> tuple[str, ...]:
    """``a:simple,b:timestamp`` (CustomKeyGenerator) -> ``(a, b)``."""
    return tuple(part.split(":", 1)[0].strip() for part in fields.split(",") if part.strip())


def _infer_extractor(partition_fields: tuple[str, ...], hive_style: bool) -> str:
    if not partition_fields:
        return _EXTRACTOR_PREFIX + "NonPartitionedExtractor"
    if len(partition_fields) == 1:
        return _EXTRACTOR_PREFIX + ("HiveStylePartitionValueExtractor" if hive_style
                                    else "SinglePartPartitionValueExtractor")
    return _EXTRACTOR_PREFIX + "MultiPartKeysValueExtractor"


def resolve_sync_settings(
    options: Mapping[str, object] | HudiConfigs,
    table_properties: Mapping[str, str] | None = None,
) -> HiveSyncSettings:
    """Resolve the hive sync options of one table, applying Hudi's inference rules.

    Args:
        options: write/sync options (``hoodie.datasource.hive_sync.*`` and friends).
        table_properties: the table's ``hoodie.properties``; inference reads them.

    Raises:
        HudiConfigError: a value does not parse, or a mode is unknown.
    """
    configs = options if isinstance(options, HudiConfigs) else HudiConfigs.of(options, validate=False)
    props = dict(table_properties or {})
    table = TableConfig.of(props)  # the table's side, read by the rules every reader of it follows
    both = HudiConfigs.layered(props, configs.raw())  # the write's options over the table's

    def pick(key: ConfigOption[object], inferred: object = None) -> object:
        if configs.is_set(key):
            return configs.get(key)
        return key.default if inferred is None else inferred

    mode = configs.get(HiveSyncConfig.MODE)
    if mode is None:
        mode = HiveSyncMode.JDBC if configs.get(HiveSyncConfig.USE_JDBC) else HiveSyncMode.HIVEQL

    inferred_fields = table.partition_fields or _strip_field_types(
        ",".join(both.get(HudiWriteConfig.PARTITION_PATH_FIELDS)))
    partition_fields = (_strip_field_types(str(configs.get(HiveSyncConfig.PARTITION_FIELDS)))
                        if configs.is_set(HiveSyncConfig.PARTITION_FIELDS) else inferred_fields)
    hive_style = bool(both.get(HudiWriteConfig.HIVE_STYLE_PARTITIONING))
    url_encoded = bool(both.get(HudiWriteConfig.URL_ENCODE_PARTITIONING))
    base_format = table.base_file_format if HudiTableConfig.BASE_FILE_FORMAT.key in props else None

    spark_version = str(configs.get(HiveSyncConfig.SPARK_VERSION))
    if not spark_version:
        try:
            import pyspark

            spark_version = str(pyspark.__version__)
        except ImportError:  # pragma: no cover - pyspark is a dependency
            spark_version = ""

    return HiveSyncSettings(
        mode=mode,
        database=str(pick(HiveSyncConfig.DATABASE,
                          table.database_name if HudiTableConfig.DATABASE_NAME.key in props else None)),
        table=str(pick(HiveSyncConfig.TABLE, table.name or both.get(HudiTableConfig.NAME))),
        partition_fields=partition_fields,
        partition_extractor_class=str(pick(HiveSyncConfig.PARTITION_EXTRACTOR_CLASS,
                                           _infer_extractor(partition_fields, hive_style))),
        jdbc_url=str(configs.get(HiveSyncConfig.JDBC_URL)),
        metastore_uris=str(configs.get(HiveSyncConfig.METASTORE_URIS)),
        username=str(configs.get(HiveSyncConfig.USERNAME)),
        password=str(configs.get(HiveSyncConfig.PASSWORD)),
        auto_create_database=bool(configs.get(HiveSyncConfig.AUTO_CREATE_DATABASE)),
        ignore_exceptions=bool(configs.get(HiveSyncConfig.IGNORE_EXCEPTIONS)),
        skip_ro_suffix=bool(configs.get(HiveSyncConfig.SKIP_RO_SUFFIX)),
        support_timestamp=bool(configs.get(HiveSyncConfig.SUPPORT_TIMESTAMP)),
        sync_as_datasource=bool(configs.get(HiveSyncConfig.SYNC_AS_DATASOURCE))
        and not configs.get(HiveSyncConfig.SYNC_AS_MANIFEST),
        sync_as_manifest=bool(configs.get(HiveSyncConfig.SYNC_AS_MANIFEST)),
        schema_string_length_threshold=int(configs.get(HiveSyncConfig.SCHEMA_STRING_LENGTH_THRESHOLD)),
        create_managed_table=bool(configs.get(HiveSyncConfig.CREATE_MANAGED_TABLE)),
        omit_metadata_fields=bool(configs.get(HiveSyncConfig.OMIT_METADATA_FIELDS)),
        batch_num=max(1, int(configs.get(HiveSyncConfig.BATCH_NUM))),
        base_file_format=str(pick(HiveSyncConfig.BASE_FILE_FORMAT, base_format)).upper(),
        use_pre_apache_input_format=bool(configs.get(HiveSyncConfig.USE_PRE_APACHE_INPUT_FORMAT)),
        table_strategy=str(configs.get(HiveSyncConfig.TABLE_STRATEGY)).upper(),
        decode_partition=bool(pick(HiveSyncConfig.DECODE_PARTITION, url_encoded or None)),
        conditional_sync=bool(configs.get(HiveSyncConfig.CONDITIONAL_SYNC)),
        incremental=bool(configs.get(HiveSyncConfig.INCREMENTAL)),
        spark_version=spark_version,
        table_properties=parse_key_values(configs.get(HiveSyncConfig.TABLE_PROPERTIES)),
        serde_properties=parse_key_values(configs.get(HiveSyncConfig.SERDE_PROPERTIES)),
    )
