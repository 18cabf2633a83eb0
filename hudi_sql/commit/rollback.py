"""Rollback: undo a failed (pending) write, or the latest completed one on request.

Protocol for rolling back instant F with a new instant R (Java's order, table version 6):

1. ``R.rollback.requested`` holds the plan (Avro ``HoodieRollbackPlan``): the files to
   delete and the log files to cancel;
2. ``R.rollback.inflight`` (empty);
3. if F completed, its completed file goes first, so readers stop seeing F at once;
4. the base files F created (from its markers, else from its write stats, else by listing
   files carrying F's instant) are deleted; for log appends a ROLLBACK command block targeting
   F is written as a new log version of each slice F appended to, except to log files named by
   F itself (every log file of table version 8, and the first log of a new file group), which
   are deleted as Apache Hudi deletes them;
5. ``R.rollback`` holds ``HoodieRollbackMetadata``;
6. F's requested / inflight files and ``.hoodie/.temp/F/`` are removed.

Each step is safe to repeat, so a rollback that itself dies is finished by the next one: as
Apache Hudi's ``rollbackFailedWrites`` does, a pending ``R.rollback.requested`` / ``.inflight``
is re-executed *as R*, with the plan it recorded (:func:`pending_rollbacks`), never replaced by
a new rollback of F; this also holds when F's own files are already gone (the rollback died
after step 6). The instant files (R's, and F's removal in steps 3 and 6) are written and deleted by
:class:`~hudi_sql.commit.timeline_writer.TimelineWriter`, inside one of its transactions; this
module plans and deletes the data files.
"""

from __future__ import annotations

__all__ = [
    "PendingRollback",
    "RollbackPlan",
    "RollbackResult",
    "pending_rollbacks",
    "plan_rollback",
    "rollback_failed_writes",
    "rollback_instant",
    "rollback_latest_commit",
    "rollback_own_failed_write",
    "undo_instant",
]

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from hudi_sql.commit.heartbeat import delete_heartbeat, is_heartbeat_expired, live_writer_error
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config.concurrency import FailedWritesPolicy
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiError, HudiFileFormatError, HudiTimelineError
from hudi_sql.log.format import ROLLBACK_WRITE_TOKEN, encode_rollback_block
from hudi_sql.model.file_names import BaseFileName, LogFileName, parse_cdc_log_name
from hudi_sql.model.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_sql.model.instant_payloads import RollbackPlan, RollbackRequest
from hudi_sql.storage.fs import to_uri
from hudi_sql.storage.guard import inside_base
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.uri import qualify
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.markers import IOType, read_markers, validate_marker_name

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RollbackResult:
    rollback_instant_time: str
    rolled_back: Instant
    deleted_files: tuple[str, ...] = ()
    rollback_log_files: tuple[str, ...] = ()
    partitions: tuple[str, ...] = field(default_factory=tuple)


