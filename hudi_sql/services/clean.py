"""The cleaner: delete file slices that retention no longer needs (Hudi 0.14 ``CleanPlanner``).

Lifecycle (table version 6; each step is a new file in ``.hoodie/``)::

    plan       pure, over the loaded timeline and partition listings -> CleanerPlan | None
    schedule   <t>.clean.requested   Avro HoodieCleanerPlan (only when it deletes something)
    execute    <t>.clean.inflight    the same bytes; then the files are deleted (Spark tasks
                                     when a session is given and the plan is large)
    complete   <t>.clean             Avro HoodieCleanMetadata

A pending clean (requested or inflight without a completed file) is finished by the next
:func:`clean` before it plans a new one, as Java's ``CleanActionExecutor`` does.

What is never deleted, whatever the policy:

* any file of the latest slice of a file group that is not replaced;
* any slice holding a file listed by a completed savepoint (``HoodieSavepointMetadata``);
* slices a pending compaction needs (base instant >= the operation's base instant);
* files of pending or failed writes (they are not committed slices; rollback owns them).

Policies (``hoodie.cleaner.policy``):

* ``KEEP_LATEST_COMMITS``: with C completed commits and N retained, the earliest commit to
  retain (ECTR) is the (C-N+1)-th, moved back to before the oldest pending write or
  compaction. Per file group, the latest slice and the newest slice older than ECTR stay
  (a query as of any commit >= ECTR, or as of the commit just before it, reads them); older
  slices go.
* ``KEEP_LATEST_BY_HOURS``: the same, with ECTR the first completed commit at or after
  ``now - H hours`` (instant times are UTC here).
* ``KEEP_LATEST_FILE_VERSIONS``: the N newest slices of each file group stay.

File groups replaced by a completed replacecommit are deleted whole once that replacecommit
is older than ECTR (under KEEP_LATEST_FILE_VERSIONS: at once). A partition whose file groups
are all gone and that holds no pending files is deleted too.

Planning reads everything it needs first (:func:`load_clean_inputs`), then decides in
:func:`plan_clean_from`, which touches no storage and is tested without a file system. The
clean instants are published by :class:`~hudi_sql.commit.timeline_writer.TimelineWriter`;
plans and metadata are read back through the meta client.
"""

from __future__ import annotations

__all__ = [
    "CLEAN_METADATA_VERSION",
    "CLEAN_PLAN_VERSION",
    "CleanInputs",
    "CleanResult",
    "CleanerPlan",
    "clean",
    "earliest_commit_to_retain",
    "execute_clean",
    "load_clean_inputs",
    "maybe_clean",
    "plan_clean",
    "plan_clean_from",
]

import logging
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import partial
from typing import TYPE_CHECKING, Any

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiConfigs
from hudi_sql.config.resolve import Resolved
from hudi_sql.config.scoped import CleanConfig
from hudi_sql.config.services import CleanerPolicy
from hudi_sql.errors import HudiError
from hudi_sql.model.file_group import FileGroup, FileSlice
from hudi_sql.model.file_names import PARTITION_METADATA_FILE, is_data_file_name
from hudi_sql.model.instant import Action, Instant, State, format_instant_time
from hudi_sql.model.instant_payloads import (
    CLEAN_METADATA_VERSION,
    CLEAN_PLAN_VERSION,
    SAVEPOINTED_TIMESTAMPS,
    CleanerPlan,
)
from hudi_sql.model.timeline import Timeline
from hudi_sql.services.savepoint import savepointed_files
from hudi_sql.storage.fs import FileStatus, Storage
from hudi_sql.table.fs_view import FileSystemView, build_file_groups
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_log = logging.getLogger(__name__)

# -- settings and inputs ---------------------------------------------------------------


