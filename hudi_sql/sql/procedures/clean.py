"""The cleaner: ``run_clean``, and the cleans a timeline records (``show_cleans``,
``show_cleans_metadata``, ``show_clean_plans``: Apache Hudi 1.2's arguments and columns)."""

from __future__ import annotations

import importlib.util
from typing import Any

from hudi_sql.config import HudiServiceConfig
from hudi_sql.errors import HudiSqlError
from hudi_sql.model.instant import Action
from hudi_sql.services.clean import CLEAN_METADATA_VERSION, clean
from hudi_sql.services.clean_history import CleanInstant, clean_metadata, cleaner_plan, listed_cleans
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure
from hudi_sql.sql.procedures.timeline import state_transition_time
from hudi_sql.table.meta_client import TableMetaClient

#: The cleaner is a separate capability (hudi_sql.services.clean); its procedures exist with it.
AVAILABLE = importlib.util.find_spec("hudi_sql.services.clean") is not None

if AVAILABLE:
    _ARG_OPTIONS = {
        "clean_policy": HudiServiceConfig.CLEANER_POLICY.key,
        "retain_commits": HudiServiceConfig.CLEANER_COMMITS_RETAINED.key,
        "hours_retained": HudiServiceConfig.CLEANER_HOURS_RETAINED.key,
        "file_versions_retained": HudiServiceConfig.CLEANER_FILE_VERSIONS_RETAINED.key,
        "trigger_strategy": HudiServiceConfig.CLEAN_TRIGGER_STRATEGY.key,
        "trigger_max_commits": HudiServiceConfig.CLEAN_MAX_COMMITS.key,
    }

    @procedure(
        "run_clean",
        args=[
            Arg("table", required=True),
            # Apache Hudi's position 1; accepted, and the lock is taken all the same: a clean beside a
            # writer must not race it, and the in-process lock is re-entrant for a caller holding it
            Arg("skip_locking", "boolean", default=False),
            Arg("schedule_in_line", "boolean", default=True),
            Arg("clean_policy"),
            Arg("retain_commits", "int"),
            Arg("hours_retained", "int"),
            Arg("file_versions_retained", "int"),
            Arg("trigger_strategy"),
            Arg("trigger_max_commits", "int"),
            Arg("options"),
            Arg("dry_run", "boolean", default=False),
        ],
        output="start_clean_time string, time_taken_in_millis long, total_files_deleted int, "
        "earliest_commit_to_retain string, bootstrap_part_metadata string, version int",
        description="Delete file slices the retention policy no longer needs (dry_run => true only plans).",
    )
    def run_clean(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        import time

        extra = parse_options(args["options"], "CALL run_clean")
        extra.update({key: str(args[name]) for name, key in _ARG_OPTIONS.items() if args[name] is not None})
        configs = ctx.write_configs(args, extra)
        started = time.time()
        result = clean(ctx.meta(args), configs, dry_run=bool(args["dry_run"]), spark=ctx.spark)
        if result.plan is None:
            return []
        ectr = result.plan.earliest_instant_to_retain
        return [
            (
                result.instant_time,
                int((time.time() - started) * 1000),
                len(result.plan.all_files()) if result.dry_run else result.total_deleted,
                ectr.instant_time if ectr else None,
                None,
                CLEAN_METADATA_VERSION,
            )
        ]

    #: The arguments of Apache Hudi 1.2's clean listings (``filter`` applied by ``CALL`` itself).
    _LISTING_ARGS = [Arg("table", required=True), Arg("limit", "int", default=10),
                     Arg("showArchived", "boolean", default=False), Arg("filter", default="")]

    @procedure(
        "show_cleans",
        args=_LISTING_ARGS,
        output="clean_time string, state_transition_time string, action string, start_clean_time string, "
        "time_taken_in_millis long, total_files_deleted int, earliest_commit_to_retain string, "
        "last_completed_commit_timestamp string, version int",
        description="Completed cleans, newest first (showArchived => true: the archived ones too; filter: a "
        "condition on the columns).",
    )
    def show_cleans(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        meta = ctx.meta(args)
        rows = []
        for clean in listed_cleans(meta, completed_only=True, show_archived=args["showArchived"],
                                   limit=max(0, args["limit"])):
            metadata = clean_metadata(meta, clean)
            rows.append((clean.instant.instant_time, _completed_at(meta, clean), Action.CLEAN.value,
                         metadata.get("startCleanTime"), metadata.get("timeTakenInMillis"),
                         metadata.get("totalFilesDeleted"), metadata.get("earliestCommitToRetain"),
                         metadata.get("lastCompletedCommitTimestamp"), metadata.get("version")))
        return rows

    @procedure(
        "show_cleans_metadata",
        args=_LISTING_ARGS,
        output="clean_time string, state_transition_time string, action string, start_clean_time string, "
        "partition_path string, policy string, delete_path_patterns int, success_delete_files int, "
        "failed_delete_files int, is_partition_deleted boolean, time_taken_in_millis long, "
        "total_files_deleted int",
        description="Each completed clean's partitions (one row each, newest clean first): the policy, the "
        "files deleted and failed, whether the partition went.",
    )
    def show_cleans_metadata(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        meta = ctx.meta(args)
        rows = []
        # Apache Hudi's limit counts partition rows here: every clean is read until it is reached
        for clean in listed_cleans(meta, completed_only=True, show_archived=args["showArchived"], limit=None):
            metadata = clean_metadata(meta, clean)
            for partition, stats in (metadata.get("partitionMetadata") or {}).items():
                rows.append((clean.instant.instant_time, _completed_at(meta, clean), Action.CLEAN.value,
                             metadata.get("startCleanTime"), partition, stats.get("policy"),
                             len(stats.get("deletePathPatterns") or ()), len(stats.get("successDeleteFiles") or ()),
                             len(stats.get("failedDeleteFiles") or ()), stats.get("isPartitionDeleted"),
                             metadata.get("timeTakenInMillis"), metadata.get("totalFilesDeleted")))
        return rows[: args["limit"]]

    @procedure(
        "show_clean_plans",
        args=_LISTING_ARGS,
        output="plan_time string, state string, action string, earliest_instant_to_retain string, "
        "last_completed_commit_timestamp string, policy string, version int, total_partitions_to_clean int, "
        "total_partitions_to_delete int, extra_metadata string",
        description="The plan of every clean, pending ones included, newest first.",
    )
    def show_clean_plans(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        if args["limit"] <= 0:
            raise HudiSqlError(f"CALL show_clean_plans: limit must be positive, got {args['limit']}.")
        meta = ctx.meta(args)
        rows: list[tuple[Any, ...]] = []
        for clean in listed_cleans(meta, completed_only=False, show_archived=args["showArchived"], limit=args["limit"]):
            instant = clean.instant
            plan = cleaner_plan(meta, clean)
            if plan is None:  # as Apache Hudi answers for a plan it cannot read: the instant alone
                rows.append((instant.instant_time, instant.state.name, Action.CLEAN.value, *(None,) * 7))
                continue
            ectr = plan.get("earliestInstantToRetain")
            extra = plan.get("extraMetadata") or {}
            rows.append((instant.instant_time, instant.state.name, Action.CLEAN.value,
                         ectr.get("timestamp") if ectr else None, plan.get("lastCompletedCommitTimestamp"),
                         plan.get("policy"), plan.get("version"),
                         len(plan.get("filePathsToBeDeletedPerPartition") or {}),
                         len(plan.get("partitionsToBeDeleted") or ()),
                         ", ".join(f"{k}={v}" for k, v in extra.items()) or None))
        return rows

    def _completed_at(meta: TableMetaClient, clean: CleanInstant) -> str | None:
        """``state_transition_time``: the active timeline's completion time (or completed file's time),
        an archived clean's recorded completion time."""
        if clean.archived:
            return clean.instant.completion_time
        return state_transition_time(meta, clean.instant)
