"""Compaction (Merge-On-Read): merge file slices' logs into new base files.

Lifecycle (table version 6)::

    schedule   <tc>.compaction.requested   Avro HoodieCompactionPlan: one operation per slice
    execute    <tc>.compaction.inflight    (empty), then Spark tasks, one per slice, write
                                            <fileId>_<token>_<tc>.parquet (records keep their
                                            commit time and sequence number)
    complete   <tc>.commit                 JSON commit metadata, compacted=true, COMPACT

While a compaction is pending, writers keep writing: new log files of a planned group carry
``<tc>`` as base instant, forming the slice the compaction's base file will head (readers merge
them with the slice before until then). Planning is pure (:func:`plan_compaction`); scheduling
and execution touch storage, the instant files through
:class:`~hudi_sql.commit.timeline_writer.TimelineWriter`; the Spark task that merges one slice
is :func:`hudi_sql.services.compaction_exec.compactor_task`.
"""

from __future__ import annotations

__all__ = [
    "CompactionOperation",
    "CompactionPlan",
    "compact",
    "load_compaction_plan",
    "pending_compaction_operations",
    "plan_compaction",
    "run_compaction",
    "schedule_compaction",
    "should_trigger",
]

import json
import logging
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.commit.transaction import Transaction
from hudi_sql.config import HudiConfigs, TableType
from hudi_sql.config.resolve import Resolved, WriteConfig
from hudi_sql.config.scoped import CompactionConfig
from hudi_sql.errors import HudiTimelineError, UnsupportedFeatureError
from hudi_sql.model.commit_metadata import CommitMetadata, RuntimeStats, WriteStat
from hudi_sql.model.instant import Action, Instant, State, parse_instant_time
from hudi_sql.model.instant_payloads import CompactionOperation, CompactionPlan
from hudi_sql.services.attempt import attempt, pending_to_run
from hudi_sql.services.compaction_exec import STATUS_DDL, compactor_task
from hudi_sql.spark.local_frame import task_frame
from hudi_sql.spark.schema import from_avro_schema
from hudi_sql.spark.task_errors import translated_task_errors
from hudi_sql.storage.parquet import FileWriteSettings
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.plan import HandleOptions

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_log = logging.getLogger(__name__)

UNBOUNDED = "UnBoundedCompactionStrategy"


def plan_compaction(meta: TableMetaClient, config: CompactionConfig, *, instant_time: str,
                    use_metadata: bool = True) -> CompactionPlan | None:
    """Slices with log files, chosen by the strategy; ``None`` when there is nothing to compact.
    The slices are listed through the metadata table when *use_metadata*."""
    if meta.table_type is not TableType.MERGE_ON_READ:
        raise UnsupportedFeatureError(f"Table '{meta.table_name}' is Copy-On-Write: it has nothing to compact.")
    pending = pending_compaction_operations(meta)
    view = FileSystemView(meta, use_metadata=use_metadata)
    threshold = config.logfile_num_threshold
    candidates = []
    for file_slice in view.latest_file_slices():
        if not file_slice.has_logs or (file_slice.partition_path, file_slice.file_id) in pending:
            continue
        if len(file_slice.log_files) < threshold:
            continue
        log_bytes = sum(lf.size for lf in file_slice.log_files)
        base_bytes = file_slice.base_file.size if file_slice.base_file else 0
        mb = 1024 * 1024
        candidates.append(CompactionOperation(
            file_slice.partition_path, file_slice.file_id, file_slice.base_instant_time,
            file_slice.base_file.file_name if file_slice.base_file else None,
            tuple(lf.file_name for lf in file_slice.log_files),
            {"TOTAL_LOG_FILES": float(len(file_slice.log_files)), "TOTAL_LOG_FILES_SIZE": float(log_bytes),
             "TOTAL_IO_READ_MB": (log_bytes + base_bytes) / mb, "TOTAL_IO_WRITE_MB": base_bytes / mb,
             "TOTAL_IO_MB": (log_bytes + 2 * base_bytes) / mb},
        ))
    strategy = config.strategy
    if not strategy.endswith(UNBOUNDED):
        candidates.sort(key=lambda op: -op.metrics["TOTAL_LOG_FILES_SIZE"])
        budget = config.target_io_mb
        chosen: list[CompactionOperation] = []
        used = 0.0
        for op in candidates:
            if chosen and used + op.metrics["TOTAL_IO_MB"] > budget:
                break
            chosen.append(op)
            used += op.metrics["TOTAL_IO_MB"]
        candidates = chosen
    if not candidates:
        return None
    return CompactionPlan(instant_time, tuple(sorted(candidates, key=lambda o: (o.partition_path, o.file_id))),
                          strategy)