def plan_rollback(meta_client: TableMetaClient, instant: Instant) -> RollbackPlan:
    """What rolling back *instant* will delete or cancel (reads markers or commit metadata)."""
    storage, layout = meta_client.storage, meta_client.layout
    deletes: dict[str, list[str]] = defaultdict(list)
    appends: dict[tuple[str, str, str], None] = {}
    markers = read_markers(storage, layout, instant.instant_time)
    if markers:
        for marker in markers:
            try:
                validate_marker_name(layout, marker.name)
            except HudiError as exc:
                _log.error("Rollback of %s ignores marker %r: %s", instant, marker.name, exc)
                continue
            if marker.io_type is IOType.APPEND:
                base = BaseFileName.try_parse(marker.file_name)
                if base is not None:
                    appends[(marker.partition_path, base.file_id, base.instant_time)] = None
                continue
            path = layout.file_path(marker.partition_path, marker.file_name)
            if storage.exists(path):
                deletes[marker.partition_path].append(path)
            cdc = _cdc_log_of(layout, marker.partition_path, marker.file_name)
            if marker.io_type is IOType.MERGE and cdc is not None and storage.exists(cdc):
                deletes[marker.partition_path].append(cdc)  # the CDC log the merge wrote beside its file
    elif instant.is_completed:
        for stat in meta_client.commit_metadata(instant).write_stats():
            partition = stat.partition_path or ""
            deletes[partition].extend(layout.file_path("", p) for p, _ in stat.cdc_stats or ())
            if stat.is_delta and stat.path and meta_client.table_version < 8:
                appends[(partition, stat.file_id, stat.prev_commit)] = None
            elif stat.path:  # (from version 8 on a log file is named by the instant that wrote it: its own)
                deletes[partition].append(layout.file_path("", stat.path))
    else:
        # No markers (e.g. killed before the first task started, or markers already cleared):
        # base files carry the instant in their name; log appends are found from the slices the
        # inflight workload profile says this instant updated.
        if (instant.action is Action.DELTA_COMMIT and meta_client.table_version < 8
                and storage.exists(meta_client.instant_file_path(instant.to(State.INFLIGHT)))):
            workload = meta_client.inflight_workload(instant)
            for partition, stats in workload.partition_to_write_stats.items():
                for stat in stats:
                    if stat.file_id and not stat.new_file_group:
                        appends[(partition, stat.file_id, stat.prev_commit)] = None
        for status in storage.walk_files(meta_client.base_path):
            if "/.hoodie/" in status.path:
                continue
            name = BaseFileName.try_parse(status.name)
            log = LogFileName.try_parse(status.name) if name is None and meta_client.table_version >= 8 else None
            cdc = parse_cdc_log_name(status.name) if name is None else None
            if cdc is not None and cdc.base_instant == instant.instant_time:
                deletes[layout.relative(status.path).rpartition("/")[0]].append(status.path)
            if (name is not None and name.instant_time == instant.instant_time) or (
                    log is not None and log.base_instant == instant.instant_time):
                partition = layout.relative(status.path).rpartition("/")[0]
                deletes[partition].append(status.path)
    cancels = []
    for (partition, file_id, base_instant) in sorted(appends):
        logs = _slice_log_files(meta_client, partition, file_id, base_instant)
        if base_instant == instant.instant_time:
            # Log files named by the instant that wrote them (all of table version 8's) are that
            # instant's alone and go whole, as Apache Hudi rolls them back.
            deletes[partition].extend(path for path, _ in logs)
        else:
            cancels.append(RollbackRequest(partition, file_id, base_instant, (), tuple(logs)))
    requests = [RollbackRequest(p, files_to_delete=tuple(sorted(set(files)))) for p, files in sorted(deletes.items())]
    return RollbackPlan(instant, tuple(requests + cancels))


def _cdc_log_of(layout: TableLayout, partition: str, base_file_name: str) -> str | None:
    """The CDC log a merge handle writes beside *base_file_name* (same file id, write token and
    instant: :func:`hudi_sql.write.cdc_log.write_cdc_log`)."""
    base = BaseFileName.try_parse(base_file_name)
    if base is None:
        return None
    return layout.file_path(partition, LogFileName(base.file_id, base.instant_time, 1, base.write_token).cdc_name)


def _slice_log_files(meta_client: TableMetaClient, partition: str, file_id: str,
                     base_instant: str) -> list[tuple[str, int]]:
    out = []
    for status in meta_client.storage.list(meta_client.layout.partition_dir(partition)):
        name = LogFileName.try_parse(status.name)
        if name and name.file_id == file_id and name.base_instant == base_instant:
            out.append((status.path, status.size))
    return sorted(out)


@dataclass(frozen=True)
class PendingRollback:
    """A rollback instant left requested or inflight, and the plan its requested file holds."""

    rollback: Instant
    plan: RollbackPlan


