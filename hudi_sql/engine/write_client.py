"""WriteClient: one write from a DataFrame to a committed instant.

Order of work (planning before any timeline file, so bad input leaves the table untouched)::

    resolve options, load or create the table, roll back failed writes
    prepare (Spark): schema check, keys, delete flags                    -- lazy
    tag (Spark): index lookup, matches joined onto the records           -- lazy (matches cached)
    profile (Spark job): counts per partition / file group, null keys   -- small collect
    plan (pure): buckets and insert routing                              -- driver
    start: requested + inflight                                          -- timeline
    execute (Spark job): records shuffled by bucket; each task combines  -- WriteStatus rows
        duplicate keys (precombine) and writes marker + file per bucket
    complete: conflict check, attempt losers deleted, completed instant  -- timeline

The batch is evaluated twice, by the profile (its key columns only) and by the execute job; it
is cached in between only when Spark cannot repeat it (:func:`input_is_repeatable`). Sources
must not change while a write runs, the assumption Spark's own recomputation of lost work
rests on.
"""

from __future__ import annotations

__all__ = ["WriteClient", "WriteResult"]

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from hudi_sql.commit.rollback import rollback_failed_writes
from hudi_sql.commit.transaction import PlanSnapshot, Transaction, write_scope
from hudi_sql.config import (
    HudiConfigs,
    HudiTableConfig,
    HudiWriteConfig,
    IndexType,
    TableType,
)
from hudi_sql.config.resolve import Resolved, TableConfig, WriteConfig
from hudi_sql.engine.overwrite import prepare_overwrite
from hudi_sql.errors import (
    CommitConflictError,
    ConcurrentWriterError,
    HudiConfigError,
    HudiSchemaError,
    TableAlreadyExistsError,
)
from hudi_sql.index.base import FILE_ID_COLUMN, IndexContext
from hudi_sql.index.bucket import bucket_file_ids, bucket_num, plan_bucket_writes
from hudi_sql.index.factory import index_for
from hudi_sql.keygen import key_generator_for
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.file_names import new_file_id
from hudi_sql.model.instant import Action
from hudi_sql.model.payload import Payload
from hudi_sql.model.schema import RECORD_KEY_FIELD
from hudi_sql.read.bootstrap_read import skeleton_sources
from hudi_sql.services.archive import maybe_archive
from hudi_sql.services.clean import maybe_clean
from hudi_sql.services.clustering import maybe_cluster
from hudi_sql.services.compaction import (
    pending_compaction_operations,
    run_compaction,
    schedule_compaction,
    should_trigger,
)
from hudi_sql.services.pending_clustering import (
    check_updates_against_pending_clustering,
    pending_clustering_file_groups,
)
from hudi_sql.services.upgrade import upgrade_table
from hudi_sql.spark.schema import avro_schema_json, from_avro_schema
from hudi_sql.spark.task_errors import translated_task_errors
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.parquet import FileWriteSettings
from hudi_sql.storage.uri import is_local, qualify
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient, init_table
from hudi_sql.table.new_table import NewTable
from hudi_sql.table.version import DEFAULT_CREATE_VERSION
from hudi_sql.write.operation import WriteOperationType
from hudi_sql.write.partitioner import SizingConfig, average_record_size, plan_buckets
from hudi_sql.write.plan import (
    BucketInfo,
    BucketType,
    HandleOptions,
    PartitionWorkload,
    WorkloadProfile,
    WritePlan,
)
from hudi_sql.write.post_commit import PostCommitAction, post_commit_actions
from hudi_sql.write.prepare import prepare_records
from hudi_sql.write.profile import profile_workload
from hudi_sql.write.result import (
    PostCommitFailure,
    WriteResult,
    group_stats,
    input_is_repeatable,
)
from hudi_sql.write.routing import execute_plan

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

    from hudi_sql.index.base import Index
    from hudi_sql.keygen.base import KeyGenerator
    from hudi_sql.model.file_group import FileSlice