def load_compaction_plan(meta: TableMetaClient, instant_time: str) -> CompactionPlan:
    """The plan of a scheduled compaction (read by the meta client)."""
    return meta.compaction_plan(instant_time)


def pending_compaction_operations(meta: TableMetaClient) -> dict[tuple[str, str], str]:
    """(partition, file id) -> instant of every file group under a pending compaction."""
    return meta.pending_compaction_operations()


def schedule_compaction(meta: TableMetaClient, options: Resolved | HudiConfigs | None = None) -> CompactionPlan | None:
    """Write ``<tc>.compaction.requested`` for the slices worth compacting (or nothing)."""
    resolved = Resolved.of(options)
    with TimelineWriter(meta, resolved).transaction("schedule compaction") as writer:
        if meta.timeline.pending_writes():
            raise HudiTimelineError(
                f"Cannot schedule a compaction on '{meta.table_name}' while a write is pending "
                f"({meta.timeline.pending_writes().instants[0]}).", help="finish or roll back the write first")
        instant_time = writer.next_instant_time()
        plan = plan_compaction(meta, resolved.compaction, instant_time=instant_time,
                               use_metadata=resolved.metadata.enable)
        if plan is None:
            return None
        writer.request(Instant(instant_time, Action.COMPACTION, State.REQUESTED), plan)
    meta.reload_timeline()
    _log.info("Scheduled compaction %s of %d file slices.", instant_time, len(plan.operations))
    return plan


def should_trigger(meta: TableMetaClient, config: CompactionConfig, *, now: datetime | None = None) -> bool:
    """Hudi's inline trigger: deltacommits (and/or time) since the last compaction."""
    completed = meta.timeline.completed()
    last_compaction = None
    for instant in completed.with_actions(Action.COMMIT):
        if meta.commit_metadata(instant).compacted:
            last_compaction = instant.instant_time
    deltas = [i for i in completed.with_actions(Action.DELTA_COMMIT)
              if last_compaction is None or i.instant_time > last_compaction]
    by_count = len(deltas) >= config.max_delta_commits
    since = last_compaction or (deltas[0].instant_time if deltas else None)
    elapsed = ((now or datetime.now(timezone.utc)) - parse_instant_time(since)).total_seconds() if since else 0
    by_time = elapsed >= config.max_delta_seconds
    strategy = config.trigger_strategy
    return {"NUM_COMMITS": by_count, "TIME_ELAPSED": by_time, "NUM_OR_TIME": by_count or by_time,
            "NUM_AND_TIME": by_count and by_time}[strategy]