def pending_rollbacks(meta_client: TableMetaClient, writer: TimelineWriter | None = None) -> dict[str, PendingRollback]:
    """The pending rollbacks of the (loaded) timeline, by the instant time they roll back.

    Apache Hudi's ``getPendingRollbackInfos``: a requested file whose plan does not parse (the
    writer died writing it) is deleted, when a *writer* is given; an inflight one is skipped
    with a warning. Of two pending rollbacks of one instant the oldest is kept.
    """
    found: dict[str, PendingRollback] = {}
    for rollback in meta_client.timeline.pending().with_actions(Action.ROLLBACK):
        requested = rollback.to(State.REQUESTED)
        try:
            plan = _read_plan(meta_client, requested)
        except (OSError, EOFError, HudiFileFormatError, ValueError, KeyError, TypeError) as exc:
            if rollback.state is State.REQUESTED and writer is not None:
                _log.warning("Rollback plan %s does not read (%s); deleting it, it was never executed.",
                             requested.file_name, exc)
                writer.delete(requested)
            else:
                _log.warning("Rollback plan %s does not read (%s); skipped.", requested.file_name, exc)
            continue
        found.setdefault(plan.instant.instant_time, PendingRollback(rollback, plan))
    return found


def _read_plan(meta_client: TableMetaClient, requested: Instant) -> RollbackPlan:
    """A ``HoodieRollbackPlan`` read back; the rolled-back instant in its current state (inflight
    when its files are gone: Java rebuilds it the same way)."""
    record = meta_client.instant_record(requested)
    if not record:
        raise HudiFileFormatError(f"{requested.file_name} holds no rollback plan")
    target = record["instantToRollback"]
    time_, action = target["commitTime"], Action(target["action"])
    instant = (meta_client.timeline.latest_states().find(time_, action)
               or Instant(time_, action, State.INFLIGHT))
    requests = tuple(
        RollbackRequest(
            r.get("partitionPath") or "", r.get("fileId"), r.get("latestBaseInstant"),
            tuple(qualify(p) for p in r.get("filesToBeDeleted") or ()),
            tuple((qualify(p), int(size)) for p, size in (r.get("logBlocksToBeDeleted") or {}).items()),
        )
        for r in record.get("RollbackRequests") or ())
    return RollbackPlan(instant, requests)


def rollback_instant(meta_client: TableMetaClient, instant: Instant, options: Resolved, *,
                     rollback_time: str | None = None) -> RollbackResult:
    """Roll back one write instant (pending or completed), recording a rollback instant; under the
    lock and with the metadata table options of *options* (the operation's)."""
    result = _rollback(meta_client, instant, options, rollback_time=rollback_time, only_if_pending=False)
    assert result is not None
    return result


def _rollback(meta_client: TableMetaClient, instant: Instant, options: Resolved, *, rollback_time: str | None,
              only_if_pending: bool) -> RollbackResult | None:
    """Plan and undo *instant* in one hold of the table lock.

    With *only_if_pending* (a failed write), the instant's state is checked again under the
    lock: if its writer completed it meanwhile, nothing is touched (``None``). Planning under
    the lock too means the plan sees every file the failed writer left.
    """
    if instant.action not in WRITE_ACTIONS and instant.action is not Action.COMPACTION:
        raise HudiTimelineError(f"Cannot roll back {instant}: only commits, deltacommits, replacecommits "
                                "and compactions can be rolled back.")
    started = time.time()
    with TimelineWriter(meta_client, options).transaction(f"rollback {instant.instant_time}") as writer:
        pending = pending_rollbacks(meta_client, writer).get(instant.instant_time)
        if pending is not None:
            # an earlier rollback of this instant died: finish it, as itself, with its plan
            _log.warning("Resuming rollback %s of %s (left %s).", pending.rollback.instant_time, instant,
                         pending.rollback.state.value)
            plan, rollback_time = pending.plan, pending.rollback.instant_time
            instant = plan.instant
        else:
            if only_if_pending:
                current = meta_client.timeline.find(instant.instant_time, instant.action)
                latest = meta_client.timeline.latest_states().find(instant.instant_time, instant.action)
                if current is None or latest is None or latest.is_completed:
                    _log.info("Not rolling back %s: it %s meanwhile.", instant,
                              "completed" if latest is not None and latest.is_completed else "was rolled back")
                    return None
                instant = latest
            plan = plan_rollback(meta_client, instant)
            failed = instant.instant_time if only_if_pending else None
            rollback_time = rollback_time or writer.next_instant_time(ignoring=failed)
            writer.request(Instant(rollback_time, Action.ROLLBACK, State.REQUESTED), plan, overwrite=True)
        rollback = Instant(rollback_time, Action.ROLLBACK, State.COMPLETED)
        if not writer.exists(rollback.to(State.INFLIGHT)):
            writer.start(rollback.to(State.INFLIGHT), None, overwrite=True)
        metadata = undo_instant(meta_client, plan, rollback_time, started=started, writer=writer)
        writer.complete(rollback, metadata, overwrite=True)
    meta_client.reload_timeline()
    _log.info("Rolled back %s as rollback %s (%d files deleted).", instant, rollback_time,
              metadata["totalFilesDeleted"])
    parts = metadata["partitionMetadata"]
    return RollbackResult(rollback_time, instant, tuple(f for p in parts.values() for f in p["successDeleteFiles"]),
                          tuple(f for p in parts.values() for f in (p["rollbackLogFiles"] or {})), tuple(parts))


