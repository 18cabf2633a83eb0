"""Keys of ``.hoodie/hoodie.properties`` (table scope): fixed when the table is created."""

from __future__ import annotations

__all__ = ["CdcLoggingMode", "HudiTableConfig", "TableType"]

from enum import Enum

from hudi_sql.config.registry import (
    NO_VALUES,
    ConfigOption,
    ConfigScope,
    parse_bool,
    parse_int,
    parse_list,
    parse_str,
)

#: Prefix of the older (DeltaStreamer) names of the key generator options, still accepted by
#: Apache Hudi 0.15 as alternatives (``hoodie.deltastreamer.keygen.timebased.*``).
_DELTASTREAMER = "hoodie.deltastreamer."


class TableType(str, Enum):
    COPY_ON_WRITE = "COPY_ON_WRITE"
    MERGE_ON_READ = "MERGE_ON_READ"

    @classmethod
    def parse(cls, value: str) -> TableType:
        """Accepts Hudi's enum names and the SQL short forms ``cow`` / ``mor``, any case."""
        lowered = value.strip().lower()
        if lowered in ("cow", "copy_on_write"):
            return cls.COPY_ON_WRITE
        if lowered in ("mor", "merge_on_read"):
            return cls.MERGE_ON_READ
        raise ValueError(f"'{value}' is not a table type (COPY_ON_WRITE, MERGE_ON_READ, cow, mor)")


class CdcLoggingMode(str, Enum):
    """What a change data capture log records per changed row (Apache Hudi's
    ``HoodieCDCSupplementalLoggingMode``): the less it holds, the more a CDC query reads back
    from the file slices before and after the write."""

    OP_KEY_ONLY = "OP_KEY_ONLY"
    DATA_BEFORE = "DATA_BEFORE"
    DATA_BEFORE_AFTER = "DATA_BEFORE_AFTER"

    @classmethod
    def parse(cls, value: str) -> CdcLoggingMode:
        """Accepts the names in any case (Apache Hudi's SQL examples write them in lower case)."""
        try:
            return cls(value.strip().upper())
        except ValueError:
            raise ValueError(f"'{value}' is not a CDC logging mode (op_key_only, data_before, "
                             "data_before_after)") from None


