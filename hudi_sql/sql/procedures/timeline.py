"""``show_timeline``: every instant of the active (and optionally archived) timeline."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.services.archive import read_archived_instants
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure
from hudi_sql.storage.uri import join, parent_of
from hudi_sql.table.meta_client import TableMetaClient


def _modified(meta: TableMetaClient, instant: Instant, state: State, fmt: str) -> str | None:
    storage = meta.storage
    path = meta.instant_file_path(instant.to(state))
    folder = parent_of(path)
    if not storage.exists(path) and state is not State.COMPLETED:
        # A commit's inflight file is "<t>.inflight"; a compaction is requested as "<t>.compaction.*".
        for name in (f"{instant.instant_time}.inflight", f"{instant.instant_time}.compaction.{state.value}"):
            if storage.exists(join(folder, name)):
                path = join(folder, name)
                break
    seconds = storage.modification_time(path)
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime(fmt)


def state_transition_time(meta: TableMetaClient, instant: Instant) -> str | None:
    """When *instant* completed, as Apache Hudi's procedures show it (``state_transition_time``): the
    completion time of a layout 2 timeline, else the completed file's modification time as an
    instant time (milliseconds), which is what Apache Hudi 0.x reads."""
    if instant.completion_time is not None:
        return instant.completion_time
    modified = _modified(meta, instant, State.COMPLETED, "%Y%m%d%H%M%S%f")
    return modified[:17] if modified else None


def _rolled_back(meta: TableMetaClient) -> dict[str, str]:
    """Instant -> the rollback that removed it, from completed rollback metadata."""
    out: dict[str, str] = {}
    for instant in meta.timeline.completed().with_actions(Action.ROLLBACK):
        try:
            record = meta.rollback_metadata(instant.instant_time)
        except (HudiFileFormatError, OSError):  # an unreadable rollback: no info, not a failure
            record = {}
        for target in record.get("commitsRollback") or []:
            out[str(target)] = instant.instant_time
    return out


@procedure(
    "show_timeline",
    args=[
        Arg("table"),
        Arg("path"),
        Arg("limit", "int", default=20),
        Arg("showArchived", "boolean", default=False),
    ],
    output="instant_time string, action string, state string, requested_time string, inflight_time string, "
    "completed_time string, timeline_type string, rollback_info string",
    description="Every instant of the timeline (requested, inflight, completed), newest first.",
)
def show_timeline(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    latest = meta.timeline.latest_states()
    rolled_back = _rolled_back(meta)
    rows: list[tuple[Any, ...]] = []
    fmt = "%m-%d %H:%M:%S"
    for instant in latest:
        info = None
        if instant.instant_time in rolled_back:
            info = f"Rolled back by {rolled_back[instant.instant_time]}"
        rows.append(
            (
                instant.instant_time,
                instant.action.value,
                instant.state.name,
                _modified(meta, instant, State.REQUESTED, fmt),
                _modified(meta, instant, State.INFLIGHT, fmt),
                _modified(meta, instant, State.COMPLETED, fmt) if instant.state is State.COMPLETED else None,
                "ACTIVE",
                info,
            )
        )
    if args["showArchived"]:
        for entry in read_archived_instants(meta):
            rows.append(
                (
                    entry["commitTime"],
                    entry["actionType"],
                    str(entry["state"]),
                    None,
                    None,
                    None,
                    "ARCHIVED",
                    None,
                )
            )
    order = {"COMPLETED": 2, "INFLIGHT": 1, "REQUESTED": 0}
    rows.sort(key=lambda r: (str(r[0]), order.get(str(r[2]), 0)), reverse=True)
    return rows[: args["limit"]]
