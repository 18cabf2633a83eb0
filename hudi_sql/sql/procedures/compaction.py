"""Compaction of Merge-On-Read tables: ``run_compaction`` and ``show_compaction`` (Hudi 0.14)."""

from __future__ import annotations

from typing import Any

from hudi_sql.config import TableType
from hudi_sql.errors import HudiError, HudiSqlError
from hudi_sql.model.instant import Action, State
from hudi_sql.services.compaction import run_compaction as execute
from hudi_sql.services.compaction import schedule_compaction, should_trigger
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure
from hudi_sql.table.meta_client import TableMetaClient

_OPS = {
    "schedule": "schedule",
    "execute": "execute",
    "run": "scheduleandexecute",
    "scheduleandexecute": "scheduleandexecute",
}


def _require_mor(meta: TableMetaClient, name: str) -> None:
    if meta.table_type is not TableType.MERGE_ON_READ:
        raise HudiSqlError(
            f"CALL {name}: table '{meta.table_name}' is COPY_ON_WRITE; compaction applies to "
            "MERGE_ON_READ tables."
        )


def _plan_size(meta: TableMetaClient, instant_time: str) -> int | None:
    try:
        return len(meta.compaction_plan(instant_time).operations)
    except (HudiError, OSError):  # a plan that cannot be read has no size to show
        return None


def _compactions(meta: TableMetaClient) -> list[tuple[str, str]]:
    """(instant time, state) of every compaction on the active timeline, newest first."""
    meta.reload_timeline()
    out: dict[str, str] = {}
    for instant in meta.timeline.with_actions(Action.COMPACTION):
        if instant.instant_time not in out or State[out[instant.instant_time]].order < instant.state.order:
            out[instant.instant_time] = instant.state.name
    for instant in meta.timeline.completed().with_actions(Action.COMMIT):
        if instant.instant_time in out:
            out[instant.instant_time] = State.COMPLETED.name
    return sorted(out.items(), reverse=True)


@procedure(
    "run_compaction",
    args=[
        Arg("op", required=True),
        Arg("table"),
        Arg("path"),
        Arg("timestamp", "long"),
        Arg("options"),
        Arg("instants"),
        Arg("limit", "int"),
    ],
    output="timestamp string, operation_size int, state string",
    description="Schedule (op => 'schedule'), execute ('execute') or both ('scheduleAndExecute', 'run') "
    "compactions of a MERGE_ON_READ table.",
)
def run_compaction(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    op = _OPS.get(str(args["op"]).strip().lower())
    if op is None:
        raise HudiSqlError(
            f"CALL run_compaction: unknown op '{args['op']}'.",
            help="op => 'schedule' | 'execute' | 'scheduleAndExecute' (or 'run')",
        )
    meta = ctx.meta(args)
    _require_mor(meta, "run_compaction")
    resolved = ctx.resolve(args, parse_options(args["options"], "CALL run_compaction"))
    instants: list[str] = []
    if args["timestamp"] is not None and not args["instants"]:
        instants, op = [str(args["timestamp"])], "execute"
    elif args["instants"]:
        instants = [i.strip() for i in str(args["instants"]).split(",") if i.strip()]
    meta.reload_timeline()
    pending = [i.instant_time for i in meta.timeline.pending_compactions()]
    if op in ("schedule", "scheduleandexecute"):
        # Apache Hudi schedules only when the trigger is met (hoodie.compact.inline.trigger.strategy,
        # by default 5 deltacommits since the last compaction), from a procedure as inline.
        plan = schedule_compaction(meta, resolved) if should_trigger(meta, resolved.compaction) else None
        if plan is not None:
            instants = [plan.instant_time]
        elif op == "schedule":
            return []
    if op in ("execute", "scheduleandexecute"):
        targets = instants or sorted(pending)
        if args["limit"] is not None:
            targets = targets[: args["limit"]]
        for instant_time in targets:
            execute(ctx.spark, meta, instant_time, resolved)
            meta.reload_timeline()
        instants = targets
    states = dict(_compactions(meta))
    return [
        (t, _plan_size(meta, t), states.get(t, State.REQUESTED.name)) for t in sorted(instants, reverse=True)
    ]


@procedure(
    "show_compaction",
    args=[Arg("table"), Arg("path"), Arg("limit", "int", default=20)],
    output="timestamp string, operation_size int, state string",
    description="Compactions of a MERGE_ON_READ table (scheduled, running, completed), newest first.",
)
def show_compaction(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    _require_mor(meta, "show_compaction")
    return [(t, _plan_size(meta, t), state) for t, state in _compactions(meta)][: args["limit"]]
