"""Commits: ``show_commits``, ``show_commits_metadata``, ``show_commit_extra_metadata``;
rollbacks: ``rollback_to_instant``, ``show_rollbacks``, ``show_rollback_detail`` (Apache Hudi's columns)."""

from __future__ import annotations

from typing import Any

from hudi_sql.commit.rollback import rollback_latest_commit
from hudi_sql.errors import HudiTimelineError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure
from hudi_sql.sql.procedures.timeline import state_transition_time
from hudi_sql.table.meta_client import TableMetaClient

_COMMIT_ACTIONS = (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)


def _commits(meta: TableMetaClient) -> list[tuple[Instant, CommitMetadata]]:
    """Completed commits, newest first, with their metadata."""
    instants = meta.timeline.completed().with_actions(*_COMMIT_ACTIONS).instants
    return [
        (i, meta.commit_metadata(i)) for i in sorted(instants, key=lambda i: i.instant_time, reverse=True)
    ]


@procedure(
    "show_commits",
    args=[Arg("table", required=True), Arg("limit", "int", default=10)],
    output="commit_time string, state_transition_time string, action string, total_bytes_written long, "
    "total_files_added long, total_files_updated long, total_partitions_written long, total_records_written long, "
    "total_update_records_written long, total_errors long",
    description="Completed commits, newest first, with when each completed and its write totals.",
)
def show_commits(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    rows = []
    for instant, metadata in _commits(meta)[: args["limit"]]:
        t = metadata.totals()
        rows.append((instant.instant_time, state_transition_time(meta, instant), instant.action.value, t.bytes_written,
                     t.files_added, t.files_updated, t.partitions_written, t.records_written, t.records_updated,
                     t.write_errors))
    return rows[: args["limit"]]


@procedure(
    "show_commits_metadata",
    args=[Arg("table", required=True), Arg("limit", "int", default=10)],
    output="commit_time string, state_transition_time string, action string, partition string, file_id string, "
    "previous_commit string, num_writes long, num_inserts long, num_deletes long, num_update_writes long, "
    "total_errors long, total_log_blocks long, total_corrupt_log_blocks long, total_rollback_blocks long, "
    "total_log_records long, total_updated_records_compacted long, total_bytes_written long",
    description="The write statistics of every file of the latest commits.",
)
def show_commits_metadata(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    rows = []
    for instant, metadata in _commits(meta):
        completed = state_transition_time(meta, instant)
        for partition, stats in metadata.partition_to_write_stats.items():
            for s in stats:
                rows.append(
                    (
                        instant.instant_time,
                        completed,
                        instant.action.value,
                        s.partition_path if s.partition_path is not None else partition,
                        s.file_id,
                        s.prev_commit,
                        s.num_writes,
                        s.num_inserts,
                        s.num_deletes,
                        s.num_update_writes,
                        s.total_write_errors,
                        s.total_log_blocks,
                        s.total_corrupt_log_block,
                        s.total_rollback_blocks,
                        s.total_log_records,
                        s.total_updated_records_compacted,
                        s.total_write_bytes,
                    )
                )
    return rows[: args["limit"]]


@procedure(
    "show_commit_extra_metadata",
    args=[Arg("table", required=True), Arg("limit", "int", default=100), Arg("instant_time"),
          Arg("metadata_key")],
    output="instant_time string, action string, metadata_key string, metadata_value string",
    description="The extra metadata of the latest commit (or of instant_time): its schema, a stream's "
    "batch ids, a pipeline's checkpoints; one key with metadata_key.",
)
def show_commit_extra_metadata(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    commits = _commits(ctx.meta(args))
    wanted = args.get("instant_time")
    chosen = next((c for c in commits if wanted is None or c[0].instant_time == str(wanted)), None)
    if chosen is None:
        raise HudiTimelineError(
            f"Commit {wanted} not found in the commits of table '{args['table']}'." if wanted is not None
            else f"Table '{args['table']}' has no commit yet.",
            help=f"CALL show_commits(table => '{args['table']}') lists them")
    instant, metadata = chosen
    key = str(args["metadata_key"]).strip() if args.get("metadata_key") is not None else None
    rows = [(instant.instant_time, instant.action.value, k, v) for k, v in metadata.extra_metadata.items()
            if key is None or k == key]
    return rows[: args["limit"]]


@procedure(
    "rollback_to_instant",
    args=[Arg("table", required=True), Arg("instant_time", required=True)],
    output="rollback_result boolean",
    description="Roll back a completed commit (the latest one; later commits must go first).",
)
def rollback_to_instant(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    instant_time = str(args["instant_time"])
    if not meta.timeline.completed_writes().contains_time(instant_time):
        raise HudiTimelineError(
            f"Commit {instant_time} not found in the commits of table '{args['table']}'.",
            help=f"CALL show_commits(table => '{args['table']}') lists them",
        )
    rollback_latest_commit(meta, ctx.resolve(args), instant_time)
    return [(True,)]


def _rollbacks(meta: TableMetaClient) -> list[tuple[Instant, dict[str, Any]]]:
    """Completed rollbacks, newest first, with their ``HoodieRollbackMetadata`` records."""
    instants = sorted(meta.timeline.completed().with_actions(Action.ROLLBACK).instants,
                      key=lambda i: i.instant_time, reverse=True)
    return [(i, meta.rollback_metadata(i.instant_time)) for i in instants]


@procedure(
    "show_rollbacks",
    args=[Arg("table", required=True), Arg("limit", "int", default=10)],
    output="instant string, rollback_instant string, total_files_deleted int, time_taken_in_millis long, "
    "total_partitions int",
    description="Completed rollbacks, newest first: one row per commit each rolled back, with its totals.",
)
def show_rollbacks(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    rows = [
        (instant.instant_time, str(rolled_back), record.get("totalFilesDeleted"), record.get("timeTakenInMillis"),
         len(record.get("partitionMetadata") or {}))
        for instant, record in _rollbacks(ctx.meta(args))
        for rolled_back in record.get("commitsRollback") or []
    ]
    return rows[: args["limit"]]


@procedure(
    "show_rollback_detail",
    args=[Arg("table", required=True), Arg("limit", "int", default=10), Arg("instant_time", required=True)],
    output="instant string, rollback_instant string, partition string, deleted_file string, succeeded boolean",
    description="The files one rollback deleted (succeeded) or failed to delete, by partition.",
)
def show_rollback_detail(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    instant_time = str(args["instant_time"])
    if not meta.timeline.completed().with_actions(Action.ROLLBACK).contains_time(instant_time):
        raise HudiTimelineError(
            f"Rollback {instant_time} not found in the timeline of table '{args['table']}'.",
            help=f"CALL show_rollbacks(table => '{args['table']}') lists them",
        )
    record = meta.rollback_metadata(instant_time)
    rolled_back = ", ".join(str(c) for c in record.get("commitsRollback") or [])
    rows = [
        (instant_time, f"[{rolled_back}]", partition, file, succeeded)
        for partition, detail in sorted((record.get("partitionMetadata") or {}).items())
        for files, succeeded in ((detail.get("successDeleteFiles"), True), (detail.get("failedDeleteFiles"), False))
        for file in files or []
    ]
    return rows[: args["limit"]]
