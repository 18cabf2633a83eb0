"""Upgrading a table from version 6 (Apache Hudi 0.14 / 0.15) to version 8 (Apache Hudi 1.x).

What changes, as Apache Hudi 1.x's own upgrade (``SixToEight`` / ``SevenToEightUpgradeHandler``)
changes it, so that either engine can upgrade a table and the other go on writing it:

1. **Failed writes are rolled back, and a Merge-On-Read table is compacted** (pending
   compactions run, then one more is scheduled and run): log files are named by their slice's
   base instant in version 6 and by their deltacommit in version 8, so the latest file slices
   should hold none when the naming changes.
2. **The timeline moves** from ``.hoodie/`` to ``.hoodie/timeline/``. Every instant file keeps
   its name, except that a completed one gets its completion time (the file's modification
   time, as Apache Hudi takes it: ``<t>_<completion>.<action>``), and a pending clustering becomes
   the ``clustering`` action. Commit metadata (commits and deltacommits in every state, completed
   replacecommits) is rewritten from JSON to Avro; other files are copied as they are.
3. **``hoodie.properties``** says version 8 and timeline layout 2, names the timeline folder,
   records the initial version (6), the key generator type, and the record merge mode Apache
   Hudi derives from the payload class and the ordering field (``_merge_mode``).

**Crash safety.** The order is: copy every instant into ``.hoodie/timeline/`` (a previous attempt's
copies are cleared first), then rewrite ``hoodie.properties``, then delete the version 6 files.
Until the properties say 8 the table is a version 6 table whose timeline is untouched (readers
of version 6 never look into ``timeline/``); from then on it is a version 8 table whose old files
are ignored. Running the upgrade again redoes a copy that was cut short, or finishes the
deletion. All of it happens under the table lock.

Not done here: the archived timeline (``.hoodie/archived/``) is not converted into the LSM
timeline (``.hoodie/timeline/history/``, where later archivals go); it stays where it is, so
commits archived before the upgrade are invisible to Apache Hudi 1.x's archived-timeline readers
(Apache Hudi's upgrade logs and goes on the same way when its conversion fails). The way back is :mod:`hudi_sql.services.downgrade`.
"""

from __future__ import annotations

__all__ = ["UpgradeResult", "compact_all_log_files", "upgrade_table"]

