"""Bootstrap: an existing Parquet table becomes a Hudi table (Apache Hudi's ``run_bootstrap``).

The source (Hive-style partitioned or not) is only ever read. A mode selector gives each of its
partitions a mode (:class:`~hudi_sql.config.BootstrapMode`), by Apache Hudi's selector classes:

* ``METADATA_ONLY`` (Apache Hudi's default): at the fixed instant ``00000000000001`` (operation
  ``BOOTSTRAP``), one skeleton file of meta columns per source file, written in Spark tasks
  (:mod:`hudi_sql.write.skeleton`), and the bootstrap index mapping each skeleton's file group
  to its source file (:mod:`hudi_sql.table.bootstrap_index`). The table's partitions are the
  source's folders, as in Apache Hudi. Reads stitch skeleton and source; an upsert rewrites the
  file groups it touches into regular base files.
* ``FULL_RECORD``: the partition's rows are written as regular base files, in one bulk insert
  at Apache Hudi's fixed instant ``00000000000002``, partitioned by the table's key generator.

A Hive-style source (folders ``field=value`` of the partition fields) gives a table with
Hive-style partitioning when any partition is bootstrapped metadata-only, unless the options
say otherwise: later writes then compute the partitions the skeletons sit in, and update them
in place. (Apache Hudi's procedure records Hive-style partitioning off there, so its next upsert
writes every key into a second partition beside its skeleton; ``docs/compatibility.md``.)

The new table records the source in ``hoodie.properties`` (``hoodie.bootstrap.base.path``) as
Apache Hudi does. A bootstrap either commits or leaves no table behind: when it fails, what it
created is removed (a table that existed before is refused unless ``bootstrap_overwrite``).
"""

from __future__ import annotations

__all__ = ["BootstrapRequest", "BootstrapResult", "hive_style_partitioning", "partition_modes", "run_bootstrap",
           "source_files", "source_partitions"]

import logging
import re
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hudi_sql.commit.transaction import Transaction, write_scope
from hudi_sql.config import (
    BootstrapMode,
    HudiBootstrapConfig,
    HudiConfigs,
    HudiTableConfig,
    HudiWriteConfig,
    TableType,
)
from hudi_sql.config.bootstrap import FULL_RECORD_SELECTOR, METADATA_ONLY_SELECTOR, REGEX_SELECTOR
from hudi_sql.config.registry import parse_list
from hudi_sql.config.scoped import BootstrapConfig
from hudi_sql.engine.write_client import WriteClient
from hudi_sql.errors import HudiConfigError, TableAlreadyExistsError, UnsupportedFeatureError
from hudi_sql.keygen import key_generator_for
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import FULL_BOOTSTRAP_INSTANT, METADATA_BOOTSTRAP_INSTANT, Action
from hudi_sql.read.bootstrap_read import source_partition_values
from hudi_sql.spark.hadoop_fs import spark_reads_path
from hudi_sql.spark.local_frame import task_frame
from hudi_sql.spark.schema import avro_schema_json
from hudi_sql.spark.task_errors import translated_task_errors
from hudi_sql.spark.tasks import WRITE_STATUS_DDL
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.status import FileStatus
from hudi_sql.storage.uri import qualify
from hudi_sql.table.bootstrap_index import BootstrapFileMapping, stat_source_file, write_bootstrap_index
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.result import group_stats, to_write_stat
from hudi_sql.write.skeleton import SkeletonSpec, skeleton_writer, spec_json

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

_log = logging.getLogger(__name__)

SIMPLE_KEY_GENERATOR = "org.apache.hudi.keygen.SimpleKeyGenerator"
OVERWRITE_PAYLOAD = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
#: The operation of the metadata-only bootstrap's commit (``WriteOperationType.BOOTSTRAP``).
BOOTSTRAP_OPERATION = "BOOTSTRAP"
_NO_DATA_COLUMNS = '{"type":"struct","fields":[]}'


@dataclass(frozen=True)
class BootstrapRequest:
    """One bootstrap, as ``CALL run_bootstrap`` takes it (Apache Hudi's argument names in the docs)."""

    table_name: str
    table_type: TableType
    source_path: str  # bootstrap_path
    base_path: str
    record_key_fields: str  # rowKey_field
    partition_path_field: str = ""
    key_generator_class: str = SIMPLE_KEY_GENERATOR
    selector_class: str = METADATA_ONLY_SELECTOR
    payload_class: str = OVERWRITE_PAYLOAD
    database: str = "default"
    overwrite: bool = False  # bootstrap_overwrite: replace a table already at base_path
    options: Mapping[str, str] = field(default_factory=dict)  # more hoodie.* options (regex selector, sync)