@dataclass(frozen=True)
class CleanInputs:
    """Everything the cleaner decides from, loaded beforehand (see :func:`load_clean_inputs`).

    Attributes:
        timeline: the active timeline, every state of every action.
        partitions: partition path -> the partition folder's listing.
        replaced_file_ids: completed replacecommit time -> partition -> replaced file ids.
        savepoints: completed savepoint time -> the file names it pins.
        pending_compactions: (partition, file id) -> base instant of its pending compaction
            operation.
        last_clean_commit_time: ``lastCompletedCommitTimestamp`` of the last completed clean
            (``None`` when the table was never cleaned); drives ``hoodie.clean.max.commits``.
    """

    timeline: Timeline
    partitions: Mapping[str, tuple[FileStatus, ...]]
    replaced_file_ids: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    savepoints: Mapping[str, frozenset[str]] = field(default_factory=dict)
    pending_compactions: Mapping[tuple[str, str], str] = field(default_factory=dict)
    last_clean_commit_time: str | None = None


# -- planning (pure) ----------------------------------------------------------------------


def earliest_commit_to_retain(timeline: Timeline, settings: CleanConfig, *,
                              now: datetime | None = None) -> Instant | None:
    """ECTR of the commit-based policies (Java ``CleanerUtils.getEarliestCommitToRetain``).

    KEEP_LATEST_COMMITS: the N-th newest completed commit, but never after the oldest
    pending write or compaction (a query may need the slices that instant will replace).
    KEEP_LATEST_BY_HOURS: the first completed commit at or after ``now - H hours``.
    KEEP_LATEST_FILE_VERSIONS: ``None``.
    """
    completed = timeline.completed_writes().instants
    if settings.policy is CleanerPolicy.KEEP_LATEST_COMMITS:
        if len(completed) <= settings.commits_retained:
            return None
        nth = completed[len(completed) - settings.commits_retained]
        pending = timeline.write_timeline().pending().first
        if pending is not None and nth.instant_time > pending.instant_time:
            before = [c for c in completed if c.instant_time < pending.instant_time]
            return before[-1] if before else None
        return nth
    if settings.policy is CleanerPolicy.KEEP_LATEST_BY_HOURS:
        moment = (now or datetime.now(timezone.utc)) - timedelta(hours=settings.hours_retained)
        bound = format_instant_time(moment)
        return next((c for c in completed if c.instant_time >= bound), None)
    return None


def _commits_since(timeline: Timeline, last_clean_commit_time: str | None) -> int:
    completed = timeline.completed_writes()
    if last_clean_commit_time is None:
        return len(completed)
    return sum(1 for c in completed if c.instant_time > last_clean_commit_time)


def _slice_files(file_slice: FileSlice) -> list[str]:
    files = [file_slice.base_file.path] if file_slice.base_file else []
    return files + [lf.path for lf in (*file_slice.log_files, *file_slice.cdc_files)]


def _is_savepointed(file_slice: FileSlice, pinned: frozenset[str]) -> bool:
    if file_slice.base_file is not None and file_slice.base_file.file_name in pinned:
        return True
    return any(lf.file_name in pinned for lf in file_slice.log_files)


