"""The cleans a table's timeline records, active and archived, with the plan each one ran and the
metadata it left: what ``show_cleans``, ``show_cleans_metadata`` and ``show_clean_plans`` show.

Apache Hudi's clean procedures read the active timeline, and with ``showArchived`` the archived one
too, where a clean keeps both records: layout 1 archive entries hold ``hoodieCleanerPlan`` (its
requested state) and ``hoodieCleanMetadata`` (its completed state), and the layout 2 LSM timeline
holds them in its ``plan`` and ``metadata`` columns.
"""

from __future__ import annotations

__all__ = ["CleanInstant", "active_cleans", "archived_cleans", "clean_metadata", "cleaner_plan", "listed_cleans"]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.instant_payloads import decode_record
from hudi_sql.services.archive import read_archived_entries
from hudi_sql.table.lsm_timeline import read_lsm_instants

if TYPE_CHECKING:
    from hudi_sql.table.meta_client import TableMetaClient


@dataclass(frozen=True)
class CleanInstant:
    """One clean at its furthest state; an archived one carries the records the archive kept."""

    instant: Instant
    archived: bool = False
    archived_plan: Mapping[str, Any] | None = None
    archived_metadata: Mapping[str, Any] | None = None


def active_cleans(meta: TableMetaClient, *, completed_only: bool) -> list[CleanInstant]:
    """The active timeline's cleans, newest requested time first."""
    meta.reload_timeline()
    timeline = meta.timeline.completed() if completed_only else meta.timeline.latest_states()
    return [CleanInstant(i) for i in reversed(timeline.with_actions(Action.CLEAN).instants)]


def archived_cleans(meta: TableMetaClient) -> list[CleanInstant]:
    """The archived timeline's cleans, newest requested time first (each at its furthest state)."""
    if meta.timeline_layout == 2:
        out = []
        for archived in read_lsm_instants(meta, with_metadata=True):
            if archived.action != Action.CLEAN.value:
                continue
            instant = Instant(archived.instant_time, Action.CLEAN).with_completion_time(archived.completion_time)
            plan = decode_record(instant.to(State.REQUESTED), archived.plan) if archived.plan else None
            metadata = decode_record(instant, archived.metadata) if archived.metadata else None
            out.append(CleanInstant(instant, True, plan, metadata))
        return out[::-1]
    by_time: dict[str, CleanInstant] = {}
    for entry in read_archived_entries(meta):
        if entry.get("actionType") != Action.CLEAN.value:
            continue
        time, state = str(entry.get("commitTime")), State[str(entry.get("actionState") or "COMPLETED")]
        known = by_time.get(time)
        entry_plan: Mapping[str, Any] | None = entry.get("hoodieCleanerPlan") or (known.archived_plan if known else None)
        entry_metadata: Mapping[str, Any] | None = entry.get("hoodieCleanMetadata") or (
            known.archived_metadata if known else None)
        furthest = max(state, known.instant.state, key=lambda s: s.order) if known else state
        by_time[time] = CleanInstant(Instant(time, Action.CLEAN, furthest), True, entry_plan, entry_metadata)
    return [by_time[t] for t in sorted(by_time, reverse=True)]


def listed_cleans(meta: TableMetaClient, *, completed_only: bool, show_archived: bool,
                  limit: int | None) -> list[CleanInstant]:
    """The cleans a show procedure lists, newest first, at most *limit* (None: all): the active
    timeline's, and with *show_archived* the archived ones merged in, as Apache Hudi merges them."""
    cleans = active_cleans(meta, completed_only=completed_only)[:limit]
    if show_archived:
        archived = [c for c in archived_cleans(meta) if not completed_only or c.instant.state is State.COMPLETED]
        cleans = sorted(cleans + archived[:limit], key=lambda c: c.instant.instant_time, reverse=True)[:limit]
    return cleans


def clean_metadata(meta: TableMetaClient, clean: CleanInstant) -> Mapping[str, Any]:
    """The ``HoodieCleanMetadata`` a completed clean left."""
    if clean.archived:
        return clean.archived_metadata or {}
    return meta.clean_metadata(clean.instant.instant_time)


def cleaner_plan(meta: TableMetaClient, clean: CleanInstant) -> Mapping[str, Any] | None:
    """The ``HoodieCleanerPlan`` a clean ran (None when its requested file is empty or was not kept)."""
    if clean.archived:
        return clean.archived_plan
    return meta.instant_record(Instant(clean.instant.instant_time, Action.CLEAN, State.REQUESTED))