_log = logging.getLogger(__name__)


#: The key generators Apache Hudi allows on a table without meta fields (virtual keys).
_VIRTUAL_KEY_GENERATORS = ("SimpleKeyGenerator", "NonpartitionedKeyGenerator", "ComplexKeyGenerator")


def _check_virtual_keys(keygen: KeyGenerator, populate_meta_fields: bool) -> None:
    """Apache Hudi's rule for tables without meta fields: only the key generators whose key can be
    recomputed from the data columns alone; any other write is refused before it starts (Apache
    Hudi 0.15 fails the same write, so a table one engine wrote the other could not write)."""
    if populate_meta_fields or keygen.class_name.rsplit(".", 1)[-1] in _VIRTUAL_KEY_GENERATORS:
        return
    raise HudiConfigError(
        f"Only simple, non-partitioned or complex key generator are supported when meta-fields are disabled. "
        f"Used: {keygen.class_name}",
        help=f"keep {HudiTableConfig.POPULATE_META_FIELDS.key}=true with this key generator, or key the table "
             "with SimpleKeyGenerator, ComplexKeyGenerator or NonpartitionedKeyGenerator")


def _checkpoints_unchanged(meta: TableMetaClient, extra: dict[str, str]) -> bool:
    """Whether an empty write only repeats the checkpoints the table already records (a resumed
    pipeline or stream with nothing new): Hudi Streamer's "no new data, checkpoint unchanged,
    nothing to commit". Any other empty write commits (hoodie.allow.empty.commit)."""
    return bool(extra) and all(next((v for _, v in meta.extra_metadata_values(key)), None) == value
                               for key, value in extra.items())


def _operation_given(configs: HudiConfigs) -> bool:
    return configs.is_set(HudiWriteConfig.OPERATION)


