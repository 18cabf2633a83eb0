"""Clustering: rewrite a partition's small base files as fewer, sorted ones (Hudi 0.14, table version 6).

Lifecycle (each step a new file in ``.hoodie/``; nothing is renamed)::

    plan       pure, over the latest file slices          -> ClusteringPlan | None
    schedule   <t>.replacecommit.requested   Avro HoodieRequestedReplaceMetadata, operationType
                                            CLUSTER, with the plan (inputGroups, strategy)
    execute    <t>.replacecommit.inflight    JSON workload profile (the input file groups); then
                                            one Spark task per clustering group reads the group's
                                            slices, sorts the rows by the sort columns and writes
                                            new file groups <newId>_<token>_<t>.parquet
    complete   <t>.replacecommit             JSON replace-commit metadata, operationType CLUSTER:
                                            partitionToReplaceFileIds = the input file groups,
                                            write stats = the new files (via Transaction.resume)

Planning follows ``SparkSizeBasedClusteringPlanStrategy`` / ``PartitionAwareClusteringPlanStrategy``:
per partition, the latest slices whose base file is smaller than
``hoodie.clustering.plan.strategy.small.file.limit`` (a slice without a base file counts as
``hoodie.parquet.max.file.size`` and is always small), except file groups under a pending
compaction or clustering, sorted by size (largest first) and cut into groups of at most
``...max.bytes.per.group`` bytes, each writing ``ceil(bytes / ...target.file.max.bytes)`` output
file groups. A lone slice left at the end of a partition makes a group only when sorting is on or
``...single.group.clustering.enabled``; at most ``...max.num.groups`` groups per plan.

Execution follows ``SparkSortAndSizeExecutionStrategy`` with Hudi's default
``preserveHoodieMetadata``: rows keep ``_hoodie_commit_time``/``_hoodie_commit_seqno``/keys (so
incremental queries still see each row at the commit that wrote it); only
``_hoodie_file_name`` changes. A group's rows are sorted (ascending, nulls first, as Spark's
``Dataset.sort``), split into ``numOutputFileGroups`` contiguous ranges and each range written by
:func:`~hudi_sql.write.handles.write_rolling` capped at the target size.

Writers and pending clustering (``hoodie.clustering.updates.strategy``): with Hudi's default
``SparkRejectUpdateStrategy`` an update or delete of a file group under pending clustering fails
(:func:`check_updates_against_pending_clustering`, called by the write path before its instant
starts); ``SparkAllowUpdateStrategy`` lets it through, and the clustering then refuses to
complete (and rolls itself back) because committing it would hide that write.
"""

from __future__ import annotations

__all__ = [
    "SORT_AND_SIZE_STRATEGY",
    "ClusteringGroup",
    "ClusteringInputs",
    "ClusteringPlan",
    "ClusteringSlice",
    "cluster",
    "load_clustering_inputs",
    "maybe_cluster",
    "plan_clustering",
    "plan_clustering_from",
    "run_clustering",
    "schedule_clustering",
]

import json
import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hudi_sql.commit.rollback import rollback_instant
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.commit.transaction import Transaction
from hudi_sql.config import HudiConfigs, HudiServiceConfig, IndexType
from hudi_sql.config.resolve import Resolved, WriteConfig
from hudi_sql.config.scoped import ClusteringConfig
from hudi_sql.errors import (
    CommitConflictError,
    HudiConfigError,
    HudiTimelineError,
    UnsupportedFeatureError,
    did_you_mean,
)
from hudi_sql.model.commit_metadata import CommitMetadata, RuntimeStats, WriteStat
from hudi_sql.model.file_group import FileSlice
from hudi_sql.model.file_names import new_file_id
from hudi_sql.model.instant import METADATA_BOOTSTRAP_INSTANT, Action, Instant, State
from hudi_sql.model.instant_payloads import (
    CLUSTER_OPERATION,
    SORT_AND_SIZE_STRATEGY,
    SORT_COLUMNS_PARAM,
    ClusteringGroup,
    ClusteringPlan,
    ClusteringSlice,
)
from hudi_sql.model.timeline import Timeline
from hudi_sql.services.attempt import attempt, pending_to_run
from hudi_sql.services.clustering_exec import STATUS_DDL, clusterer_task, handle_options
from hudi_sql.services.pending_clustering import (
    commits_since_last_clustering,
    pending_clustering_file_groups,
    pending_clustering_instants,
)
from hudi_sql.spark.local_frame import task_frame
from hudi_sql.spark.schema import from_avro_schema
from hudi_sql.storage.fs import FileStatus
from hudi_sql.table.fs_view import FileSystemView, build_file_groups, refuse_bootstrap_skeletons
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_log = logging.getLogger(__name__)