@dataclass(frozen=True)
class BootstrapResult:
    instant_time: str
    modes: dict[str, BootstrapMode]  # source partition -> mode
    files_written: int


def source_files(storage: Storage, source_path: str) -> dict[str, list[FileStatus]]:
    """The source's partitions, folders (relative to it, ``""`` for the source folder itself)
    that hold data files, each with its data files' statuses (absolute paths, sizes, times), from
    one walk of the source: an object store's sizes and times come with its listing, and the
    bootstrap index records them without asking again. Hidden and ``_``-prefixed entries
    (``_SUCCESS``, ``.crc``) are not data."""
    root = qualify(source_path).rstrip("/")
    if not storage.exists(root):
        raise HudiConfigError(f"The bootstrap source '{source_path}' does not exist.",
                              help="bootstrap_path names the existing Parquet table's folder")
    found: dict[str, list[FileStatus]] = {}
    for status in storage.walk_files(root):
        folder = status.path[len(root) + 1:].rpartition("/")[0]
        hidden = any(part.startswith((".", "_")) for part in folder.split("/") if part)
        if not hidden and status.name.endswith(".parquet") and not status.name.startswith((".", "_")):
            found.setdefault(folder, []).append(status)
    if not found:
        raise HudiConfigError(f"The bootstrap source '{source_path}' holds no Parquet files.",
                              help="bootstrap_path names the existing Parquet table's folder")
    return {folder: sorted(found[folder], key=lambda s: s.path) for folder in sorted(found)}


def source_partitions(storage: Storage, source_path: str) -> list[str]:
    """The source's partitions (:func:`source_files`), sorted."""
    return list(source_files(storage, source_path))


def partition_modes(partitions: list[str], selector_class: str, config: BootstrapConfig) -> dict[str, BootstrapMode]:
    """Each partition's mode by Apache Hudi's selector classes (the simple class name is enough)."""
    short = selector_class.rsplit(".", 1)[-1]
    if short == METADATA_ONLY_SELECTOR.rsplit(".", 1)[-1]:
        return dict.fromkeys(partitions, BootstrapMode.METADATA_ONLY)
    if short == FULL_RECORD_SELECTOR.rsplit(".", 1)[-1]:
        return dict.fromkeys(partitions, BootstrapMode.FULL_RECORD)
    if short == REGEX_SELECTOR.rsplit(".", 1)[-1]:
        pattern = config.mode_selector_regex
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise HudiConfigError(f"'{pattern}' ({HudiBootstrapConfig.MODE_SELECTOR_REGEX.key}) is not a regular "
                                  f"expression: {exc}.") from None
        matched = config.regex_mode
        other = BootstrapMode.FULL_RECORD if matched is BootstrapMode.METADATA_ONLY else BootstrapMode.METADATA_ONLY
        return {p: matched if regex.fullmatch(p) else other for p in partitions}
    raise UnsupportedFeatureError(
        f"Bootstrap mode selector '{selector_class}' is not one hudi-sql runs.",
        help=f"use {FULL_RECORD_SELECTOR.rsplit('.', 1)[-1]}, {METADATA_ONLY_SELECTOR.rsplit('.', 1)[-1]} or "
             f"{REGEX_SELECTOR.rsplit('.', 1)[-1]} (with {HudiBootstrapConfig.MODE_SELECTOR_REGEX.key})")


def _write_options(request: BootstrapRequest, *, hive_style: bool | None) -> dict[str, str]:
    options = {k: v for k, v in request.options.items() if k.startswith("hoodie.")}
    if hive_style is not None:
        options[HudiWriteConfig.HIVE_STYLE_PARTITIONING.key] = str(hive_style).lower()
    options.update({
        HudiTableConfig.NAME.key: request.table_name,
        HudiTableConfig.DATABASE_NAME.key: request.database,
        HudiWriteConfig.TABLE_TYPE.key: request.table_type.value,
        HudiWriteConfig.RECORD_KEY_FIELDS.key: request.record_key_fields,
        HudiWriteConfig.PARTITION_PATH_FIELDS.key: request.partition_path_field,
        HudiWriteConfig.KEY_GENERATOR_CLASS.key: request.key_generator_class,
        HudiWriteConfig.PAYLOAD_CLASS.key: request.payload_class,
        HudiWriteConfig.OPERATION.key: "bulk_insert",
    })
    return options