def run_compaction(spark: SparkSession, meta: TableMetaClient, instant_time: str | None = None,
                   options: Resolved | HudiConfigs | None = None) -> tuple[str, CommitMetadata] | None:
    """Execute a scheduled compaction (the earliest pending one by default) and commit it.

    Raises:
        ConcurrentWriterError: another run is executing that compaction (its heartbeat is alive).
    """
    resolved = Resolved.of(options)
    meta.reload_timeline()
    instant_time = pending_to_run(meta.timeline.pending_compactions(), instant_time, "compaction",
                                  meta.table_name, help="CALL show_compaction(table => ...) lists them")
    if instant_time is None:
        return None
    plan = meta.compaction_plan(instant_time)
    with attempt(meta, "compaction", Instant(instant_time, Action.COMPACTION, State.INFLIGHT), None,
                 resolved) as heartbeat:
        metadata = _execute_compaction(spark, meta, plan, instant_time, resolved.write)
        txn = Transaction.resume(meta, Action.COMMIT, instant_time, resolved, pending_action=Action.COMPACTION,
                                 heartbeat=heartbeat)
        txn.complete(metadata)
    _log.info("Completed compaction %s (%d file groups).", instant_time, len(plan.operations))
    return instant_time, metadata


def _execute_compaction(spark: SparkSession, meta: TableMetaClient, plan: CompactionPlan, instant_time: str,
                        write: WriteConfig) -> CommitMetadata:
    """Merge every slice of *plan* in Spark tasks; the commit metadata of the new base files."""
    from pyspark.sql.types import StructType

    schema_json = meta.latest_schema()
    struct: StructType = from_avro_schema(schema_json) if schema_json else StructType([])
    rows = []
    for op in plan.operations:
        base = meta.layout.file_path(op.partition_path, op.base_file_name) if op.base_file_name else None
        logs = [meta.layout.file_path(op.partition_path, name) for name in op.log_file_names]
        rows.append((op.partition_path, op.file_id, op.base_instant, base, json.dumps(logs)))
    frame = task_frame(
        spark, rows, "partition_path string, file_id string, base_instant string, base_path string, log_paths string")
    completed = tuple(meta.timeline.completed_writes().times())
    ordering_field, payload = meta.record_payload()
    first = meta.timeline.write_timeline().first
    options = HandleOptions.for_table(meta, instant_time=instant_time, avro_schema="", spark_schema_json=struct.json(),
                                      file=FileWriteSettings.from_config(write))
    compactor = compactor_task(options, completed, first.instant_time if first else None, ordering_field, payload,
                               meta.recomputed_key_spec())

    with translated_task_errors():  # a damaged log or base file: named, the compaction stays inflight to resume
        statuses = frame.mapInArrow(compactor, STATUS_DDL).collect()
    stats: dict[str, list[WriteStat]] = {}
    for r in sorted(statuses, key=lambda r: (r["partition_path"], r["file_id"])):
        stats.setdefault(r["partition_path"], []).append(WriteStat(
            file_id=r["file_id"], path=r["path"], partition_path=r["partition_path"], prev_commit=r["prev_commit"],
            num_writes=r["num_writes"], num_update_writes=r["log_records"], total_write_bytes=r["file_size"],
            file_size_in_bytes=r["file_size"], total_log_records=r["log_records"],
            total_log_files_compacted=r["log_files"], total_log_size_compacted=r["log_bytes"],
            total_updated_records_compacted=r["log_records"], total_log_blocks=r["log_blocks"],
            total_corrupt_log_block=r["corrupt_blocks"], total_rollback_blocks=r["rollback_blocks"],
            runtime_stats=RuntimeStats(0, 0, r["millis"]),
        ))
    return CommitMetadata({p: tuple(s) for p, s in stats.items()}, "COMPACT",
                          {"schema": schema_json or ""}, compacted=True)


def compact(spark: SparkSession, path: str, options: dict[str, Any] | None = None, *, schedule: bool = True,
            execute: bool = True, instant_time: str | None = None) -> str | None:
    """``hudi_sql.compact``: schedule and/or execute a compaction; returns its instant (or None)."""
    meta = TableMetaClient.load(path)
    resolved = Resolved.of(options)
    if schedule and instant_time is None:
        plan = schedule_compaction(meta, resolved)
        if plan is None and not execute:
            return None
        instant_time = plan.instant_time if plan else None
    if not execute:
        return instant_time
    result = run_compaction(spark, meta, instant_time, resolved)
    return result[0] if result else None
