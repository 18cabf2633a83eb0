"""What an upgrade (6 → 8) and a downgrade (8 → 6) share: the steps around moving the timeline
between layouts, in the order that keeps the table readable whenever it is cut short.

:func:`change_table_version` runs them: a table already at the target version has only the
source layout's leftover instant files to delete (the end of a move that was cut short);
otherwise failed writes are rolled back, a Merge-On-Read table is compacted (log files are named
differently on either side), and the direction's *move* copies the instants into the target
layout, switches ``hoodie.properties`` and deletes the source files, all under the table lock.
"""

from __future__ import annotations

__all__ = ["UpgradeResult", "change_table_version", "compact_all_log_files", "delete_instants_of_layout",
           "refuse_pending_writes"]

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_sql.commit.rollback import rollback_failed_writes
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiConfigs, TableType
from hudi_sql.config.compaction import HudiCompactionConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiTimelineError, UnsupportedFeatureError
from hudi_sql.model.instant import Instant
from hudi_sql.services.compaction import run_compaction, schedule_compaction
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.table.version import READ_SUPPORT

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_log = logging.getLogger(__name__)

#: Compacts every slice with log files (Apache Hudi's ``UnBoundedCompactionStrategy``).
_ALL_SLICES = "org.apache.hudi.table.action.compact.strategy.UnBoundedCompactionStrategy"


@dataclass(frozen=True)
class UpgradeResult:
    """What an upgrade or a downgrade did: the versions before and after, and the work it took."""

    from_version: int
    to_version: int
    #: Instant files moved into the target layout (0 when the table already was at the target version).
    instants_moved: int = 0
    #: The compaction that merged a Merge-On-Read table's log files first, if one was needed.
    compaction: str | None = None


def change_table_version(spark: SparkSession, meta: TableMetaClient, options: Resolved | HudiConfigs | None, *,
                         source: int, target: int, verb: str, move: Callable[[TimelineWriter], int],
                         check: Callable[[], None] | None = None) -> UpgradeResult:
    """Move the table from version *source* to *target* with the direction's *move*, or finish a
    move that was cut short; *check* refuses what the direction cannot do before anything changes.

    Raises:
        UnsupportedFeatureError: the table is at neither version.
    """
    resolved = Resolved.of(options)
    if meta.table_version == target and READ_SUPPORT[source].timeline_layout == READ_SUPPORT[target].timeline_layout:
        return UpgradeResult(target, target)  # one properties rewrite was the whole move: nothing to finish
    if meta.table_version == target:
        with TimelineWriter(meta, resolved).transaction(f"finish the {verb} to version {target}") as writer:
            leftovers = delete_instants_of_layout(meta, writer, READ_SUPPORT[source].timeline_layout)
        if leftovers:
            _log.info("Finished the %s of '%s': deleted %d version %d instant files.",
                      verb, meta.table_name, leftovers, source)
        return UpgradeResult(target, target)
    if meta.table_version != source:
        raise UnsupportedFeatureError(
            f"Cannot {verb} '{meta.table_name}' from table version {meta.table_version}.",
            help=f"hudi-sql's {verb} takes version {source} tables to version {target}")
    if check is not None:
        check()
    rollback_failed_writes(meta, resolved)
    compaction = compact_all_log_files(spark, meta, resolved) if meta.table_type is TableType.MERGE_ON_READ else None
    with TimelineWriter(meta, resolved).transaction(f"{verb} to version {target}") as writer:
        meta.reload_timeline()
        refuse_pending_writes(meta, verb)
        moved = move(writer)
    meta.reload_timeline()
    _log.info("Moved '%s' to table version %d (%d instant files moved).", meta.table_name, target, moved)
    return UpgradeResult(source, target, moved, compaction)


def compact_all_log_files(spark: SparkSession, meta: TableMetaClient, resolved: Resolved) -> str | None:
    """Run the pending compactions, then one more over every slice that still has log files (the
    step before a change of log naming, in either direction); returns that last compaction."""
    meta.reload_timeline()
    for pending in meta.timeline.pending_compactions().instants:
        run_compaction(spark, meta, pending.instant_time, resolved)
    plan = schedule_compaction(meta, resolved.with_options({HudiCompactionConfig.STRATEGY.key: _ALL_SLICES}))
    if plan is None:
        return None
    run_compaction(spark, meta, plan.instant_time, resolved)
    return plan.instant_time


def refuse_pending_writes(meta: TableMetaClient, verb: str) -> None:
    """A write still running would complete into the layout being left behind."""
    pending_writes = [i for i in meta.timeline.pending_writes() if not meta.is_clustering_instant(i)]
    if pending_writes:
        raise HudiTimelineError(
            f"Cannot {verb} '{meta.table_name}' while write {pending_writes[0]} is pending.",
            help=f"let the writer finish, or roll its write back, and {verb} again")


def delete_instants_of_layout(meta: TableMetaClient, writer: TimelineWriter, layout: int,
                              instants: list[Instant] | None = None) -> int:
    """Delete the instant files of timeline *layout* (all of them when *instants* is not given):
    a previous attempt's copies before a move, the source files after it."""
    if instants is None:
        folder = meta.timeline_path_of_layout(layout)
        statuses = meta.storage.list(folder) if meta.storage.exists(folder) else []
        instants = [parsed for status in statuses if not status.is_dir
                    for parsed in [Instant.parse_file_name(status.name, layout=layout)] if parsed is not None]
    return sum(1 for instant in instants if writer.delete_in_layout(instant, layout=layout))