def run_bootstrap(spark: SparkSession, request: BootstrapRequest) -> BootstrapResult:
    """Bootstrap *request*'s source into a new table at its base path (see the module notes).

    Raises:
        TableAlreadyExistsError: a table is at the base path and ``overwrite`` is off.
        HudiConfigError: a missing or empty source, a base path holding other files, a bad
            selector regex.
        HudiKeyError: a source row without a record key.
        UnsupportedFeatureError: an unknown selector.
    """
    storage = Storage.for_session(spark, request.options)
    for path in (request.source_path, request.base_path):
        storage.check_reachable(path)
    if qualify(request.source_path).rstrip("/") == qualify(request.base_path).rstrip("/"):
        raise HudiConfigError("A bootstrap writes a new table beside its source, not into it.",
                              help="base_path and bootstrap_path must differ")
    config = BootstrapConfig.of(HudiConfigs.of(dict(request.options), validate=False))
    statuses = source_files(storage, request.source_path)
    files_by_partition = {p: [s.path for s in listed] for p, listed in statuses.items()}
    partitions = list(files_by_partition)
    modes = partition_modes(partitions, request.selector_class, config)
    existed = TableMetaClient.exists(request.base_path, storage=storage)
    if existed and not request.overwrite:
        raise TableAlreadyExistsError(f"A Hudi table already exists at '{request.base_path}'.",
                                      help="bootstrap_overwrite => true replaces it")
    if existed:
        storage.delete_dir(request.base_path)
    elif storage.is_dir(request.base_path) and storage.list(request.base_path):
        # A failed bootstrap removes its base path whole, so it must hold nothing else.
        raise HudiConfigError(f"The bootstrap's base path '{request.base_path}' holds files and no Hudi table.",
                              help="base_path names a new or empty folder for the table")
    metadata_only = [p for p in partitions if modes[p] is BootstrapMode.METADATA_ONLY]
    full_record = [p for p in partitions if modes[p] is BootstrapMode.FULL_RECORD]
    options = _write_options(request, hive_style=hive_style_partitioning(
        metadata_only, request.partition_path_field, request.options))
    properties = {HudiBootstrapConfig.BASE_PATH.key: request.source_path,
                  HudiBootstrapConfig.INDEX_CLASS.key: config.index_class}
    instant, files, schema = FULL_BOOTSTRAP_INSTANT, 0, None
    try:
        if metadata_only:
            instant = METADATA_BOOTSTRAP_INSTANT
            schema = _source_schema(spark, storage, files_by_partition[metadata_only[0]],
                                    parse_list(request.partition_path_field))
            files += _bootstrap_metadata_only(spark, request, options, properties,
                                              {p: statuses[p] for p in metadata_only}, schema)
        if full_record:
            files += _bootstrap_full_record(spark, storage, request, options, properties, files_by_partition,
                                            full_record, schema)
    except BaseException:
        # Nothing committed that must stay: the table goes, so the bootstrap can simply run again.
        _log.warning("Bootstrap of '%s' failed; removing what it wrote at '%s'.", request.source_path,
                     request.base_path)
        storage.delete_dir(request.base_path)
        raise
    return BootstrapResult(instant, modes, files)


def hive_style_partitioning(metadata_only: list[str], partition_path_field: str,
                            options: Mapping[str, str]) -> bool | None:
    """Hive-style partitioning for the new table, or ``None`` to leave the writer's default: the
    options' choice when they make one, else on when the metadata-only partitions are all
    ``field=value`` folders of exactly the partition fields (see the module notes)."""
    fields = list(parse_list(partition_path_field))
    if HudiWriteConfig.HIVE_STYLE_PARTITIONING.key in options or not metadata_only or not fields:
        return None
    return all([segment.partition("=")[0] for segment in p.split("/")] == fields
               and all("=" in segment for segment in p.split("/")) for p in metadata_only)


def _bootstrap_full_record(spark: SparkSession, storage: Storage, request: BootstrapRequest,
                           options: dict[str, str], properties: dict[str, str],
                           files_by_partition: dict[str, list[str]], partitions: list[str],
                           schema: StructType | None) -> int:
    """The bulk insert at ``00000000000002`` of *partitions*' rows; returns the files written.
    *schema*: the metadata-only partitions' columns, which these rows must match. Spark's reader
    discovers partition columns from the folders (typed, as Apache Hudi's full-record bootstrap
    reads them); on a store Spark has no connector for, those columns are strings."""
    if spark_reads_path(spark, request.source_path):
        reader = spark.read.schema(schema) if schema is not None else spark.read
        source = reader.option("basePath", request.source_path).parquet(
            *[storage.join(request.source_path, p) for p in partitions])
    else:  # no Hadoop connector for the store: hudi-sql's tasks read the files through its own backend
        source = _source_frame(spark, storage, {p: files_by_partition[p] for p in partitions},
                               schema or _source_schema(spark, storage, files_by_partition[partitions[0]],
                                                        parse_list(request.partition_path_field)),
                               parse_list(request.partition_path_field))
    client = WriteClient(request.base_path, options, instant_time=FULL_BOOTSTRAP_INSTANT,
                         table_properties=properties)
    return len(client.write(source).write_stats)


