"""Savepoints and restore (Hudi 0.14 ``SavepointActionExecutor`` / ``CopyOnWriteRestoreActionExecutor``).

A **savepoint** pins the table as of one completed commit: its instant reuses that commit's
time, and its metadata lists, per partition, the file names of the latest file slices as of
that commit. The cleaner never deletes a listed file and archival never passes the first
savepoint, so the table can later be restored to it::

    <t>.savepoint.inflight   empty
    <t>.savepoint            Avro HoodieSavepointMetadata

A **restore** rolls back every write instant after the savepoint (completed or pending), newest
first. Unlike :func:`hudi_sql.commit.rollback.rollback_instant` it publishes no rollback
instants: each rollback's ``HoodieRollbackMetadata`` goes into the restore's metadata::

    <r>.restore.requested    Avro HoodieRestorePlan (instantsToRollback, newest first)
    <r>.restore.inflight     empty
    (per instant: its completed file first, then its data files, then its other state files)
    <r>.restore              Avro HoodieRestoreMetadata

Afterwards the latest completed write is the savepointed commit, so snapshot reads return
exactly what they returned as of the savepoint. Later savepoints are left as Java leaves them.

The instant files are written and removed by :class:`~hudi_sql.commit.timeline_writer.TimelineWriter`.
"""

from __future__ import annotations

__all__ = [
    "RestorePlan",
    "RestoreResult",
    "SavepointMetadata",
    "create_savepoint",
    "delete_savepoint",
    "plan_restore",
    "plan_restore_from",
    "plan_savepoint",
    "read_savepoint_metadata",
    "restore_to_savepoint",
    "savepointed_files",
    "show_savepoints",
]

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hudi_sql.commit.rollback import plan_rollback, undo_instant
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiConfigs
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiTimelineError
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.instant_payloads import RestorePlan, SavepointMetadata
from hudi_sql.model.timeline import Timeline
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

# -- savepoints ---------------------------------------------------------------------------


def read_savepoint_metadata(meta_client: TableMetaClient, instant_time: str) -> SavepointMetadata:
    """The metadata of the savepoint at *instant_time* (read by the meta client)."""
    return meta_client.savepoint_metadata(instant_time)


def savepointed_files(meta_client: TableMetaClient) -> dict[str, frozenset[str]]:
    """Completed savepoint time -> the file names it pins (what the cleaner must keep)."""
    return {t: meta_client.savepoint_metadata(t).file_names() for t in meta_client.timeline.savepoint_times()}


def _lookup_window_start(meta_client: TableMetaClient) -> str:
    """The oldest commit a savepoint may pin: the last clean's earliest commit to retain."""
    timeline = meta_client.timeline
    last_clean = timeline.latest_states().with_actions(Action.CLEAN).last
    if last_clean is not None:
        if last_clean.is_completed:
            return str(meta_client.clean_metadata(last_clean.instant_time).get("earliestCommitToRetain") or "")
        ectr = meta_client.clean_plan(last_clean.instant_time).earliest_instant_to_retain
        return ectr.instant_time if ectr else ""
    first = timeline.completed_writes().first
    return first.instant_time if first else ""


def plan_savepoint(meta_client: TableMetaClient, instant_time: str | None = None, *, user: str = "",
                   comments: str = "") -> SavepointMetadata:
    """The savepoint metadata of *instant_time* (default: the latest completed commit); writes nothing.

    Raises:
        HudiTimelineError: the instant is not a completed commit on the active timeline, is
            already savepointed, or is older than what the cleaner retains.
    """
    meta_client.reload_timeline()
    timeline = meta_client.timeline
    commits = timeline.completed_writes()
    if instant_time is None:
        if commits.last is None:
            raise HudiTimelineError(f"Table '{meta_client.base_path}' has no completed commit to savepoint.")
        instant_time = commits.last.instant_time
    if not commits.contains_time(instant_time):
        raise HudiTimelineError(
            f"Could not savepoint non-existing commit {instant_time} of '{meta_client.base_path}'.",
            help="savepoint a completed commit of the active timeline (see show_commits)")
    if instant_time in timeline.savepoint_times():
        raise HudiTimelineError(f"Commit {instant_time} is already savepointed.")
    window = _lookup_window_start(meta_client)
    if instant_time < window:
        raise HudiTimelineError(
            f"Could not savepoint commit {instant_time}: it is beyond the lookup window {window} (the cleaner "
            "may already have deleted its files).", help=f"savepoint a commit at or after {window}")
    view = FileSystemView(meta_client, as_of=instant_time)
    files: dict[str, tuple[str, ...]] = {}
    for partition in view.partition_paths():
        names: list[str] = []
        for file_slice in view.latest_file_slices([partition]):
            if file_slice.base_file is not None:
                names.append(file_slice.base_file.file_name)
            names.extend(lf.file_name for lf in file_slice.log_files)
        files[partition] = tuple(names)
    return SavepointMetadata(instant_time, user, int(time.time() * 1000), comments, files)