def rollback_own_failed_write(meta_client: TableMetaClient, instant: Instant,
                              options: Resolved) -> RollbackResult | None:
    """Roll back a write instant its own writer gave up (a lost conflict), unless it completed."""
    return _rollback(meta_client, instant, options, rollback_time=None, only_if_pending=True)


def undo_instant(meta_client: TableMetaClient, plan: RollbackPlan, rollback_time: str, *,
                 writer: TimelineWriter, started: float | None = None) -> dict[str, Any]:
    """Steps 3-6 of the protocol for *plan*'s instant; returns its ``HoodieRollbackMetadata`` record.

    Shared by rollback (which records the result as a rollback instant) and restore (which
    records it inside the restore metadata); both pass the writer whose transaction they hold.
    The completed file goes first, so readers stop seeing the instant at once; a compaction's
    ``.compaction.*`` files go with its commit.
    """
    started = time.time() if started is None else started
    instant = plan.instant
    storage = meta_client.storage
    with writer.transaction(f"undo {instant.instant_time}"):
        if instant.is_completed:
            writer.delete(instant)
        deleted: dict[str, list[str]] = defaultdict(list)
        rollback_logs: dict[str, dict[str, int]] = defaultdict(dict)
        failed_logs: dict[str, dict[str, int]] = defaultdict(dict)
        for request in plan.requests:
            for path in request.files_to_delete:
                inside_base(meta_client.layout.base_path, path)  # a plan read back from storage is data too
                if storage.delete(path) or not storage.exists(path):
                    _log.info("Rollback %s: deleted %s (written by %s)", rollback_time, path, instant.instant_time)
                    deleted[request.partition_path].append(to_uri(path))
            if request.log_files_to_cancel and request.file_id and request.latest_base_instant:
                path, size = _write_rollback_block(meta_client, request, instant.instant_time, rollback_time)
                rollback_logs[request.partition_path][to_uri(path)] = size
                for log_path, log_size in request.log_files_to_cancel:
                    failed_logs[request.partition_path][to_uri(log_path)] = log_size
        writer.delete_pending_states(instant)
        writer.delete_marker_dir(instant.instant_time)
        delete_heartbeat(storage, meta_client.layout, instant.instant_time)
    partitions = sorted(set(deleted) | set(rollback_logs) | {r.partition_path for r in plan.requests})
    return {
        "startRollbackTime": rollback_time,
        "timeTakenInMillis": int((time.time() - started) * 1000),
        "totalFilesDeleted": sum(len(v) for v in deleted.values()),
        "commitsRollback": [instant.instant_time],
        "partitionMetadata": {
            p: {
                "partitionPath": p,
                "successDeleteFiles": deleted.get(p, []),
                "failedDeleteFiles": [],
                "rollbackLogFiles": rollback_logs.get(p) or None,
                "logFilesFromFailedCommit": failed_logs.get(p) or None,
            }
            for p in partitions
        },
        "version": 1,
        "instantsRollback": [{"commitTime": instant.instant_time, "action": instant.action.value}],
    }