def plan_clean_from(inputs: CleanInputs, settings: CleanConfig, *,
                    now: datetime | None = None) -> CleanerPlan | None:
    """Decide what to delete; ``None`` when the trigger is not met or nothing is to be deleted.

    Pure: reads only *inputs*. Mirrors Java ``CleanPlanner`` (``getFilesToCleanKeepingLatest
    Commits`` / ``...Versions`` / ``...Hours`` and ``getReplacedFilesEligibleToClean``).
    """
    timeline = inputs.timeline
    if _commits_since(timeline, inputs.last_clean_commit_time) < settings.max_commits:
        return None
    ectr = earliest_commit_to_retain(timeline, settings, now=now)
    by_versions = settings.policy is CleanerPolicy.KEEP_LATEST_FILE_VERSIONS
    if not by_versions and ectr is None:
        return None  # not enough commits (or none in the window): nothing may go yet
    pinned = frozenset(name for names in inputs.savepoints.values() for name in names)
    replaced_at: dict[tuple[str, str], str] = {}
    for replace_time, partitions in sorted(inputs.replaced_file_ids.items()):
        for partition, file_ids in partitions.items():
            for file_id in file_ids:
                replaced_at.setdefault((partition, file_id), replace_time)
    files: dict[str, tuple[str, ...]] = {}
    partitions_to_delete: list[str] = []
    for partition, listing in sorted(inputs.partitions.items()):
        groups = build_file_groups(partition, listing, timeline)
        active = [g for g in groups if (partition, g.file_group_id.file_id) not in replaced_at]
        doomed: list[str] = []
        for group in groups:
            replaced_by = replaced_at.get((partition, group.file_group_id.file_id))
            if replaced_by is not None and (ectr is None or replaced_by < ectr.instant_time):
                for file_slice in group.slices:
                    if not _is_savepointed(file_slice, pinned):
                        doomed.extend(_slice_files(file_slice))
        for group in active:
            if by_versions:
                doomed.extend(_by_versions(group, settings.file_versions_retained, pinned, inputs.pending_compactions))
            else:
                assert ectr is not None
                doomed.extend(_by_commits(group, ectr.instant_time, pinned, inputs.pending_compactions))
        _check_latest_slices_kept(active, doomed)
        if doomed:
            files[partition] = tuple(doomed)
        left = {st.path for st in listing if is_data_file_name(st.name)} - set(doomed)
        if not active and not left and not _has_pending_files(partition, listing, timeline, replaced_at) and (
                ectr is None or not any(t >= ectr.instant_time for (p, _), t in replaced_at.items() if p == partition)):
            partitions_to_delete.append(partition)  # no data file survives (savepointed ones would)
    if not files:
        return None  # Java schedules a clean only when it deletes something
    completed = timeline.completed_writes().last
    return CleanerPlan(
        policy=settings.policy,
        earliest_instant_to_retain=ectr,
        last_completed_commit_time=completed.instant_time if completed else "",
        files_to_delete=files,
        partitions_to_delete=tuple(partitions_to_delete),
        savepointed_timestamps=tuple(sorted(inputs.savepoints)),
    )


def _needed_for_compaction(file_slice: FileSlice, pending: Mapping[tuple[str, str], str]) -> bool:
    base = pending.get((file_slice.partition_path, file_slice.file_id))
    return base is not None and file_slice.base_instant_time >= base


def _by_commits(group: FileGroup, ectr: str, pinned: frozenset[str],
                pending: Mapping[tuple[str, str], str]) -> list[str]:
    newest_first = list(reversed(group.slices))
    if not newest_first:
        return []
    latest = newest_first[0].base_instant_time
    # The slice a query as of the commit just before ECTR reads: the newest one older than ECTR.
    before_ectr = next((s.base_instant_time for s in newest_first if s.base_instant_time < ectr), None)
    doomed: list[str] = []
    for file_slice in newest_first:
        if _is_savepointed(file_slice, pinned):
            continue
        if file_slice.base_instant_time in (latest, before_ectr):
            continue
        if not _needed_for_compaction(file_slice, pending) and file_slice.base_instant_time < ectr:
            doomed.extend(_slice_files(file_slice))
    return doomed


def _by_versions(group: FileGroup, versions: int, pinned: frozenset[str],
                 pending: Mapping[tuple[str, str], str]) -> list[str]:
    candidates = [s for s in reversed(group.slices) if not _needed_for_compaction(s, pending)]
    keep = versions
    if (group.file_group_id.partition_path, group.file_group_id.file_id) in pending:
        keep -= 1  # the slice the compaction reads is already kept above
    doomed: list[str] = []
    for file_slice in candidates[max(keep, 0):]:
        if not _is_savepointed(file_slice, pinned):
            doomed.extend(_slice_files(file_slice))
    return doomed


def _has_pending_files(partition: str, listing: Iterable[FileStatus], timeline: Timeline,
                       replaced_at: Mapping[tuple[str, str], str]) -> bool:
    """Files of any instant (pending ones too) outside replaced groups (Java ``hasPendingFiles``)."""
    groups = build_file_groups(partition, listing, timeline, include_uncommitted=True)
    return any((partition, g.file_group_id.file_id) not in replaced_at for g in groups)