_MB = 1024 * 1024
# -- planning (pure) ----------------------------------------------------------------------


@dataclass(frozen=True)
class ClusteringInputs:
    """Everything planning decides from, loaded beforehand (see :func:`load_clustering_inputs`).

    Attributes:
        timeline: the active timeline, every state of every action.
        partitions: partition path -> the partition folder's listing.
        replaced: (partition, file id) of groups replaced by completed replacecommits.
        busy: (partition, file id) of groups under a pending compaction or clustering.
    """

    timeline: Timeline
    partitions: Mapping[str, tuple[FileStatus, ...]]
    replaced: frozenset[tuple[str, str]] = frozenset()
    busy: frozenset[tuple[str, str]] = frozenset()

    def latest_slices(self, partition: str) -> list[FileSlice]:
        groups = build_file_groups(partition, self.partitions[partition], self.timeline,
                                   replaced=set(self.replaced))
        return [g.latest_slice for g in groups if g.latest_slice is not None]


def _slice_size(file_slice: FileSlice, settings: ClusteringConfig) -> int:
    # Java sizes a slice by its base file only; without one it assumes a full-size file.
    return file_slice.base_file.size if file_slice.base_file is not None else settings.parquet_max_file_size


def _metrics(slices: Iterable[FileSlice], default_base_size: int) -> dict[str, float]:
    """``FileSliceMetricUtils.addFileSliceCommonMetrics`` (sizes in whole MB, as Java's ``getSizeInMB``)."""
    slices = list(slices)
    log_files = sum(len(s.log_files) for s in slices)
    log_bytes = sum(lf.size for s in slices for lf in s.log_files if lf.size >= 0)
    base_bytes = [s.base_file.size if s.base_file else 0 for s in slices]
    read_mb = (sum(base_bytes) + log_bytes) // _MB
    write_mb = sum(b if b > 0 else default_base_size for b in base_bytes) // _MB
    return {"TOTAL_IO_READ_MB": float(read_mb), "TOTAL_IO_WRITE_MB": float(write_mb),
            "TOTAL_IO_MB": float(read_mb + write_mb), "TOTAL_LOG_FILES_SIZE": float(log_bytes),
            "TOTAL_LOG_FILES": float(log_files)}


def _to_clustering_slice(file_slice: FileSlice) -> ClusteringSlice:
    return ClusteringSlice(file_slice.partition_path, file_slice.file_id,
                           file_slice.base_file.path if file_slice.base_file else None,
                           tuple(lf.path for lf in file_slice.log_files))


def _groups_for_partition(slices: list[FileSlice], settings: ClusteringConfig) -> list[ClusteringGroup]:
    ordered = sorted(slices, key=lambda s: (-_slice_size(s, settings), s.file_id))
    cut: list[tuple[list[FileSlice], int]] = []
    current: list[FileSlice] = []
    total = 0
    for file_slice in ordered:
        size = _slice_size(file_slice, settings)
        if current and total + size > settings.max_bytes_per_group:
            cut.append((current, total))
            current, total = [], 0
            if len(cut) >= settings.max_num_groups:
                break
        current.append(file_slice)
        total += size
    if current and (len(current) > 1 or settings.single_group or settings.sort_columns):
        cut.append((current, total))  # empty after the max-groups break, as in Java
    return [ClusteringGroup(tuple(_to_clustering_slice(s) for s in members),
                            max(1, math.ceil(total / settings.target_file_max_bytes)),
                            _metrics(members, settings.parquet_max_file_size))
            for members, total in cut]