class WriteClient:
    """Writes DataFrames into the Hudi table at *base_path*."""

    def __init__(self, base_path: str, options: dict[str, Any] | None = None, *,
                 instant_time: str | None = None, table_properties: Mapping[str, str] | None = None) -> None:
        """*instant_time* and *table_properties* are for writes with a fixed instant and extra
        ``hoodie.properties`` entries (a full-record bootstrap: ``00000000000002``, the source path)."""
        self.base_path = qualify(base_path)
        self.options = dict(options or {})
        self.instant_time = instant_time
        self.extra_table_properties = dict(table_properties or {})
        self.configs = HudiConfigs.of(options or {})
        # Every scope resolved once here, the post-commit services' too: a value that does not
        # parse fails the write before anything is written, not in a service whose failure is
        # only logged. The write's own config again with the table's fixed properties once the
        # table is loaded (:meth:`write`).
        self.resolved = Resolved(self.configs).check()
        self.config = self.resolved.write

    # -- table ---------------------------------------------------------------------------

    def create_table(self, keygen: KeyGenerator, schema: StructType) -> TableMetaClient:
        config = self.config
        name = config.table_name
        if not name:
            raise HudiConfigError(f"Creating a table needs '{HudiTableConfig.NAME.key}'.",
                                  help=f"pass options={{'{HudiTableConfig.NAME.key}': 'my_table', ...}}")
        table = NewTable(
            name=name, table_type=config.table_type, database=config.database_name,
            create_schema=avro_schema_json(schema, name, style="create"), key_generator=keygen.table_properties(),
            ordering_field=config.precombine_field, populate_meta_fields=config.populate_meta_fields,
            payload_class=self._payload(None, config.precombine_field).java_class,
            version=config.write_table_version, cdc=TableConfig.cdc_properties(self.configs),
            extra=self.extra_table_properties)
        return init_table(self.base_path, table.properties())

    def _match_table_version(self, meta: TableMetaClient, df: DataFrame) -> TableMetaClient:
        """``hoodie.write.table.version`` against an existing table: equal or absent, nothing to do;
        8 on a version 6 table, upgrade it first (``hoodie.write.auto.upgrade``, as Apache Hudi 1.x
        does); anything else fails before anything is written (one version's files in the other's
        timeline would corrupt the table).

        Raises:
            HudiConfigError: the asked version differs and no upgrade applies.
        """
        asked = self.config.write_table_version
        if asked is None or asked == meta.table_version:
            return meta
        if asked > meta.table_version and self.config.auto_upgrade:
            upgrade_table(df.sparkSession, meta, to_version=asked, configs=self.resolved)
            return TableMetaClient.load(self.base_path)
        raise HudiConfigError(
            f"'{HudiWriteConfig.WRITE_TABLE_VERSION.key}={asked}' differs from the version of the table at "
            f"'{meta.base_path}', which is {meta.table_version}.",
            help=f"leave '{HudiWriteConfig.WRITE_TABLE_VERSION.key}' out to write the table at its own version"
                 + (f", or set '{HudiWriteConfig.AUTO_UPGRADE.key}=true' to upgrade it"
                    if asked > meta.table_version else ""),
        )

    def _key_generator(self, meta: TableMetaClient | None, df: DataFrame | None = None) -> KeyGenerator:
        return key_generator_for(self.configs, table_properties=meta.properties if meta else None,
                                 schema=df.schema if df is not None else None,
                                 stored_keys_value_only=meta.stored_keys_value_only() if meta else None)

    # -- write ---------------------------------------------------------------------------

    def write(self, df: DataFrame, *, mode: str = "append") -> WriteResult:
        """Write *df*; a write that lost a commit conflict runs again on a fresh view of the table,
        ``hoodie.write.num.retries.on.conflict.failures`` times (its instant is rolled back first).

        The whole write, its commit and the table services after it run under the client's
        :class:`Resolved` options (lock provider, heartbeats, failed-writes policy, metadata table),
        handed to each of them.
        """
        concurrency = self.resolved.concurrency
        retries = concurrency.retries_on_conflict if (mode or "append").lower() == "append" else 0
        for attempt in range(retries + 1):
            try:
                with write_scope(), \
                        translated_task_errors():  # a task's error names its file
                    return self._write_once(df, mode=mode)
            except ConcurrentWriterError:
                raise
            except CommitConflictError as exc:
                if attempt >= retries:
                    raise
                _log.warning("Write to '%s' lost a conflict (%s); retrying (%d of %d).", self.base_path, exc,
                             attempt + 1, retries)
                self.config = self.resolved.write
        raise AssertionError("unreachable")

    def _write_once(self, df: DataFrame, *, mode: str) -> WriteResult:
        mode = (mode or "append").lower()
        # The store's endpoint and credentials, resolved once from the session and the options;
        # a bucket that does not exist or refuses the credentials fails here, before any write.
        storage = Storage.for_session(df.sparkSession, self.options, self.base_path)
        storage.check_reachable(self.base_path)
        exists = TableMetaClient.exists(self.base_path, storage=storage)
        if mode in ("error", "errorifexists", "default") and exists:
            raise TableAlreadyExistsError(f"A Hudi table already exists at '{self.base_path}' (mode '{mode}').")
        if mode == "ignore" and exists:
            return WriteResult(None, "NONE")
        if mode == "overwrite" and exists:
            # Hudi's SaveMode.Overwrite re-initialises the table.
            storage.delete_dir(self.base_path)
            exists = False
        if mode not in ("append", "overwrite", "error", "errorifexists", "default", "ignore"):
            raise HudiConfigError(f"Save mode '{mode}' is not supported (append, overwrite, error, ignore).")

        operation = self.config.operation
        meta = TableMetaClient.load(self.base_path, storage=storage) if exists else None
        if meta is not None:
            meta.require_writable("write")  # a table version we only read is refused, not corrupted
            meta = self._match_table_version(meta, df)
            self.config = WriteConfig.of(self.configs, TableConfig.of(meta.properties))
            rollback_failed_writes(meta, self.resolved)
        keygen = self._key_generator(meta, df)
        _check_virtual_keys(keygen, meta.populate_meta_fields if meta is not None else self.config.populate_meta_fields)
        if keygen.auto_record_keys and not _operation_given(self.configs) and RECORD_KEY_FIELD not in df.columns:
            operation = WriteOperationType.BULK_INSERT  # Hudi 0.15 (deduceOperation): generated keys, no operation
        table_schema = from_avro_schema(meta.latest_schema()) if meta and meta.latest_schema() else None
        if operation.is_overwrite:
            return prepare_overwrite(self, df, meta, keygen, table_schema, operation)
        return self._write_records(df, meta, keygen, table_schema, operation)

    def _write_records(self, df: DataFrame, meta: TableMetaClient | None, keygen: KeyGenerator,
                       table_schema: StructType | None, operation: WriteOperationType) -> WriteResult:
        config = self.config
        ordering = config.precombine_field
        index_type = config.index_type
        if operation.is_delete and meta is None:
            raise HudiSchemaError(f"Cannot delete from '{self.base_path}': there is no table yet.")
        prepared = prepare_records(
            df, keygen=keygen, table_schema=table_schema, ordering_field=ordering,
            delete_operation=operation.is_delete, dedup=config.dedup, global_index=index_type.is_global,
            delete_marker=self._payload(meta, ordering).rules.delete_marker,
            combine_by_ordering=self._combines_by_ordering(meta, ordering),
        )
        uses_index = meta is not None and (operation in (WriteOperationType.UPSERT, WriteOperationType.DELETE) or (
            operation is WriteOperationType.INSERT and config.insert_drop_duplicates)
            or index_type is IndexType.BUCKET)  # with buckets, the bucket decides the group for every operation
        # The conflict window starts at the timeline the plan is built on (from here on).
        snapshot = PlanSnapshot.of(meta) if meta is not None else None
        use_metadata = self.resolved.metadata.enable
        view = FileSystemView(meta, use_metadata=use_metadata) if meta is not None else None
        tagged, index = self._tag(prepared.records, meta, view, keygen, index_type, uses_index, ordering)
        cached = not input_is_repeatable(df)
        if cached:
            tagged = tagged.persist()
        try:
            profile = profile_workload(tagged, keygen, ordering)
            if meta is None:  # created only once the batch proved valid
                meta = self.create_table(keygen, prepared.data_schema)
                view = FileSystemView(meta, use_metadata=use_metadata)
            assert view is not None
            schema_json = avro_schema_json(prepared.data_schema, meta.table_name)
            if operation is WriteOperationType.INSERT and config.insert_drop_duplicates:
                from pyspark.sql import functions as F

                tagged = tagged.where(F.col(FILE_ID_COLUMN).isNull())
                profile = WorkloadProfile({p: PartitionWorkload(p, w.inserts) for p, w in profile.partitions.items()})
            check_updates_against_pending_clustering(meta, self.resolved.clustering, {
                (p, f) for p, w in profile.partitions.items() for f in (*w.updates_by_file_id, *w.deletes_by_file_id)})
            if (profile.total_inserts == 0 and profile.total_updates == 0
                    and not any(w.deletes_by_file_id for w in profile.partitions.values())
                    and (not config.allow_empty_commit
                         or _checkpoints_unchanged(meta, config.commit_extra_metadata))):
                _log.info("Nothing to write to '%s'.", self.base_path)
                return WriteResult(None, operation.value)
            action = Action.DELTA_COMMIT if meta.table_type is TableType.MERGE_ON_READ else Action.COMMIT
            txn = Transaction.begin(meta, action, self.resolved, instant_time=self.instant_time, snapshot=snapshot,
                                    bucket_index=index_type is IndexType.BUCKET)
            plan = self._plan(meta, view, profile, operation, txn.instant_time, schema_json,
                              prepared.data_schema, ordering, keygen=keygen, use_small_files=operation is not
                              WriteOperationType.BULK_INSERT, combine_in_task=prepared.combine_in_task)
            txn.start(self._workload_metadata(profile, plan, operation))
            _log.info("%s %s into '%s': %d inserts, %d updates, %d deletes in %d partitions (%s index); writing %d "
                      "file groups.", operation.value.lower(), txn.instant_time, self.base_path, profile.total_inserts,
                      profile.total_updates, profile.total_deletes, len(profile.partitions), index_type.value,
                      len(plan.buckets))
            execution = execute_plan(tagged, plan, self.resolved.index, index_type)
            index_stats = index.last_stats if index is not None else None
        finally:
            if cached:
                tagged.unpersist()
            if index is not None:
                index.release()
        metadata = CommitMetadata(
            partition_to_write_stats=group_stats(execution.stats), operation_type=operation.value,
            extra_metadata={**config.commit_extra_metadata, "schema": schema_json},
        )
        txn.complete(metadata)
        _log.info("Committed %s %s to '%s': %d files written.", action.value, txn.instant_time, self.base_path,
                  len(execution.stats))
        failures = self.post_commit(df.sparkSession, meta)
        return WriteResult(txn.instant_time, operation.value, tuple(execution.stats),
                           writer_pids=execution.writer_pids, post_commit_failures=failures, index_stats=index_stats,
                           marker_batches=execution.marker_batches)

    def post_commit(self, spark: Any, meta: TableMetaClient) -> tuple[PostCommitFailure, ...]:
        """Table services after a commit, in Hudi's order: compaction, clustering, clean, archive, then
        the registered post-commit actions (:mod:`hudi_sql.write.post_commit`: Hive sync).

        A commit has landed by now; a failing service never undoes it: it is logged, the next
        service runs, and the failures are returned (the write reports them in its result).
        """
        services: list[tuple[str, Callable[[], object]]] = [
            ("compaction", lambda: self._inline_compaction(spark, meta)
             if meta.table_type is TableType.MERGE_ON_READ else None),
            ("clustering", lambda: maybe_cluster(spark, meta, self.resolved)),
            ("clean", lambda: maybe_clean(meta, self.resolved, spark=spark)),
            ("archival", lambda: maybe_archive(meta, self.resolved)),
        ]
        services += [(action.name, partial(self._post_commit_action, action, spark, meta))
                     for action in post_commit_actions()]
        failures: list[PostCommitFailure] = []
        for name, service in services:
            try:
                service()
            except Exception as exc:  # noqa: BLE001 - the commit stands; report and go on
                _log.exception("Post-commit %s of '%s' failed; the commit itself is complete.", name,
                               meta.base_path)
                failures.append(PostCommitFailure(name, f"{type(exc).__name__}: {exc}"))
            meta.reload_timeline()
        return tuple(failures)

    def _post_commit_action(self, action: PostCommitAction, spark: Any, meta: TableMetaClient) -> None:
        """A registered post-commit action (Hive sync, ...), when one of its options is on."""
        if action.is_enabled(self.configs):
            action.run(meta.base_path, self.configs, spark)

    def _inline_compaction(self, spark: Any, meta: TableMetaClient) -> None:
        """``hoodie.compact.inline`` / ``hoodie.compact.schedule.inline`` after a deltacommit."""
        compaction = self.resolved.compaction
        if not (compaction.inline or compaction.schedule_inline):
            return
        meta.reload_timeline()
        if not should_trigger(meta, compaction):
            return
        plan = schedule_compaction(meta, self.resolved)
        if plan is not None and compaction.inline:
            run_compaction(spark, meta, plan.instant_time, self.resolved)

    def _tag(self, records: DataFrame, meta: TableMetaClient | None, view: FileSystemView | None,
             keygen: KeyGenerator, index_type: IndexType, uses_index: bool,
             ordering: str | None) -> tuple[DataFrame, Index | None]:
        """The records tagged with their file groups, and the index that did it (to release after the write)."""
        from pyspark.sql import functions as F

        if not uses_index or meta is None or view is None or view.is_empty:
            return records.withColumn(FILE_ID_COLUMN, F.lit(None).cast("string")), None
        index = index_for(IndexContext(meta, view, keygen, self.resolved.index, index_type, ordering_field=ordering,
                                       ordered_merge=self._payload(meta, ordering).rules.ordered_merge))
        return index.tag_location(records), index

    def handle_options(self, meta: TableMetaClient, instant_time: str, schema_json: str, data_schema: StructType,
                       ordering: str | None, *, keygen: KeyGenerator) -> HandleOptions:
        config = self.config
        payload = self._payload(meta, ordering)
        return HandleOptions.for_table(
            meta, instant_time=instant_time, avro_schema=schema_json,
            spark_schema_json=from_avro_schema(schema_json).json(), file=FileWriteSettings.from_config(config),
            complex_keys=keygen.record_key_spec().composite,  # as the keygen decides
            ordering_field=ordering, event_time_ordering=payload.rules.ordered_merge,
            combine_by_ordering=self._combines_by_ordering(meta, ordering),
            payload_class=payload.java_class,
            # Unset: Apache Hudi's Spark default (timeline-server markers: a few objects per write)
            # on an object store, where one PUT per data file is costly; direct markers on a local disk.
            marker_type=config.markers_type or ("DIRECT" if is_local(meta.base_path) else "TIMELINE_SERVER_BASED"),
            log_data_block_format=config.log_data_block_format, log_max_size=config.log_max_size,
            partial_columns=config.partial_update_columns,
        )

    def _combines_by_ordering(self, meta: TableMetaClient | None, ordering: str | None) -> bool:
        """Whether a batch's records of one key combine by their ordering value. Apache Hudi 0.15's
        payloads do (``preCombine`` keeps the greater value, ``OverwriteWithLatestAvroPayload``
        too); on version 8 and up the record merger does only under event-time ordering: merging
        by commit time, the latest arrival in the batch wins (checked against Apache Hudi 1.2)."""
        version = meta.table_version if meta is not None else (self.config.write_table_version
                                                                or DEFAULT_CREATE_VERSION)
        if version < 8:
            return True
        if meta is not None and not self.config.payload_class:
            return meta.record_payload()[0] is not None  # the table's merge mode decides
        return self._payload(meta, ordering).rules.ordered_merge

    def _payload(self, meta: TableMetaClient | None, ordering: str | None) -> Payload:
        """The write's payload class merges its records (as Apache Hudi's writer does); else the table's."""
        if self.config.payload_class:
            return self.config.payload_class
        if meta is not None:
            if meta.table_version >= 9:
                # Version 9 names its merge mode, not a payload class: the payload version 8 records
                # for that mode (event-time ordering is DefaultHoodieRecordPayload's rule on write).
                payload = meta.record_payload()[1]
                return Payload.DEFAULT if payload is Payload.EVENT_TIME_ORDERING else payload
            return Payload.of(TableConfig.of(meta.properties).payload_class)
        # Apache Hudi's DataFrame writer, per table version: 0.15 (version 6) takes
        # ``OverwriteWithLatestAvroPayload`` (``hoodie.datasource.write.payload.class``'s default: a late
        # record replaces the stored one, the batch is still precombined by the ordering field); 1.x
        # (version 8 and up) merges by event time when there is an ordering field. SQL tables name
        # the SQL layer's default (:mod:`hudi_sql.sql.planner`).
        version = self.config.write_table_version or DEFAULT_CREATE_VERSION
        return Payload.unnamed(ordered=bool(ordering) and version >= 8)

    def sizing(self, meta: TableMetaClient) -> SizingConfig:
        config = self.config
        small = config.small_file_limit
        commits = [meta.commit_metadata(i) for i in reversed(meta.timeline.completed_writes().instants[-10:])]
        record_size = average_record_size(
            commits, default=config.record_size_estimate, small_file_limit=small,
            threshold=config.record_size_estimation_threshold)
        return SizingConfig(
            max_file_size=config.max_file_size, small_file_limit=small,
            record_size=record_size, insert_split_size=config.insert_split_size,
            auto_split=config.auto_tune_insert_splits,
        )

    def _plan(self, meta: TableMetaClient, view: FileSystemView, profile: WorkloadProfile,
              operation: WriteOperationType, instant_time: str, schema_json: str, data_schema: StructType,
              ordering: str | None, *, keygen: KeyGenerator, use_small_files: bool,
              combine_in_task: bool = False) -> WritePlan:
        latest = {p: view.latest_file_slices([p]) if p in view.partition_paths() else []
                  for p in profile.partitions}
        pending: dict[tuple[str, str], str] = {}
        if meta.table_type is TableType.MERGE_ON_READ:
            pending = pending_compaction_operations(meta)

        busy = frozenset(f for _, f in pending) | frozenset(f for _, f in pending_clustering_file_groups(meta))
        if self.config.index_type is IndexType.BUCKET:
            with_inserts = [p for p, w in profile.partitions.items() if w.inserts > 0]
            # The file groups an overwrite replaces take no records: every bucket starts a new
            # file group (an overwrite tags no record, so none is an update of an existing one).
            buckets, ranges = plan_bucket_writes(
                profile, latest, bucket_file_ids(view, with_inserts, bucket_num(self.resolved.index),
                                                 keep_existing=not operation.is_overwrite))
        else:
            buckets, ranges = plan_buckets(profile, latest, self.sizing(meta), new_file_id,
                                           use_small_files=use_small_files, excluded_file_ids=busy)
        # Logs written under a pending compaction start the slice the compaction will head.
        buckets = [replace(b, append_base_instant=pending.get((b.partition_path, b.file_id))) for b in buckets]
        buckets = self._stitch_skeletons(meta, latest, buckets)
        action = "deltacommit" if meta.table_type is TableType.MERGE_ON_READ else "commit"
        sort_mode = self.config.bulk_insert_sort_mode if operation is WriteOperationType.BULK_INSERT else "NONE"
        return WritePlan(operation.value, action, self.handle_options(meta, instant_time, schema_json, data_schema,
                                                                      ordering, keygen=keygen), tuple(buckets), tuple(ranges),
                         sort_mode=sort_mode, combine_in_task=combine_in_task)

    @staticmethod
    def _stitch_skeletons(meta: TableMetaClient, latest: Mapping[str, list[FileSlice]],
                          buckets: list[BucketInfo]) -> list[BucketInfo]:
        """Buckets whose base file is a metadata-only bootstrap skeleton merge into its stitched
        rows (:mod:`hudi_sql.read.bootstrap_read`): the write rewrites the group whole."""
        updated = {(b.partition_path, b.file_id) for b in buckets if b.bucket_type is BucketType.UPDATE}
        touched = [s for slices in latest.values() for s in slices if (s.partition_path, s.file_id) in updated]
        sources = skeleton_sources(meta, touched, "write to")
        return [replace(b, bootstrap_source_path=source.source_path,
                        bootstrap_partition_values=source.partition_values)
                if (source := sources.get((b.partition_path, b.file_id))) else b for b in buckets]

    @staticmethod
    def _workload_metadata(profile: WorkloadProfile, plan: WritePlan, operation: WriteOperationType) -> CommitMetadata:
        stats: dict[str, list[WriteStat]] = defaultdict(list)
        for partition, work in sorted(profile.partitions.items()):
            stats[partition].append(WriteStat(file_id="", path=None, partition_path=None, num_inserts=work.inserts))
            for bucket in plan.buckets:
                if bucket.partition_path == partition and bucket.bucket_type is BucketType.UPDATE:
                    stats[partition].append(WriteStat(
                        file_id=bucket.file_id, path=None, partition_path=None, prev_commit=bucket.prev_commit,
                        num_update_writes=work.updates_by_file_id.get(bucket.file_id, 0)))
        return CommitMetadata({p: tuple(s) for p, s in stats.items()}, operation.value)