def create_savepoint(meta_client: TableMetaClient, instant_time: str | None = None, *, user: str = "",
                     comments: str = "",
                     options: Resolved | HudiConfigs | Mapping[str, object] | None = None) -> SavepointMetadata:
    """Savepoint a completed commit (default: the latest): ``<t>.savepoint.inflight``, then
    ``<t>.savepoint``; under the lock *options* name (as every service: see :mod:`hudi_sql.commit.locks`).
    On version 8+ a commit already savepointed keeps its savepoint (no error), as in Apache Hudi 1.x."""
    meta_client.reload_timeline()
    latest = meta_client.timeline.completed_writes().last
    target = instant_time or (latest.instant_time if latest else None)
    if meta_client.table_version >= 8 and target in meta_client.timeline.savepoint_times():
        # Apache Hudi 1.x answers a second savepoint of a commit with the one it has (0.x refuses it)
        return meta_client.savepoint_metadata(str(target))
    metadata = plan_savepoint(meta_client, instant_time, user=user, comments=comments)
    instant = Instant(metadata.instant_time, Action.SAVEPOINT)
    with TimelineWriter(meta_client, Resolved.of(options)).transaction(f"savepoint {metadata.instant_time}") as writer:
        writer.start(instant.to(State.INFLIGHT), None, overwrite=True)
        writer.complete(instant, metadata)
    meta_client.reload_timeline()
    _log.info("Savepoint %s created (%d files pinned).", metadata.instant_time, len(metadata.file_names()))
    return metadata


def show_savepoints(meta_client: TableMetaClient) -> list[dict[str, Any]]:
    """Completed savepoints, newest first."""
    meta_client.reload_timeline()
    rows = []
    for instant_time in reversed(meta_client.timeline.savepoint_times()):
        metadata = read_savepoint_metadata(meta_client, instant_time)
        rows.append({
            "savepoint_time": instant_time,
            "savepointed_by": metadata.savepointed_by,
            "savepointed_at": metadata.savepointed_at,
            "comments": metadata.comments,
            "partitions": len(metadata.partition_files),
            "files": len(metadata.file_names()),
        })
    return rows


def delete_savepoint(meta_client: TableMetaClient, instant_time: str,
                     options: Resolved | HudiConfigs | Mapping[str, object] | None = None) -> None:
    """Remove a savepoint: its files may then be cleaned and its commit archived.

    Raises:
        HudiTimelineError: there is no completed savepoint at *instant_time*.
    """
    meta_client.reload_timeline()
    existing = meta_client.timeline.savepoint_times()
    if instant_time not in existing:
        raise HudiTimelineError(f"No savepoint {instant_time} in '{meta_client.base_path}'.",
                                help=f"existing savepoints: {', '.join(existing) or 'none'}")
    instant = Instant(instant_time, Action.SAVEPOINT)
    with TimelineWriter(meta_client, Resolved.of(options)).transaction(f"delete savepoint {instant_time}") as writer:
        for state in (State.COMPLETED, State.INFLIGHT):
            if writer.delete(instant.to(state)):
                _log.info("Deleted savepoint file %s", instant.to(state).file_name)
    meta_client.reload_timeline()


# -- restore -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RestoreResult:
    restore_instant_time: str | None
    plan: RestorePlan
    deleted_files: tuple[str, ...] = ()
    dry_run: bool = False