def plan_clustering_from(inputs: ClusteringInputs, settings: ClusteringConfig, *,
                         instant_time: str) -> ClusteringPlan | None:
    """The clustering plan for *inputs*, or ``None`` when no partition has files worth rewriting.

    Pure: decides from the loaded timeline and listings only.
    """
    groups: list[ClusteringGroup] = []
    for partition in sorted(p for p in inputs.partitions if settings.plans_partition(p)):
        eligible = [s for s in inputs.latest_slices(partition)
                    if (partition, s.file_id) not in inputs.busy
                    and (s.base_file.size if s.base_file else 0) < settings.small_file_limit]
        groups.extend(_groups_for_partition(eligible, settings)[:settings.max_num_groups])
        if len(groups) >= settings.max_num_groups:
            break
    groups = groups[:settings.max_num_groups]
    if not groups:
        return None
    params = {SORT_COLUMNS_PARAM: ",".join(settings.sort_columns)} if settings.sort_columns else {}
    return ClusteringPlan(instant_time, tuple(groups), SORT_AND_SIZE_STRATEGY, params,
                          settings.preserve_commit_metadata)


def load_clustering_inputs(meta: TableMetaClient, *, use_metadata: bool = True) -> ClusteringInputs:
    """List the partitions and read what planning needs (replaced and busy file groups); through
    the metadata table when *use_metadata* (the operation's ``hoodie.metadata.enable``).

    Raises:
        UnsupportedFeatureError: a metadata-only bootstrap, whose skeletons clustering would
            rewrite as rows of nulls.
    """
    view = FileSystemView(meta, use_metadata=use_metadata)
    timeline = meta.timeline
    if timeline.contains_time(METADATA_BOOTSTRAP_INSTANT):
        refuse_bootstrap_skeletons(view.latest_file_slices(), meta.table_name, "cluster")
    if view.is_empty:
        return ClusteringInputs(timeline, {})
    partitions = {p: tuple(meta.storage.list(meta.layout.partition_dir(p))) for p in view.partition_paths()}
    busy = set(pending_clustering_file_groups(meta))
    if timeline.pending_compactions():
        busy |= set(meta.pending_compaction_operations())
    return ClusteringInputs(timeline, partitions, frozenset(view.replaced_file_groups()), frozenset(busy))


def plan_clustering(meta: TableMetaClient, config: ClusteringConfig, *,
                    instant_time: str) -> ClusteringPlan | None:
    """The plan a clustering at *instant_time* would run (nothing is written: a dry run)."""
    settings = config.for_planning()
    return plan_clustering_from(load_clustering_inputs(meta), settings, instant_time=instant_time)


# -- scheduling -----------------------------------------------------------------------------


def _check_sort_columns(columns: Iterable[str], schema_json: str | None, table: str) -> None:
    if not columns or not schema_json:
        return

    struct = from_avro_schema(schema_json)
    names = {f.name: f for f in struct.fields}
    for column in columns:
        if column not in names and not column.startswith("_hoodie_"):
            raise HudiConfigError(
                f"Clustering sort column '{column}' is not a column of table '{table}'."
                f"{did_you_mean(column, names)}", help=f"the columns are: {', '.join(names)}")
        if column in names and names[column].dataType.typeName() in ("struct", "array", "map"):
            kind = names[column].dataType.typeName()
            raise HudiConfigError(f"Clustering sort column '{column}' is a {kind}; only scalar columns sort.")


def _check_index(write: WriteConfig, table: str) -> None:
    if write.index_type is IndexType.BUCKET:
        raise UnsupportedFeatureError(
            f"Cannot cluster '{table}': it uses the BUCKET index, whose file groups are named by bucket "
            "and must not be rewritten into new file groups.")


def schedule_clustering(meta: TableMetaClient, options: Resolved | HudiConfigs | None = None) -> ClusteringPlan | None:
    """Write ``<t>.replacecommit.requested`` (``<t>.clustering.requested`` on version 8) with the
    plan (or nothing when there is nothing to do)."""
    resolved = Resolved.of(options)
    _check_index(resolved.write, meta.table_name)
    with TimelineWriter(meta, resolved).transaction("schedule clustering") as writer:
        clusterings = {i.instant_time for i in meta.pending_clustering_instants()}
        writes = [i for i in meta.timeline.pending_writes() if i.instant_time not in clusterings]
        if writes:
            raise HudiTimelineError(
                f"Cannot schedule a clustering on '{meta.table_name}' while a write is pending ({writes[0]}).",
                help="finish or roll back the write first")
        settings = resolved.clustering.for_planning()
        _check_sort_columns(settings.sort_columns, meta.latest_schema(), meta.table_name)
        instant_time = writer.next_instant_time()
        inputs = load_clustering_inputs(meta, use_metadata=resolved.metadata.enable)
        plan = plan_clustering_from(inputs, settings, instant_time=instant_time)
        if plan is None:
            _log.info("Nothing to cluster in '%s'.", meta.table_name)
            return None
        writer.request(Instant(instant_time, meta.clustering_action, State.REQUESTED), plan)
    meta.reload_timeline()
    _log.info("Scheduled clustering %s: %d groups, %d file slices.", instant_time, len(plan.groups),
              len(plan.input_file_groups()))
    return plan