import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from hudi_sql.commit.locks import service_scope
from hudi_sql.commit.rollback import rollback_failed_writes
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiConfigs, HudiTableConfig, TableType
from hudi_sql.config.compaction import HudiCompactionConfig
from hudi_sql.errors import HudiTimelineError, UnsupportedFeatureError
from hudi_sql.keygen.base import key_generator_class
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant, format_instant_time
from hudi_sql.model.instant_payloads import encode_payload
from hudi_sql.model.payload import Payload
from hudi_sql.table.meta_client import (
    COMMIT_TIME_MERGE_STRATEGY_ID,
    EVENT_TIME_MERGE_STRATEGY_ID,
    PAYLOAD_BASED_MERGE_STRATEGY_ID,
    TableMetaClient,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_log = logging.getLogger(__name__)

_DEFAULT_PAYLOAD = Payload.DEFAULT.java_class
_OVERWRITE_PAYLOAD = Payload.OVERWRITE_WITH_LATEST.java_class
_EVENT_TIME_PAYLOAD = Payload.EVENT_TIME.java_class


@dataclass(frozen=True)
class UpgradeResult:
    """What an upgrade did: the versions before and after, and the work it took."""

    from_version: int
    to_version: int
    #: Instant files moved into the version 8 timeline (0 when the table already was version 8).
    instants_moved: int = 0
    #: The compaction that merged a Merge-On-Read table's log files first, if one was needed.
    compaction: str | None = None


def upgrade_table(spark: SparkSession, meta: TableMetaClient, *, to_version: int = 8,
                  configs: HudiConfigs | None = None) -> UpgradeResult:
    """Upgrade the table to *to_version* (8), or finish an upgrade that was cut short.

    Raises:
        UnsupportedFeatureError: a target version other than 8, or a table version other than 6 or 8.
        HudiTimelineError: a write of another writer is still running.
    """
    if to_version != 8:
        raise UnsupportedFeatureError(
            f"Cannot upgrade '{meta.table_name}' to table version {to_version}: hudi-sql upgrades to version 8.",
            help="CALL upgrade_table(table => ..., to_version => 8)")
    configs = configs or HudiConfigs()
    with service_scope(configs):
        if meta.table_version == 8:
            with TimelineWriter(meta).transaction("finish the upgrade to version 8") as writer:
                leftovers = _delete_legacy_instants(meta, writer)
            if leftovers:
                _log.info("Finished the upgrade of '%s': deleted %d version 6 instant files.",
                          meta.table_name, leftovers)
            return UpgradeResult(8, 8)
        if meta.table_version != 6:
            raise UnsupportedFeatureError(
                f"Cannot upgrade '{meta.table_name}' from table version {meta.table_version}.",
                help="hudi-sql upgrades version 6 tables")
        rollback_failed_writes(meta)
        compaction = compact_all_log_files(spark, meta, configs) if meta.table_type is TableType.MERGE_ON_READ else None
        with TimelineWriter(meta).transaction("upgrade to version 8") as writer:
            moved = _move_timeline(meta, writer)
        meta.reload_timeline()
    _log.info("Upgraded '%s' to table version 8 (%d instant files moved).", meta.table_name, moved)
    return UpgradeResult(6, 8, moved, compaction)


def compact_all_log_files(spark: SparkSession, meta: TableMetaClient, configs: HudiConfigs) -> str | None:
    """Run the pending compactions, then one more over every slice that still has log files (the
    step before a change of log naming, in either direction); returns that last compaction."""
    from hudi_sql.services.compaction import run_compaction, schedule_compaction

    meta.reload_timeline()
    for pending in meta.timeline.pending_compactions().instants:
        run_compaction(spark, meta, pending.instant_time, configs)
    plan = schedule_compaction(meta, configs.with_options({HudiCompactionConfig.STRATEGY.key: _ALL_SLICES}))
    if plan is None:
        return None
    run_compaction(spark, meta, plan.instant_time, configs)
    return plan.instant_time


#: Compacts every slice with log files (Apache Hudi's ``UnBoundedCompactionStrategy``).
_ALL_SLICES = "org.apache.hudi.table.action.compact.strategy.UnBoundedCompactionStrategy"


def _move_timeline(meta: TableMetaClient, writer: TimelineWriter) -> int:
    """Copy, switch ``hoodie.properties``, delete (the crash-safe order of the module docstring)."""
    pending_writes = [i for i in meta.timeline.pending_writes() if not meta.is_clustering_instant(i)]
    if pending_writes:
        raise HudiTimelineError(
            f"Cannot upgrade '{meta.table_name}' while write {pending_writes[0]} is pending.",
            help="let the writer finish, or roll its write back, and upgrade again")
    storage = meta.storage
    folder = meta.timeline_path_of_layout(2)
    history = f"{folder}/{HudiTableConfig.TIMELINE_HISTORY_PATH.default}"
    storage.mkdirs(history)
    for stale in storage.list(folder):  # copies of an attempt that was cut short
        parsed = None if stale.is_dir else Instant.parse_file_name(stale.name, layout=2)
        if parsed is not None:
            writer.delete_in_layout(parsed, layout=2)
    modified = {status.name: status.modification_time for status in storage.list(meta.layout.meta_path)}
    legacy = list(meta.timeline.instants)
    for instant in legacy:
        data = meta.read_instant_bytes(instant)
        target = _version_8_instant(meta, instant, modified.get(instant.file_name))
        writer.publish_in_layout(target, _version_8_content(instant, target, data), layout=2)
    meta.update_properties(_upgraded_properties(meta))
    _delete_legacy_instants(meta, writer, legacy)
    return len(legacy)


def _version_8_instant(meta: TableMetaClient, instant: Instant, modified: float | None) -> Instant:
    if instant.is_completed:
        completion = instant.instant_time
        if modified is not None:
            completion = max(completion, format_instant_time(datetime.fromtimestamp(modified, timezone.utc)))
        return instant.with_completion_time(completion)
    if instant.action is Action.REPLACE_COMMIT and meta.is_clustering_instant(instant):
        return Instant(instant.instant_time, Action.CLUSTERING, instant.state)
    return instant


def _version_8_content(instant: Instant, target: Instant, data: bytes) -> bytes:
    """Commit metadata as Avro (commits and deltacommits in every state, completed replacecommits)."""
    rewrite = instant.action in (Action.COMMIT, Action.DELTA_COMMIT) or (
        instant.action is Action.REPLACE_COMMIT and instant.is_completed)
    if not rewrite or not data.strip():
        return data
    metadata = CommitMetadata.from_bytes(data, origin=f"instant file {instant.file_name}")
    return encode_payload(target, metadata, timeline_layout=2)


def _delete_legacy_instants(meta: TableMetaClient, writer: TimelineWriter,
                            instants: list[Instant] | None = None) -> int:
    """Delete the version 6 instant files left in ``.hoodie/`` (listed again when not given)."""
    if instants is None:
        instants = [parsed for status in meta.storage.list(meta.layout.meta_path) if not status.is_dir
                    for parsed in [Instant.parse_file_name(status.name, layout=1)] if parsed is not None]
    return sum(1 for instant in instants if writer.delete_in_layout(instant, layout=1))


def _upgraded_properties(meta: TableMetaClient) -> dict[str, str | None]:
    t = HudiTableConfig
    props = meta.properties
    changes: dict[str, str | None] = {
        t.VERSION.key: "8",
        t.TIMELINE_LAYOUT_VERSION.key: "2",
        t.TIMELINE_PATH.key: str(t.TIMELINE_PATH.default),
        t.INITIAL_VERSION.key: props.get(t.VERSION.key) or "6",
    }
    keygen = props.get(t.KEY_GENERATOR_CLASS.key)
    if keygen:
        changes[t.KEY_GENERATOR_TYPE.key] = key_generator_class(keygen).key_generator_type.value
    changes.update(_merge_mode(meta))
    return changes


def _merge_mode(meta: TableMetaClient) -> dict[str, str | None]:
    """Apache Hudi's rule (``upgradeMergeMode``): a payload class it does not map to a mode is a
    CUSTOM mode run by that payload; a Merge-On-Read table with an ordering field orders by event
    time; otherwise ``DefaultHoodieRecordPayload`` means event time and anything else commit time."""
    t = HudiTableConfig
    payload = meta.properties.get(t.PAYLOAD_CLASS.key) or ""
    if payload and payload not in (_DEFAULT_PAYLOAD, _OVERWRITE_PAYLOAD, _EVENT_TIME_PAYLOAD):
        mode, strategy = "CUSTOM", PAYLOAD_BASED_MERGE_STRATEGY_ID
    elif (meta.table_type is TableType.MERGE_ON_READ and meta.precombine_field) or payload == _DEFAULT_PAYLOAD:
        mode, strategy, payload = "EVENT_TIME_ORDERING", EVENT_TIME_MERGE_STRATEGY_ID, _DEFAULT_PAYLOAD
    else:
        mode, strategy, payload = "COMMIT_TIME_ORDERING", COMMIT_TIME_MERGE_STRATEGY_ID, _OVERWRITE_PAYLOAD
    return {t.PAYLOAD_CLASS.key: payload, t.RECORD_MERGE_MODE.key: mode, t.RECORD_MERGE_STRATEGY_ID.key: strategy}