def _write_rollback_block(meta_client: TableMetaClient, request: RollbackRequest, target: str,
                          rollback_time: str) -> tuple[str, int]:
    """A new log version of the slice holding one ROLLBACK command block targeting *target*."""
    assert request.file_id and request.latest_base_instant
    versions = [LogFileName.parse(p.rsplit("/", 1)[1]).version for p, _ in
                _slice_log_files(meta_client, request.partition_path, request.file_id, request.latest_base_instant)]
    name = LogFileName(request.file_id, request.latest_base_instant, max(versions, default=0) + 1,
                       ROLLBACK_WRITE_TOKEN)
    path = meta_client.layout.file_path(request.partition_path, name.name)
    data = encode_rollback_block(rollback_time, target)
    meta_client.storage.write_bytes(path, data, overwrite=False)
    return path, len(data)


def rollback_failed_writes(meta_client: TableMetaClient, options: Resolved) -> list[RollbackResult]:
    """Roll back the pending write instants whose writer is gone (``hoodie.cleaner.policy.failed.writes``).

    A pending instant whose heartbeat is alive belongs to a running writer and is never
    touched. ``EAGER`` (single writer) refuses to start next to such a writer, naming its
    instant (:class:`~hudi_sql.errors.ConcurrentWriterError`); ``LAZY`` leaves it alone and
    rolls back only instants whose heartbeat expired; ``NEVER`` rolls back nothing. The listing,
    the heartbeat checks and each rollback happen under the table lock, so a writer completing
    its instant meanwhile keeps its commit.
    """
    config = options.concurrency
    if config.failed_writes is FailedWritesPolicy.NEVER:
        return []
    results = []
    with TimelineWriter(meta_client, options).transaction("roll back failed writes") as writer:
        # A scheduled clustering is a pending replacecommit on purpose, not a failed write.
        scheduled = {i.instant_time for i in meta_client.pending_clustering_instants()}
        # Rollbacks that died are finished first, newest target first (Java's order), whatever
        # their target's heartbeat: a rollback had started, so its writer had given it up.
        resumable = {t: p for t, p in pending_rollbacks(meta_client, writer).items()
                     if p.plan.instant.action is not Action.COMPACTION and t not in scheduled}
        for target in sorted(resumable, reverse=True):
            result = _rollback(meta_client, resumable[target].plan.instant, options, rollback_time=None,
                               only_if_pending=True)
            if result is not None:
                results.append(result)
        for instant in meta_client.timeline.pending_writes():
            if instant.instant_time in resumable:
                continue
            if instant.instant_time in scheduled:
                continue
            if not is_heartbeat_expired(meta_client.storage, meta_client.layout, instant.instant_time,
                                        config.heartbeat_expiry_seconds):
                if config.failed_writes is FailedWritesPolicy.EAGER and not config.optimistic:
                    raise live_writer_error(meta_client, instant)
                _log.info("Pending write %s has a live heartbeat; left to its writer.", instant)
                continue
            _log.warning("Rolling back failed write %s (no live heartbeat).", instant)
            result = _rollback(meta_client, instant, options, rollback_time=None, only_if_pending=True)
            if result is not None:
                results.append(result)
    meta_client.reload_timeline()
    return results


def rollback_latest_commit(meta_client: TableMetaClient, options: Resolved,
                           instant_time: str | None = None) -> RollbackResult:
    """Roll back the latest completed write (only the latest: later writes may build on it)."""
    meta_client.reload_timeline()
    writes = meta_client.timeline.completed_writes()
    latest = writes.last
    if latest is None:
        raise HudiTimelineError(f"Table '{meta_client.base_path}' has no completed commit to roll back.")
    if instant_time is not None and instant_time != latest.instant_time:
        if not writes.contains_time(instant_time):
            raise HudiTimelineError(f"No completed commit {instant_time} on the timeline of '{meta_client.base_path}'.")
        raise HudiTimelineError(
            f"Commit {instant_time} is not the latest ({latest.instant_time}); only the latest commit can be "
            "rolled back.", help="roll back the later commits first, or restore to a savepoint",
        )
    if latest.instant_time in meta_client.timeline.savepoint_times():  # as Apache Hudi refuses it: the savepoint keeps that commit's files
        raise HudiTimelineError(
            f"Commit {latest.instant_time} of '{meta_client.base_path}' is savepointed and cannot be rolled back.",
            help=f"delete the savepoint first: CALL delete_savepoint(table => ..., instant_time => "
                 f"'{latest.instant_time}')")
    return rollback_instant(meta_client, latest, options)