# -- execution --------------------------------------------------------------------------------


def _conflicts(meta: TableMetaClient, plan: ClusteringPlan) -> dict[tuple[str, str], str]:
    """Input groups that a write completed after the clustering was scheduled changed or replaced."""
    inputs = set(plan.input_file_groups())
    hits: dict[tuple[str, str], str] = {}
    for instant in meta.timeline.completed_writes():
        if instant.instant_time <= plan.instant_time:
            continue
        metadata = meta.commit_metadata(instant)
        for key in sorted(inputs & (metadata.file_ids_written() | metadata.replaced_file_ids())):
            hits.setdefault(key, instant.instant_time)
    return hits


def _abort_on_conflict(meta: TableMetaClient, plan: ClusteringPlan, options: Resolved) -> None:
    hits = _conflicts(meta, plan)
    if not hits:
        return
    (partition, file_id), other = min(hits.items())
    action = meta.clustering_action
    state = State.INFLIGHT if meta.timeline.find(plan.instant_time, action, State.INFLIGHT) else State.REQUESTED
    rollback_instant(meta, Instant(plan.instant_time, action, state), options)
    raise CommitConflictError(
        f"Clustering {plan.instant_time} of '{meta.table_name}' was rolled back: instant {other} wrote "
        f"file group {file_id} in partition '{partition}' after the clustering was scheduled, and "
        "completing the clustering would hide that write.",
        help="schedule the clustering again; it will plan over the current files")


def run_clustering(spark: SparkSession, meta: TableMetaClient, instant_time: str | None = None,
                   options: Resolved | HudiConfigs | None = None) -> tuple[str, CommitMetadata] | None:
    """Execute a scheduled clustering (the earliest pending one by default) and commit it.

    Raises:
        HudiTimelineError: *instant_time* is not a pending clustering.
        CommitConflictError: a write changed an input file group since scheduling; the
            clustering was rolled back.
        ConcurrentWriterError: another run is executing that clustering (its heartbeat is alive).
    """
    resolved = Resolved.of(options)
    meta.reload_timeline()
    instant_time = pending_to_run(
        pending_clustering_instants(meta), instant_time, "clustering", meta.table_name,
        help="schedule one first (hudi_sql.services.clustering.schedule_clustering)")
    if instant_time is None:
        return None
    plan = meta.clustering_plan(instant_time)
    if not plan.strategy_class.endswith("SortAndSizeExecutionStrategy"):
        raise UnsupportedFeatureError(
            f"Clustering {instant_time} uses execution strategy '{plan.strategy_class}'.",
            help=f"hudi-sql runs {SORT_AND_SIZE_STRATEGY} plans only")
    schema_json = meta.latest_schema()
    _check_sort_columns(plan.sort_columns, schema_json, meta.table_name)
    _abort_on_conflict(meta, plan, resolved)
    inflight = Instant(instant_time, meta.clustering_action, State.INFLIGHT)
    workload = {p: tuple(WriteStat(file_id=f, path=None, partition_path=None) for f in ids)
                for p, ids in plan.replaced_file_ids().items()}
    with attempt(meta, "clustering", inflight, CommitMetadata(workload, CLUSTER_OPERATION), resolved) as heartbeat:
        metadata = _execute_clustering(spark, meta, plan, instant_time, resolved, schema_json)
        meta.reload_timeline()
        _abort_on_conflict(meta, plan, resolved)
        Transaction.resume(meta, Action.REPLACE_COMMIT, instant_time, resolved,
                           pending_action=meta.clustering_action, heartbeat=heartbeat).complete(metadata)
    _log.info("Completed clustering %s: %d file groups rewritten as %d files.", instant_time,
              len(plan.input_file_groups()), len(metadata.write_stats()))
    return instant_time, metadata


