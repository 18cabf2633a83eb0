"""The cleaner: ``run_clean`` and ``show_cleans`` (Hudi 0.14 arguments and columns)."""

from __future__ import annotations

import importlib.util
from typing import Any

from hudi_sql.config import HudiServiceConfig
from hudi_sql.services.clean import CLEAN_METADATA_VERSION, clean
from hudi_sql.services.clean import show_cleans as completed_cleans
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure

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

    @procedure(
        "show_cleans",
        args=[Arg("table", required=True), Arg("limit", "int", default=10)],
        output="clean_time string, action string, start_clean_time string, time_taken_in_millis long, "
        "total_files_deleted int, earliest_commit_to_retain string, last_completed_commit_timestamp string, "
        "policy string, total_partitions int, version int",
        description="Completed cleans, newest first.",
    )
    def show_cleans(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        columns = (
            "clean_time",
            "action",
            "start_clean_time",
            "time_taken_in_millis",
            "total_files_deleted",
            "earliest_commit_to_retain",
            "last_completed_commit_timestamp",
            "policy",
            "total_partitions",
            "version",
        )
        return [tuple(row.get(c) for c in columns) for row in completed_cleans(ctx.meta(args))][
            : args["limit"]
        ]
