"""Keys of ``.hoodie/hoodie.properties`` (table scope): fixed when the table is created."""

from __future__ import annotations

__all__ = ["HudiTableConfig", "TableType"]

from enum import Enum

from hudi_sql.config.registry import ConfigEnum, parse_bool, parse_int, parse_list, parse_str


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


class HudiTableConfig(ConfigEnum):
    """Keys of `.hoodie/hoodie.properties`: fixed when a table is created (table scope)."""

    NAME = ("hoodie.table.name", parse_str, None, "Table name; required.")
    TYPE = ("hoodie.table.type", TableType.parse, TableType.COPY_ON_WRITE, "COPY_ON_WRITE or MERGE_ON_READ.")
    VERSION = ("hoodie.table.version", parse_int, 6, "Table version; hudi-sql writes version 6.")
    TIMELINE_LAYOUT_VERSION = ("hoodie.timeline.layout.version", parse_int, 1, "Timeline layout; 1 for v6.")
    CHECKSUM = ("hoodie.table.checksum", parse_int, None, "CRC32 of '<database>.<table>'.")
    DATABASE_NAME = ("hoodie.database.name", parse_str, "default", "Database the table belongs to.")
    RECORD_KEY_FIELDS = ("hoodie.table.recordkey.fields", parse_list, (), "Record key columns.")
    PRECOMBINE_FIELD = ("hoodie.table.precombine.field", parse_str, None, "Ordering column.")
    PARTITION_FIELDS = ("hoodie.table.partition.fields", parse_list, (), "Partition columns.")
    KEY_GENERATOR_CLASS = ("hoodie.table.keygenerator.class", parse_str, None, "Key generator class name.")
    HIVE_STYLE_PARTITIONING = (
        "hoodie.datasource.write.hive_style_partitioning", parse_bool, False, "Partition folders as field=value."
    )
    URL_ENCODE_PARTITIONING = (
        "hoodie.datasource.write.partitionpath.urlencode", parse_bool, False, "URL-encode partition values."
    )
    DROP_PARTITION_COLUMNS = (
        "hoodie.datasource.write.drop.partition.columns", parse_bool, False,
        "Drop partition columns from data files (not supported: readers refuse it).",
    )
    POPULATE_META_FIELDS = ("hoodie.populate.meta.fields", parse_bool, True, "Fill the _hoodie_* columns.")
    BASE_FILE_FORMAT = ("hoodie.table.base.file.format", parse_str, "PARQUET", "Base file format.", ("PARQUET",))
    ARCHIVELOG_FOLDER = ("hoodie.archivelog.folder", parse_str, "archived", "Archived timeline folder.")
    TIMELINE_TIMEZONE = (
        "hoodie.table.timeline.timezone", parse_str, "UTC", "Time zone of instant times.", ("UTC", "LOCAL")
    )
    CREATE_SCHEMA = ("hoodie.table.create.schema", parse_str, None, "Avro schema of the data columns.")
    PAYLOAD_CLASS = (
        "hoodie.compaction.payload.class", parse_str,
        "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload", "Record payload (merge semantics).",
    )
    RECORD_MERGER_STRATEGY = (
        "hoodie.compaction.record.merger.strategy", parse_str, "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5",
        "Record merger strategy id.",
    )
    TIMESTAMP_TYPE = (
        "hoodie.keygen.timebased.timestamp.type", parse_str, None,
        "TimestampBasedKeyGenerator input type.",
        ("UNIX_TIMESTAMP", "DATE_STRING", "MIXED", "EPOCHMILLISECONDS", "EPOCHMICROSECONDS", "SCALAR"),
    )
    TIMESTAMP_INPUT_FORMAT = (
        "hoodie.keygen.timebased.input.dateformat", parse_str, "", "Input format for DATE_STRING timestamps."
    )
    TIMESTAMP_OUTPUT_FORMAT = (
        "hoodie.keygen.timebased.output.dateformat", parse_str, "", "Partition path format of timestamps."
    )
    TIMESTAMP_TIMEZONE = (
        "hoodie.keygen.timebased.timezone", parse_str, "UTC", "Time zone of timestamp-based partition paths."
    )
    TIMESTAMP_SCALAR_UNIT = (
        "hoodie.keygen.timebased.timestamp.scalar.time.unit", parse_str, "SECONDS", "Unit of SCALAR timestamps."
    )
    TIMESTAMP_INPUT_TIMEZONE = (
        "hoodie.keygen.timebased.input.timezone", parse_str, None,
        "Time zone of DATE_STRING input values without an offset (unset: the Spark session time zone); "
        "hoodie.keygen.timebased.timezone, when set, wins.",
    )
    TIMESTAMP_OUTPUT_TIMEZONE = (
        "hoodie.keygen.timebased.output.timezone", parse_str, None,
        "Time zone the partition path is formatted in (unset: the Spark session time zone); "
        "hoodie.keygen.timebased.timezone, when set, wins.",
    )
    TIMESTAMP_INPUT_FORMAT_DELIMITER = (
        "hoodie.keygen.timebased.input.dateformat.list.delimiter.regex", parse_str, ",",
        "Regex separating several input date formats (the first that parses wins).",
    )
    DATETIME_PARSER_CLASS = (
        "hoodie.keygen.datetime.parser.class", parse_str, "org.apache.hudi.keygen.parser.HoodieDateTimeParser",
        "Date-time parser of the timestamp key generator; only Hudi's default parser is supported.",
    )
    METADATA_PARTITIONS = (
        "hoodie.table.metadata.partitions", parse_str, "", "Metadata table partitions (hudi-sql writes none)."
    )
    CDC_ENABLED = ("hoodie.table.cdc.enabled", parse_bool, False, "Change data capture logs (not supported).")
    LOG_FILE_FORMAT = ("hoodie.table.log.file.format", parse_str, "HOODIE_LOG", "Log file format.")