def _check_latest_slices_kept(active: list[FileGroup], doomed: list[str]) -> None:
    doomed_set = set(doomed)
    for group in active:
        latest = group.latest_slice
        if latest is not None and doomed_set.intersection(_slice_files(latest)):
            raise HudiError(f"Cleaner bug: the plan deletes the latest slice of file group {group.file_group_id}.",
                            help="please report it; nothing was deleted")


# -- loading the inputs --------------------------------------------------------------------


def load_clean_inputs(meta_client: TableMetaClient) -> CleanInputs:
    """Read the listings and instant files the cleaner decides from (the I/O half of planning)."""
    meta_client.reload_timeline()
    timeline = meta_client.timeline
    storage, layout = meta_client.storage, meta_client.layout
    view = FileSystemView(meta_client, include_uncommitted=True)
    partitions = {p: tuple(storage.list(layout.partition_dir(p))) for p in view.partition_paths()}
    replaced: dict[str, dict[str, tuple[str, ...]]] = {}
    for instant in timeline.completed().with_actions(Action.REPLACE_COMMIT):
        ids = meta_client.commit_metadata(instant).partition_to_replace_file_ids or {}
        replaced[instant.instant_time] = {p: tuple(f) for p, f in ids.items()}
    pending: dict[tuple[str, str], str] = {}
    if timeline.pending_compactions():
        for instant in timeline.pending_compactions():
            for op in meta_client.compaction_plan(instant.instant_time).operations:
                pending[(op.partition_path, op.file_id)] = op.base_instant
    last_clean = _last_completed_clean(meta_client)
    return CleanInputs(
        timeline=timeline,
        partitions=partitions,
        replaced_file_ids=replaced,
        savepoints=savepointed_files(meta_client),
        pending_compactions=pending,
        last_clean_commit_time=last_clean.get("lastCompletedCommitTimestamp", "") if last_clean else None,
    )


def _last_completed_clean(meta_client: TableMetaClient) -> dict[str, Any] | None:
    last = meta_client.timeline.completed().with_actions(Action.CLEAN).last
    if last is None:
        return None
    return meta_client.clean_metadata(last.instant_time)


def plan_clean(meta_client: TableMetaClient, options: Resolved | HudiConfigs | Mapping[str, object] | None = None, *,
               now: datetime | None = None) -> CleanerPlan | None:
    """The clean the table needs now, or ``None``; nothing is written or deleted.

    The trigger and the retention window are checked on the timeline first, so a table with
    nothing to clean is not listed (this runs after every commit when ``hoodie.clean.automatic``).

    Args:
        meta_client: the table (its timeline is reloaded).
        options: ``hoodie.cleaner.*`` / ``hoodie.clean.*`` options.
        now: the clock for KEEP_LATEST_BY_HOURS (default: the current UTC time).
    """
    settings = Resolved.of(options).clean
    meta_client.reload_timeline()
    last_clean = _last_completed_clean(meta_client)
    last_commit_time = last_clean.get("lastCompletedCommitTimestamp", "") if last_clean else None
    timeline = meta_client.timeline
    if _commits_since(timeline, last_commit_time) < settings.max_commits:
        return None
    if settings.policy is not CleanerPolicy.KEEP_LATEST_FILE_VERSIONS and earliest_commit_to_retain(
            timeline, settings, now=now) is None:
        return None
    return plan_clean_from(load_clean_inputs(meta_client), settings, now=now)


# -- execution -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CleanResult:
    """What a clean did (or, with ``dry_run``, would do: ``plan`` only)."""

    plan: CleanerPlan | None
    instant_time: str | None = None
    deleted_files: tuple[str, ...] = ()
    failed_files: tuple[str, ...] = ()
    deleted_partitions: tuple[str, ...] = ()
    dry_run: bool = False

    @property
    def total_deleted(self) -> int:
        return len(self.deleted_files)