class HudiTableConfig(ConfigScope):
    """Keys of `.hoodie/hoodie.properties`: fixed when a table is created (table scope)."""

    NAME = ConfigOption("hoodie.table.name", parse_str, None, "Table name; required.")
    TYPE = ConfigOption("hoodie.table.type", TableType.parse, TableType.COPY_ON_WRITE, "COPY_ON_WRITE or MERGE_ON_READ.")
    VERSION = ConfigOption("hoodie.table.version", parse_int, 6, "Table version; hudi-sql writes version 6.")
    TIMELINE_LAYOUT_VERSION = ConfigOption("hoodie.timeline.layout.version", parse_int, 1, "Timeline layout; 1 for v6.")
    CHECKSUM = ConfigOption("hoodie.table.checksum", parse_int, None, "CRC32 of '<database>.<table>'.")
    DATABASE_NAME = ConfigOption("hoodie.database.name", parse_str, "default", "Database the table belongs to.")
    RECORD_KEY_FIELDS = ConfigOption("hoodie.table.recordkey.fields", parse_list, NO_VALUES, "Record key columns.")
    PRECOMBINE_FIELD = ConfigOption("hoodie.table.precombine.field", parse_str, None, "Ordering column.")
    PARTITION_FIELDS = ConfigOption("hoodie.table.partition.fields", parse_list, NO_VALUES, "Partition columns.")
    KEY_GENERATOR_CLASS = ConfigOption("hoodie.table.keygenerator.class", parse_str, None, "Key generator class name.")
    HIVE_STYLE_PARTITIONING = ConfigOption(
        "hoodie.datasource.write.hive_style_partitioning", parse_bool, False, "Partition folders as field=value."
    )
    URL_ENCODE_PARTITIONING = ConfigOption(
        "hoodie.datasource.write.partitionpath.urlencode", parse_bool, False, "URL-encode partition values."
    )
    DROP_PARTITION_COLUMNS = ConfigOption(
        "hoodie.datasource.write.drop.partition.columns", parse_bool, False,
        "Drop partition columns from data files (not supported: readers refuse it).",
    )
    POPULATE_META_FIELDS = ConfigOption("hoodie.populate.meta.fields", parse_bool, True, "Fill the _hoodie_* columns.")
    BASE_FILE_FORMAT = ConfigOption("hoodie.table.base.file.format", parse_str, "PARQUET",
                                    "Base file format (HFILE: the metadata table's).", ("PARQUET", "HFILE"))
    ARCHIVELOG_FOLDER = ConfigOption("hoodie.archivelog.folder", parse_str, "archived", "Archived timeline folder.")
    TIMELINE_TIMEZONE = ConfigOption(
        "hoodie.table.timeline.timezone", parse_str, "UTC", "Time zone of instant times.", ("UTC", "LOCAL")
    )
    CREATE_SCHEMA = ConfigOption("hoodie.table.create.schema", parse_str, None, "Avro schema of the data columns.")
    PAYLOAD_CLASS = ConfigOption(
        "hoodie.compaction.payload.class", parse_str,
        "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload", "Record payload (merge semantics).",
    )
    RECORD_MERGER_STRATEGY = ConfigOption(
        "hoodie.compaction.record.merger.strategy", parse_str, "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5",
        "Record merger strategy id.",
    )
    TIMESTAMP_TYPE = ConfigOption(
        "hoodie.keygen.timebased.timestamp.type", parse_str, None,
        "TimestampBasedKeyGenerator input type.",
        ("UNIX_TIMESTAMP", "DATE_STRING", "MIXED", "EPOCHMILLISECONDS", "EPOCHMICROSECONDS", "SCALAR"),
        aliases=(_DELTASTREAMER + "keygen.timebased.timestamp.type",),
    )
    TIMESTAMP_INPUT_FORMAT = ConfigOption(
        "hoodie.keygen.timebased.input.dateformat", parse_str, "", "Input format for DATE_STRING timestamps.",
        aliases=(_DELTASTREAMER + "keygen.timebased.input.dateformat",),
    )
    TIMESTAMP_OUTPUT_FORMAT = ConfigOption(
        "hoodie.keygen.timebased.output.dateformat", parse_str, "", "Partition path format of timestamps.",
        aliases=(_DELTASTREAMER + "keygen.timebased.output.dateformat",),
    )
    TIMESTAMP_TIMEZONE = ConfigOption(
        "hoodie.keygen.timebased.timezone", parse_str, "UTC", "Time zone of timestamp-based partition paths.",
        aliases=(_DELTASTREAMER + "keygen.timebased.timezone",),
    )
    TIMESTAMP_SCALAR_UNIT = ConfigOption(
        "hoodie.keygen.timebased.timestamp.scalar.time.unit", parse_str, "SECONDS", "Unit of SCALAR timestamps.",
        aliases=(_DELTASTREAMER + "keygen.timebased.timestamp.scalar.time.unit",),
    )
    TIMESTAMP_INPUT_TIMEZONE = ConfigOption(
        "hoodie.keygen.timebased.input.timezone", parse_str, None,
        "Time zone of DATE_STRING input values without an offset (unset: the Spark session time zone); "
        "hoodie.keygen.timebased.timezone, when set, wins.",
        aliases=(_DELTASTREAMER + "keygen.timebased.input.timezone",),
    )
    TIMESTAMP_OUTPUT_TIMEZONE = ConfigOption(
        "hoodie.keygen.timebased.output.timezone", parse_str, None,
        "Time zone the partition path is formatted in (unset: the Spark session time zone); "
        "hoodie.keygen.timebased.timezone, when set, wins.",
        aliases=(_DELTASTREAMER + "keygen.timebased.output.timezone",),
    )
    TIMESTAMP_INPUT_FORMAT_DELIMITER = ConfigOption(
        "hoodie.keygen.timebased.input.dateformat.list.delimiter.regex", parse_str, ",",
        "Regex separating several input date formats (the first that parses wins).",
        aliases=(_DELTASTREAMER + "keygen.timebased.input.dateformat.list.delimiter.regex",),
    )
    DATETIME_PARSER_CLASS = ConfigOption(
        "hoodie.keygen.datetime.parser.class", parse_str, "org.apache.hudi.keygen.parser.HoodieDateTimeParser",
        "Date-time parser of the timestamp key generator; only Hudi's default parser is supported.",
        aliases=(_DELTASTREAMER + "keygen.datetime.parser.class",),
    )
    METADATA_PARTITIONS = ConfigOption(
        "hoodie.table.metadata.partitions", parse_str, "",
        "Metadata table partitions that are complete (sorted, comma-separated): files, and column_stats "
        "and bloom_filters when those indexes are on. Readers use the metadata table only when files is listed.",
    )
    METADATA_PARTITIONS_INFLIGHT = ConfigOption(
        "hoodie.table.metadata.partitions.inflight", parse_str, "",
        "Metadata table partitions being built (none: hudi-sql builds a partition within one write).",
    )
    CDC_ENABLED = ConfigOption(
        "hoodie.table.cdc.enabled", parse_bool, False,
        "Change data capture: writers that rewrite a base file also write a CDC log beside it, and "
        "incremental queries can return the changes (op, ts_ms, before, after).",
    )
    CDC_SUPPLEMENTAL_LOGGING_MODE = ConfigOption(
        "hoodie.table.cdc.supplemental.logging.mode", CdcLoggingMode.parse, CdcLoggingMode.DATA_BEFORE_AFTER,
        "What a CDC log holds per change: op_key_only, data_before, or data_before_after (the images in full).",
    )
    LOG_FILE_FORMAT = ConfigOption("hoodie.table.log.file.format", parse_str, "HOODIE_LOG", "Log file format.")
    # -- table version 8 (Apache Hudi 1.x); read by hudi_sql/table/version.py and the meta client --
    TIMELINE_PATH = ConfigOption(
        "hoodie.timeline.path", parse_str, "timeline", "Layout 2 (version 8): folder of the timeline under .hoodie/."
    )
    TIMELINE_HISTORY_PATH = ConfigOption(
        "hoodie.timeline.history.path", parse_str, "history",
        "Layout 2 (version 8): folder of the LSM archived timeline under the timeline folder.",
    )
    INITIAL_VERSION = ConfigOption("hoodie.table.initial.version", parse_int, None, "Version the table was created at (8+).")
    RECORD_MERGE_MODE = ConfigOption(
        "hoodie.record.merge.mode", parse_str, None,
        "Version 8: how records of one key merge: COMMIT_TIME_ORDERING (the latest write wins), "
        "EVENT_TIME_ORDERING (the greatest ordering value wins) or CUSTOM.",
        ("COMMIT_TIME_ORDERING", "EVENT_TIME_ORDERING", "CUSTOM"),
    )
    RECORD_MERGE_STRATEGY_ID = ConfigOption(
        "hoodie.record.merge.strategy.id", parse_str, None, "Version 8: id of the record merger strategy."
    )
    ORDERING_FIELDS = ConfigOption(
        "hoodie.table.ordering.fields", parse_list, NO_VALUES,
        "Version 9 name of the ordering columns (version 8 keeps hoodie.table.precombine.field).",
    )
    PARTIAL_UPDATE_MODE = ConfigOption(
        "hoodie.table.partial.update.mode", parse_str, None,
        "Version 9: which incoming field values keep the stored value instead (IGNORE_DEFAULTS, "
        "FILL_UNAVAILABLE, ...); unset or NONE for whole-record merges.",
    )
    LEGACY_PAYLOAD_CLASS = ConfigOption(
        "hoodie.table.legacy.payload.class", parse_str, None,
        "Version 9: the payload class a version 8 table named, kept for the record after the "
        "upgrade replaced it by a merge mode.",
    )
    MERGE_DELETE_FIELD = ConfigOption(
        "hoodie.record.merge.property.hoodie.payload.delete.field", parse_str, None,
        "Version 9: a column whose value (the delete marker) makes a record a delete (AWS DMS: Op).",
    )
    MERGE_DELETE_MARKER = ConfigOption(
        "hoodie.record.merge.property.hoodie.payload.delete.marker", parse_str, None,
        "Version 9: the value of the delete field that marks a delete (AWS DMS: D).",
    )
    TABLE_FORMAT = ConfigOption(
        "hoodie.table.format", parse_str, "native",
        "Version 9: the table's format; native is Hudi's own timeline and files.",
    )
    KEY_GENERATOR_TYPE = ConfigOption(
        "hoodie.table.keygenerator.type", parse_str, None, "Version 8: key generator type (SIMPLE, COMPLEX, ...)."
    )