def plan_restore_from(timeline: Timeline, savepoint_time: str) -> RestorePlan:
    """Every write instant after *savepoint_time*, in its furthest state, newest first (pure).

    Raises:
        HudiTimelineError: there is no completed savepoint at *savepoint_time*.
    """
    if savepoint_time not in timeline.savepoint_times():
        raise HudiTimelineError(f"No savepoint {savepoint_time} to restore to.",
                                help="create one with create_savepoint, or list them with show_savepoints")
    later = [i for i in timeline.latest_states().write_timeline() if i.instant_time > savepoint_time]
    return RestorePlan(savepoint_time, tuple(sorted(later, key=Instant.sort_key, reverse=True)))


def plan_restore(meta_client: TableMetaClient, savepoint_time: str) -> RestorePlan:
    meta_client.reload_timeline()
    return plan_restore_from(meta_client.timeline, savepoint_time)


def restore_to_savepoint(meta_client: TableMetaClient, savepoint_time: str, *, dry_run: bool = False,
                         options: Resolved | HudiConfigs | Mapping[str, object] | None = None) -> RestoreResult:
    """Roll the table back to the savepoint at *savepoint_time* (see the module doc).

    With *dry_run* only the plan is returned (and logged). No other writer may run meanwhile.

    Raises:
        HudiTimelineError: no such savepoint, or the timeline does not end at the savepoint afterwards.
    """
    plan = plan_restore(meta_client, savepoint_time)
    if dry_run:
        for instant in plan.instants_to_rollback:
            _log.info("Restore (dry run) would roll back %s", instant)
        return RestoreResult(None, plan, dry_run=True)
    started = time.time()
    with TimelineWriter(meta_client, Resolved.of(options)).transaction(f"restore to {savepoint_time}") as writer:
        restore_time = writer.next_instant_time()
        restore = Instant(restore_time, Action.RESTORE)
        writer.request(restore.to(State.REQUESTED), plan)
        writer.start(restore.to(State.INFLIGHT), None, overwrite=True)
        rollbacks: dict[str, list[dict[str, Any]]] = {}
        deleted: list[str] = []
        for instant in plan.instants_to_rollback:
            metadata = _rollback_for_restore(meta_client, instant, restore_time, writer)
            rollbacks[instant.instant_time] = [metadata]
            deleted.extend(f for p in metadata["partitionMetadata"].values() for f in p["successDeleteFiles"])
        record = {
            "startRestoreTime": restore_time,
            "timeTakenInMillis": int((time.time() - started) * 1000),
            "instantsToRollback": [i.instant_time for i in plan.instants_to_rollback],
            "hoodieRestoreMetadata": rollbacks,
            "version": 1,
            "restoreInstantInfo": [{"commitTime": i.instant_time, "action": i.action.value}
                                   for i in plan.instants_to_rollback],
            "extraMetadata": None,
        }
        writer.complete(restore, record)
    meta_client.reload_timeline()
    latest = meta_client.timeline.completed_writes().last
    if latest is None or latest.instant_time != savepoint_time:
        raise HudiTimelineError(
            f"Restore {restore_time} ended with latest commit {latest.instant_time if latest else None}, "
            f"not the savepoint {savepoint_time}.", help="inspect .hoodie/; another writer may have committed")
    _log.info("Restored '%s' to savepoint %s (restore %s rolled back %d instants).", meta_client.base_path,
              savepoint_time, restore_time, len(plan.instants_to_rollback))
    return RestoreResult(restore_time, plan, tuple(deleted))


def _rollback_for_restore(meta_client: TableMetaClient, instant: Instant, restore_time: str,
                          writer: TimelineWriter) -> dict[str, Any]:
    """Roll back one instant without a rollback instant; returns its ``HoodieRollbackMetadata``.

    The file work is :func:`hudi_sql.commit.rollback.undo_instant`, shared with plain rollbacks;
    a restore records the result inside its own metadata instead of a ``.rollback`` instant.
    """
    _log.info("Restore %s rolls back %s.", restore_time, instant)
    return undo_instant(meta_client, plan_rollback(meta_client, instant), restore_time, writer=writer)
