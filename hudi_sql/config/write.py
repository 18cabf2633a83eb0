"""Write-scope options: the datasource keys an Apache Hudi Spark job passes to a write."""

from __future__ import annotations

__all__ = ["HudiWriteConfig", "IndexType"]

from enum import Enum

from hudi_sql.config.operation import WriteOperationType
from hudi_sql.config.registry import (
    NO_VALUES,
    ConfigOption,
    ConfigScope,
    parse_bool,
    parse_enum_name,
    parse_float,
    parse_int,
    parse_list,
    parse_str,
)
from hudi_sql.config.table import TableType
from hudi_sql.model.payload import parse_payload_class


class IndexType(str, Enum):
    SIMPLE = "SIMPLE"
    GLOBAL_SIMPLE = "GLOBAL_SIMPLE"
    BLOOM = "BLOOM"
    GLOBAL_BLOOM = "GLOBAL_BLOOM"
    BUCKET = "BUCKET"

    @classmethod
    def parse(cls, value: str) -> IndexType:
        return parse_enum_name(cls, value, "an index type")

    @property
    def is_global(self) -> bool:
        return self in (IndexType.GLOBAL_SIMPLE, IndexType.GLOBAL_BLOOM)


_MB = 1024 * 1024


class HudiWriteConfig(ConfigScope):
    """Options of a write: operation, keys, index, file sizing, markers (write scope)."""

    TABLE_NAME = ConfigOption("hoodie.datasource.write.table.name", parse_str, None,
                  "Table name for a new table (hoodie.table.name is read first).")
    TABLE_TYPE = ConfigOption("hoodie.datasource.write.table.type", TableType.parse, TableType.COPY_ON_WRITE,
                  "COPY_ON_WRITE or MERGE_ON_READ, for a new table.")
    WRITE_TABLE_VERSION = ConfigOption(
        "hoodie.write.table.version", parse_int, None,
        "Table version a write creates a new table at: 6 (the default, Apache Hudi 0.14 / 0.15), 8 "
        "(Apache Hudi 1.0) or 9 (Apache Hudi 1.1 / 1.2's default). On an existing table, a higher version "
        "upgrades it first (with hoodie.write.auto.upgrade); any other difference from the table's "
        "version fails.",
        choices=("6", "8", "9"))
    ALLOW_EMPTY_COMMIT = ConfigOption(
        "hoodie.allow.empty.commit", parse_bool, True,
        "Commit a write that has no records (an UPDATE or DELETE matching nothing, an empty DataFrame) as "
        "Apache Hudi does, so the timeline records that it ran; false skips the commit.")
    AUTO_UPGRADE = ConfigOption(
        "hoodie.write.auto.upgrade", parse_bool, True,
        "Upgrade a table whose version is below hoodie.write.table.version before writing it (Apache Hudi 1.x).")
    OPERATION = ConfigOption("hoodie.datasource.write.operation", WriteOperationType.parse, WriteOperationType.UPSERT,
                 "upsert, insert, bulk_insert, delete, insert_overwrite, insert_overwrite_table, delete_partition.")
    RECORD_KEY_FIELDS = ConfigOption("hoodie.datasource.write.recordkey.field", parse_list, NO_VALUES,
                         "Record key column(s), comma-separated.")
    PARTITION_PATH_FIELDS = ConfigOption("hoodie.datasource.write.partitionpath.field", parse_list, NO_VALUES,
                             "Partition column(s), comma-separated; for the custom key generator "
                             "'field:SIMPLE' or 'field:TIMESTAMP'.")
    PRECOMBINE_FIELD = ConfigOption("hoodie.datasource.write.precombine.field", parse_str, None,
                        "Ordering column: of two records with one key, the greater value wins.")
    KEY_GENERATOR_CLASS = ConfigOption("hoodie.datasource.write.keygenerator.class", parse_str, None,
                           "Key generator by Hudi class name (org.apache.hudi.keygen.SimpleKeyGenerator, ...).")
    KEY_GENERATOR_TYPE = ConfigOption("hoodie.datasource.write.keygenerator.type", parse_str, None,
                          "Key generator by type: SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM.")
    COMPLEX_KEYGEN_NEW_ENCODING = ConfigOption("hoodie.write.complex.keygen.new.encoding", parse_bool, False,
                                   "ComplexKeyGenerator with one key field writes 'value' (true) or 'field:value' (false); unset: "
                                   "as the table's stored keys, else 'value' on version 6 (Apache Hudi 0.15) and "
                                   "'field:value' on 8 and 9.")
    CONSISTENT_LOGICAL_TIMESTAMP = ConfigOption(
        "hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled", parse_bool, False,
        "Keys of timestamp columns as in the Avro path with logical types (true is not supported).")
    SQL_ORIGIN_KEYGEN_CLASS = ConfigOption("hoodie.sql.origin.keygen.class", parse_str, None,
                               "Internal: the key generator wrapped by Hudi's SqlKeyGenerator.")
    HIVE_STYLE_PARTITIONING = ConfigOption("hoodie.datasource.write.hive_style_partitioning", parse_bool, False,
                               "Partition folders named field=value.")
    URL_ENCODE_PARTITIONING = ConfigOption("hoodie.datasource.write.partitionpath.urlencode", parse_bool, False,
                               "Escape partition values the Hive way.")
    POPULATE_META_FIELDS = ConfigOption("hoodie.populate.meta.fields", parse_bool, True,
                            "Fill _hoodie_commit_time, _hoodie_record_key, ... in every row.")
    PAYLOAD_CLASS = ConfigOption(
        "hoodie.datasource.write.payload.class", parse_payload_class, None,
        "Payload class (merge semantics) by Java class name: org.apache.hudi.common.model. followed by "
        "OverwriteWithLatestAvroPayload, OverwriteNonDefaultsWithLatestAvroPayload, DefaultHoodieRecordPayload, "
        "EventTimeAvroPayload, PartialUpdateAvroPayload or AWSDmsAvroPayload.")
    DATABASE_NAME = ConfigOption("hoodie.database.name", parse_str, "default", "Database of a new table.")
    COMBINE_BEFORE_INSERT = ConfigOption("hoodie.combine.before.insert", parse_bool, False,
                             "Deduplicate a batch by key on insert / bulk_insert too.")
    COMBINE_BEFORE_UPSERT = ConfigOption("hoodie.combine.before.upsert", parse_bool, True,
                             "Deduplicate a batch by key before an upsert.")
    INDEX_TYPE = ConfigOption("hoodie.index.type", IndexType.parse, IndexType.SIMPLE,
                  "How updates find their file group: SIMPLE, GLOBAL_SIMPLE, BLOOM, GLOBAL_BLOOM, BUCKET.")
    SIMPLE_INDEX_UPDATE_PARTITION_PATH = ConfigOption(
        "hoodie.simple.index.update.partition.path", parse_bool, True,
        "GLOBAL_SIMPLE: an update with a new partition moves the record.")
    BLOOM_INDEX_UPDATE_PARTITION_PATH = ConfigOption(
        "hoodie.bloom.index.update.partition.path", parse_bool, True,
        "GLOBAL_BLOOM: an update with a new partition moves the record.")
    BLOOM_PRUNE_BY_RANGES = ConfigOption("hoodie.bloom.index.prune.by.ranges", parse_bool, True,
                             "Bloom index: skip files whose key range cannot hold the key.")
    BLOOM_NUM_ENTRIES = ConfigOption("hoodie.index.bloom.num_entries", parse_int, 60000, "Bloom filter entries per row.")
    BLOOM_FPP = ConfigOption("hoodie.index.bloom.fpp", parse_float, 0.000000001, "Bloom filter false-positive rate.")
    BLOOM_FILTER_TYPE = ConfigOption("hoodie.bloom.index.filter.type", parse_str, "DYNAMIC_V0", "Bloom filter type.",
                         ("DYNAMIC_V0", "SIMPLE"))
    BLOOM_DYNAMIC_MAX_ENTRIES = ConfigOption("hoodie.bloom.index.filter.dynamic.max.entries", parse_int, 100000,
                                 "Dynamic bloom filter bound.")
    BUCKET_NUM = ConfigOption("hoodie.bucket.index.num.buckets", parse_int, 256, "BUCKET index: buckets per partition.", minimum=1)
    BUCKET_HASH_FIELD = ConfigOption("hoodie.bucket.index.hash.field", parse_str, None,
                         "BUCKET index: hash field(s); defaults to the record key fields.")
    PARQUET_MAX_FILE_SIZE = ConfigOption("hoodie.parquet.max.file.size", parse_int, 120 * _MB, "Target base file size.", minimum=1)
    PARQUET_SMALL_FILE_LIMIT = ConfigOption("hoodie.parquet.small.file.limit", parse_int, 100 * _MB,
                                "Base files below this size receive inserts first (0 turns it off).", minimum=0)
    PARQUET_COMPRESSION = ConfigOption("hoodie.parquet.compression.codec", parse_str, "gzip", "Parquet codec.",
                           ("gzip", "snappy", "zstd", "uncompressed", "none", "lz4"))
    PARQUET_BLOCK_SIZE = ConfigOption("hoodie.parquet.block.size", parse_int, 120 * _MB, "Parquet row group size.", minimum=1)
    PARQUET_PAGE_SIZE = ConfigOption("hoodie.parquet.page.size", parse_int, 1 * _MB,
                                     "Parquet data page size (the unit a reader decompresses).", minimum=1)
    PARQUET_DICTIONARY_ENABLED = ConfigOption(
        "hoodie.parquet.dictionary.enabled", parse_bool, True,
        "Dictionary-encode columns whose values repeat (decided per column and file from a sample, as "
        "parquet-java falls back to plain encoding for columns of mostly distinct values).")
    RECORD_SIZE_ESTIMATE = ConfigOption("hoodie.copyonwrite.record.size.estimate", parse_int, 1024,
                            "Bytes per record assumed before any commit says better.")
    RECORD_SIZE_ESTIMATION_THRESHOLD = ConfigOption(
        "hoodie.record.size.estimation.threshold", parse_float, 1.0,
        "Use a commit's statistics when it wrote more than threshold x small-file-limit bytes.")
    INSERT_SPLIT_SIZE = ConfigOption("hoodie.copyonwrite.insert.split.size", parse_int, 500000,
                         "Records per new file group when sizing is unknown.")
    AUTO_TUNE_INSERT_SPLITS = ConfigOption("hoodie.copyonwrite.insert.auto.split", parse_bool, True,
                               "Size new file groups from the record size estimate.")
    BULK_INSERT_SORT_MODE = ConfigOption("hoodie.bulkinsert.sort.mode", parse_str, "NONE", "bulk_insert sort mode.",
                             ("NONE", "GLOBAL_SORT", "PARTITION_SORT"))
    SHUFFLE_PARALLELISM = ConfigOption("hoodie.upsert.shuffle.parallelism", parse_int, 0,
                           "Apache Hudi's shuffle parallelism of a write; hudi-sql sizes a write's tasks from the "
                           "cluster's cores and the files it writes.",
                           (), ("hoodie.insert.shuffle.parallelism", "hoodie.bulkinsert.shuffle.parallelism"), False,
                           minimum=0)
    PARTITIONS_TO_DELETE = ConfigOption("hoodie.datasource.write.partitions.to.delete", parse_list, NO_VALUES,
                            "delete_partition: partitions to drop (wildcards allowed).")
    STATIC_OVERWRITE_PARTITIONS = ConfigOption(
        "hoodie.static.overwrite.partition.paths", parse_list, NO_VALUES,
        "insert_overwrite: partitions replaced whatever the batch holds (set by a static-mode SQL INSERT OVERWRITE "
        "with partition values; those partitions are emptied even when the query returns no rows).")
    OVERWRITE_MODE = ConfigOption("hoodie.datasource.overwrite.mode", parse_str, None,
                      "SQL INSERT OVERWRITE: STATIC or DYNAMIC (unset: spark.sql.sources.partitionOverwriteMode).",
                      ("STATIC", "DYNAMIC"))
    COMMIT_METADATA_KEY_PREFIX = ConfigOption(
        "hoodie.datasource.write.commitmeta.key.prefix", parse_str, "_",
        "Options whose keys start with this prefix are stored in the commit's extra metadata (a pipeline's "
        "checkpoint, the streaming sink's batch ids); an empty prefix stores none.")
    MARKERS_TYPE = ConfigOption("hoodie.write.markers.type", parse_str, "DIRECT", "DIRECT or TIMELINE_SERVER_BASED.",
                    ("DIRECT", "TIMELINE_SERVER_BASED"))
    ROLLBACK_USING_MARKERS = ConfigOption("hoodie.rollback.using.markers", parse_bool, True,
                              "Find a failed write's files through its markers.")
    FAILED_WRITES_CLEANER_POLICY = ConfigOption("hoodie.cleaner.policy.failed.writes", parse_str, "EAGER",
                                    "EAGER: the next write rolls back failed writes.", ("EAGER", "LAZY", "NEVER"))
    INSERT_DROP_DUPS = ConfigOption("hoodie.datasource.write.insert.drop.duplicates", parse_bool, False,
                        "Insert: drop incoming records whose key already exists.")
    INSERT_DUP_POLICY = ConfigOption("hoodie.datasource.insert.dup.policy", parse_str, "none",
                         "SQL insert into a keyed table: none, drop or fail on existing keys.",
                         ("none", "drop", "fail"))
    SQL_INSERT_INTO_OPERATION = ConfigOption(
        "hoodie.spark.sql.insert.into.operation", parse_str, None,
        "SQL INSERT INTO: insert, upsert or bulk_insert (unset: upsert when the table has an ordering field, "
        "else insert).", ("insert", "upsert", "bulk_insert"))
    SQL_INSERT_MODE = ConfigOption(
        "hoodie.sql.insert.mode", parse_str, None,
        "Older scripts' SQL INSERT INTO mode, honoured on table version 6 when "
        "hoodie.spark.sql.insert.into.operation is unset: upsert, strict (as upsert, and a Copy-On-Write "
        "INSERT of an existing key fails) or non-strict (insert; bulk_insert with hoodie.sql.bulk.insert.enable).",
        ("upsert", "strict", "non-strict"))
    SQL_ENABLE_BULK_INSERT = ConfigOption(
        "hoodie.sql.bulk.insert.enable", parse_bool, False,
        "With hoodie.sql.insert.mode=non-strict, INSERT INTO runs as bulk_insert (refused in the other modes).")
    MERGE_INTO_PARTIAL_UPDATES = ConfigOption(
        "hoodie.spark.sql.merge.into.partial.updates", parse_bool, True,
        "MERGE INTO a Merge-On-Read table of version 8 or later whose UPDATE SET assigns some of the columns: "
        "the log block of the updated records holds only those (a partial update, IS_PARTIAL=true), as "
        "Apache Hudi 1.x writes it; false: whole records.")
    PARTIAL_UPDATE_SCHEMA = ConfigOption(
        "hoodie.write.partial.update.schema", parse_str, None,
        "The Avro schema of the columns a partial update writes (MERGE INTO sets it): the log blocks of the "
        "write's updates hold only these and the meta fields.")
    LOGFILE_MAX_SIZE = ConfigOption("hoodie.logfile.max.size", parse_int, 1024 * _MB, "Log file roll-over size.")
    LOGFILE_DATA_BLOCK_FORMAT = ConfigOption("hoodie.logfile.data.block.format", parse_str, "avro",
                                 "Log data block format.", ("avro", "parquet"))
    LOGFILE_DATA_BLOCK_MAX_SIZE = ConfigOption("hoodie.logfile.data.block.max.size", parse_int, 256 * _MB,
                                   "Largest log data block.")
    # Accepted so that Apache Hudi jobs carry over; they change nothing here.
    RECORD_MERGER_IMPLS = ConfigOption("hoodie.datasource.write.record.merger.impls", parse_str, None,
                           "JVM record merger classes.", (), (), False)
    SCHEMA_ON_READ = ConfigOption("hoodie.schema.on.read.enable", parse_bool, False, "Schema-on-read evolution.", (), (), False)
    EMBED_TIMELINE_SERVER = ConfigOption("hoodie.embed.timeline.server", parse_bool, True, "JVM timeline server.",
                             (), (), False)
    RECONCILE_SCHEMA = ConfigOption("hoodie.datasource.write.reconcile.schema", parse_bool, False,
                        "Reconcile the batch schema with the table schema.", (), (), False)