def _delete_each(storage: Storage, paths: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Delete files; ``False`` for a file that was already gone (Java counts it as failed)."""
    for path in paths:
        yield path, storage.delete(path)


def _delete_files(storage: Storage, paths: list[str], spark: SparkSession | None, parallelism: int,
                  threshold: int) -> dict[str, bool]:
    if spark is not None and len(paths) >= threshold:
        slices = max(1, min(parallelism, len(paths)))
        return dict(spark.sparkContext.parallelize(paths, slices).mapPartitions(partial(_delete_each, storage))
                    .collect())
    return dict(_delete_each(storage, paths))


def execute_clean(meta_client: TableMetaClient, plan: CleanerPlan, options: Resolved, *,
                  spark: SparkSession | None = None, instant_time: str | None = None, parallelism: int = 200,
                  parallel_threshold: int = 100) -> CleanResult:
    """Schedule and run *plan*: requested, inflight, deletes, completed clean instant.

    Args:
        meta_client: the table.
        plan: from :func:`plan_clean`.
        options: the operation's (its lock and metadata table options).
        spark: when given and the plan has at least *parallel_threshold* files, Spark tasks
            delete them; otherwise the driver does.
        instant_time: the clean instant (default: a new one after every instant on the timeline).
        parallelism: most Spark tasks (``hoodie.cleaner.parallelism``).
        parallel_threshold: the plan size from which Spark deletes.
    """
    writer = TimelineWriter(meta_client, options)
    with writer.transaction("schedule clean"):
        instant_time = writer.new_instant_time(instant_time, label="Clean instant")
        writer.request(Instant(instant_time, Action.CLEAN, State.REQUESTED), plan)
    return _run_clean(writer, instant_time, plan, spark=spark, parallelism=parallelism,
                      parallel_threshold=parallel_threshold)


def _run_clean(writer: TimelineWriter, instant_time: str, plan: CleanerPlan, *,
               spark: SparkSession | None, parallelism: int, parallel_threshold: int) -> CleanResult:
    started = time.time()
    meta_client = writer.meta_client
    storage, layout = meta_client.storage, meta_client.layout
    inflight = Instant(instant_time, Action.CLEAN, State.INFLIGHT)
    with writer.transaction(f"start clean {instant_time}"):
        if not writer.exists(inflight):
            # 0.14 passes the serialized plan on to the inflight file: same bytes as requested.
            writer.start(inflight, meta_client.read_instant_bytes(inflight.to(State.REQUESTED)), overwrite=True)
    paths = plan.all_files()
    for path in paths:
        _log.info("Clean %s: deleting %s", instant_time, path)
    outcome = _delete_files(meta_client.storage, paths, spark, parallelism, parallel_threshold)
    for partition in plan.partitions_to_delete:
        folder = layout.partition_dir(partition)
        others = [st.name for st in storage.list(folder) if not st.name.startswith(PARTITION_METADATA_FILE)]
        if others:
            _log.warning("Clean %s: partition folder %s is not empty (%s); kept.", instant_time, folder,
                         ", ".join(sorted(others)[:5]))
            continue
        _log.info("Clean %s: deleting partition folder %s", instant_time, folder)
        storage.delete_dir(folder)
    ectr = plan.earliest_instant_to_retain
    partition_metadata = {}
    for partition, files in plan.files_to_delete.items():
        names = [os.path.basename(p) for p in files]
        partition_metadata[partition] = {
            "partitionPath": partition,
            "policy": plan.policy.value,
            "deletePathPatterns": names,
            "successDeleteFiles": [os.path.basename(p) for p in files if outcome.get(p)],
            "failedDeleteFiles": [os.path.basename(p) for p in files if not outcome.get(p)],
            "isPartitionDeleted": partition in plan.partitions_to_delete,
        }
    metadata = {
        "startCleanTime": instant_time,
        "timeTakenInMillis": int((time.time() - started) * 1000),
        "totalFilesDeleted": sum(1 for ok in outcome.values() if ok),
        "earliestCommitToRetain": ectr.instant_time if ectr else "",
        "lastCompletedCommitTimestamp": plan.last_completed_commit_time,
        "partitionMetadata": partition_metadata,
        "version": CLEAN_METADATA_VERSION,
        "bootstrapPartitionMetadata": {},
        "extraMetadata": {SAVEPOINTED_TIMESTAMPS: ",".join(plan.savepointed_timestamps)}
        if plan.savepointed_timestamps else None,
    }
    with writer.transaction(f"complete clean {instant_time}"):
        writer.complete(Instant(instant_time, Action.CLEAN), metadata)
    meta_client.reload_timeline()
    deleted = tuple(p for p in paths if outcome.get(p))
    failed = tuple(p for p in paths if not outcome.get(p))
    _log.info("Clean %s deleted %d files (%d already gone), %d partitions.", instant_time, len(deleted),
              len(failed), len(plan.partitions_to_delete))
    return CleanResult(plan, instant_time, deleted, failed, plan.partitions_to_delete)


def finish_pending_cleans(meta_client: TableMetaClient, options: Resolved, *, spark: SparkSession | None = None,
                          parallelism: int = 200, parallel_threshold: int = 100) -> list[CleanResult]:
    """Run every clean left requested or inflight by an earlier process (their plans are on disk)."""
    meta_client.reload_timeline()
    results = []
    writer = TimelineWriter(meta_client, options)
    for instant in meta_client.timeline.pending().with_actions(Action.CLEAN):
        requested = instant.to(State.REQUESTED)
        if not writer.exists(requested) or not meta_client.read_instant_bytes(requested):
            _log.warning("Removing empty pending clean %s.", instant)
            with writer.transaction(f"remove empty clean {instant.instant_time}"):
                writer.delete_pending_states(instant)
            continue
        _log.info("Finishing pending clean %s.", instant)
        results.append(_run_clean(writer, instant.instant_time, meta_client.clean_plan(instant.instant_time),
                                  spark=spark, parallelism=parallelism, parallel_threshold=parallel_threshold))
    meta_client.reload_timeline()
    return results


def clean(path_or_meta: str | TableMetaClient, options: Resolved | HudiConfigs | Mapping[str, object] | None = None, *,
          dry_run: bool = False, spark: SparkSession | None = None, now: datetime | None = None) -> CleanResult:
    """Clean the table: finish pending cleans, plan, and (unless *dry_run*) execute.

    Args:
        path_or_meta: the table's base path, or its meta client.
        options: ``hoodie.cleaner.*`` / ``hoodie.clean.*`` options.
        dry_run: only plan; the result's ``plan`` lists (and the log shows) what would go.
        spark: lets large cleans delete in Spark tasks.
        now: the clock for KEEP_LATEST_BY_HOURS.

    Returns:
        The plan and what was deleted (``plan`` is ``None`` when nothing needs cleaning).
    """
    meta = path_or_meta if isinstance(path_or_meta, TableMetaClient) else TableMetaClient.load(path_or_meta)
    resolved = Resolved.of(options)
    settings = resolved.clean
    if not dry_run:
        finish_pending_cleans(meta, resolved, spark=spark, parallelism=settings.parallelism)
    plan = plan_clean(meta, resolved, now=now)
    if dry_run:
        if plan is not None:
            for path in plan.all_files():
                _log.info("Clean (dry run) would delete %s", path)
        return CleanResult(plan, dry_run=True)
    if plan is None:
        _log.info("Nothing to clean in '%s'.", meta.base_path)
        return CleanResult(None)
    return execute_clean(meta, plan, resolved, spark=spark, parallelism=settings.parallelism)


def maybe_clean(meta_client: TableMetaClient, options: Resolved | HudiConfigs | Mapping[str, object] | None = None, *,
                spark: SparkSession | None = None) -> CleanResult | None:
    """The post-commit hook: clean when ``hoodie.clean.automatic`` is on (Java ``autoCleanOnCommit``)."""
    resolved = Resolved.of(options)
    if not resolved.clean.automatic:
        return None
    return clean(meta_client, resolved, spark=spark)