def _execute_clustering(spark: SparkSession, meta: TableMetaClient, plan: ClusteringPlan, instant_time: str,
                        resolved: Resolved, schema_json: str | None) -> CommitMetadata:
    """Rewrite every group of *plan* in Spark tasks; the commit metadata of the new files."""
    from pyspark.sql.types import StructType

    struct: StructType = from_avro_schema(schema_json) if schema_json else StructType([])

    # New file ids are drawn here, once: a retried task writes the same groups under another token.
    rows = [(index, group.partition_path,
             json.dumps([[s.partition_path, s.file_id, s.base_file_path, list(s.log_file_paths)]
                         for s in group.slices]),
             json.dumps([new_file_id() for _ in range(group.num_output_file_groups)]))
            for index, group in enumerate(plan.groups)]
    frame = task_frame(spark, rows, "group_index int, partition_path string, slices string, file_ids string")
    ordering_field, payload = meta.record_payload()
    first = meta.timeline.write_timeline().first
    options = handle_options(meta, resolved, instant_time, schema_json or "", struct.json())
    clusterer = clusterer_task(
        meta.base_path, json.dumps(options), struct.json(), plan.sort_columns, plan.preserve_hoodie_metadata,
        tuple(meta.timeline.completed_writes().times()), first.instant_time if first else None,
        ordering_field, payload, meta.recomputed_key_spec())
    statuses = frame.mapInArrow(clusterer, STATUS_DDL).collect()
    stats: dict[str, list[WriteStat]] = {}
    for r in sorted(statuses, key=lambda r: (r["partition_path"], r["file_id"])):
        stats.setdefault(r["partition_path"], []).append(WriteStat(
            file_id=r["file_id"], path=r["path"], partition_path=r["partition_path"], prev_commit="null",
            num_writes=r["num_writes"], num_inserts=r["num_writes"], total_write_bytes=r["file_size"],
            file_size_in_bytes=r["file_size"], runtime_stats=RuntimeStats(0, 0, r["millis"])))
    return CommitMetadata({p: tuple(s) for p, s in stats.items()}, CLUSTER_OPERATION,
                          {"schema": schema_json or ""},
                          partition_to_replace_file_ids=plan.replaced_file_ids())


# -- entry points --------------------------------------------------------------------------


def cluster(spark: SparkSession, path: str, options: Mapping[str, Any] | None = None, *,
            schedule: bool = True, execute: bool = True, order: str | None = None,
            instant_time: str | None = None) -> str | None:
    """Schedule and/or execute a clustering of the table at *path*; returns its instant (or None).

    Args:
        options: clustering (and parquet/bloom) options, e.g. the target file size.
        schedule: plan a new clustering (``<t>.replacecommit.requested``).
        execute: run it; with nothing newly planned, the earliest pending clustering runs.
        order: sort columns (comma-separated), overriding
            ``hoodie.clustering.plan.strategy.sort.columns``.
        instant_time: execute this pending clustering instead of scheduling one.
    """
    meta = TableMetaClient.load(path)
    merged = {str(k): v for k, v in (options or {}).items()}
    if order is not None:
        merged[str(HudiServiceConfig.CLUSTERING_SORT_COLUMNS)] = order
    resolved = Resolved.of(merged)
    if schedule and instant_time is None:
        plan = schedule_clustering(meta, resolved)
        if plan is None and not execute:
            return None
        instant_time = plan.instant_time if plan else None
    if not execute:
        return instant_time
    result = run_clustering(spark, meta, instant_time, resolved)
    return result[0] if result else None


def maybe_cluster(spark: SparkSession, meta: TableMetaClient,
                  options: Resolved | HudiConfigs | Mapping[str, object]) -> str | None:
    """Inline clustering after a commit (``hoodie.clustering.inline``): once at least
    ``hoodie.clustering.inline.max.commits`` commits completed since the last clustering,
    schedule a clustering and run it (Java's ``inlineClustering``). Returns its instant."""
    resolved = Resolved.of(options)
    config = resolved.clustering
    if not config.inline:
        return None
    meta.reload_timeline()
    since = commits_since_last_clustering(meta)
    wanted = config.inline_max_commits
    if since < wanted:
        _log.debug("Inline clustering waits: %d of %d commits since the last clustering.", since, wanted)
        return None
    plan = schedule_clustering(meta, resolved)
    if plan is None:
        return None
    run_clustering(spark, meta, plan.instant_time, resolved)
    return plan.instant_time