def _source_schema(spark: SparkSession, storage: Storage, files: list[str],
                   partition_fields: Sequence[str]) -> StructType:
    """The table's data columns: the source files' columns, then partition fields the files do not
    hold (a Hive-style source keeps them in its folder names) as strings, as Apache Hudi takes them."""
    from pyspark.sql.pandas.types import from_arrow_schema
    from pyspark.sql.types import StringType, StructField

    if spark_reads_path(spark, files[0]):
        schema = spark.read.parquet(*files[:1]).schema  # one file's footer: the source's columns
    else:
        schema = from_arrow_schema(storage.parquet_metadata(files[0]).schema.to_arrow_schema().remove_metadata())
    for name in partition_fields:
        if name not in schema.fieldNames():
            schema = schema.add(StructField(name, StringType(), True))
    return schema


def _source_frame(spark: SparkSession, storage: Storage, files_by_partition: dict[str, list[str]],
                  schema: StructType, partition_fields: Sequence[str]) -> DataFrame:
    """The source rows of *files_by_partition*, read by tasks through *storage* (one file at a time),
    with the partition columns the files lack taken from their folder names."""
    from pyspark.sql.pandas.types import to_arrow_schema

    target = to_arrow_schema(schema)
    rows = [(path, partition) for partition, paths in files_by_partition.items() for path in paths]

    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow as pa

        for batch in batches:
            for path, partition in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()):
                table = storage.read_parquet(path)
                for name, value in source_partition_values(partition, partition_fields):
                    if name not in table.column_names:
                        table = table.append_column(name, pa.array([value] * table.num_rows, pa.string()))
                yield from table.select(target.names).cast(target).to_batches()

    return task_frame(spark, rows, "path string, partition string").mapInArrow(read, schema)


def _bootstrap_metadata_only(spark: SparkSession, request: BootstrapRequest, options: dict[str, str],
                             properties: dict[str, str], partitions: dict[str, list[FileStatus]],
                             schema: StructType) -> int:
    """The skeletons and the bootstrap index of *partitions* (each with its source files), committed at ``00000000000001``;
    returns the files written. The driver lists the source files and commits; the skeletons are
    written by Spark tasks, one per source file up to the bootstrap parallelism option's number."""
    from dataclasses import replace

    fields = parse_list(request.partition_path_field)
    listed = {status.path: status for statuses in partitions.values() for status in statuses}
    specs = [SkeletonSpec(status.path, partition, str(uuid.uuid4()), source_partition_values(partition, fields))
             for partition, statuses in partitions.items() for status in statuses]
    client = WriteClient(request.base_path, options, instant_time=METADATA_BOOTSTRAP_INSTANT,
                         table_properties=properties)
    with write_scope(), \
            translated_task_errors():
        keygen = key_generator_for(client.configs, schema=schema)
        meta = client.create_table(keygen, schema)
        txn = Transaction.begin(meta, Action.COMMIT, client.resolved, instant_time=METADATA_BOOTSTRAP_INSTANT)
        try:
            txn.start(CommitMetadata({}, BOOTSTRAP_OPERATION))
            schema_json = avro_schema_json(schema, meta.table_name)
            handle = client.handle_options(meta, txn.instant_time, schema_json, schema, None, keygen=keygen)
            handle = replace(handle, spark_schema_json=_NO_DATA_COLUMNS)  # a skeleton has meta columns only
            frame = task_frame(spark, [(spec_json(s),) for s in specs], "spec string",
                               max_tasks=client.resolved.bootstrap.parallelism)
            stats = [to_write_stat(row.asDict())
                     for row in frame.mapInArrow(skeleton_writer(handle), WRITE_STATUS_DDL).collect()]
            write_bootstrap_index(meta.base_path, request.source_path, [
                BootstrapFileMapping(s.partition_path, s.file_id, s.partition_path,
                                     stat_source_file(s.source_file, listed[s.source_file]))
                for s in specs], int(time.time() * 1000), storage=meta.storage)
            txn.complete(CommitMetadata(group_stats(stats), BOOTSTRAP_OPERATION, {"schema": schema_json}))
        except BaseException as exc:
            txn.abort(exc)
            raise
    client.post_commit(spark, meta)  # Hive sync (enable_hive_sync), as after any commit
    return len(stats)
