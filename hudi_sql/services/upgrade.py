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
   The metadata table is removed first (hudi-sql keeps version 6 metadata tables only; Apache
   Hudi 1.x builds a version 8 one on its next write).
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

__all__ = ["UpgradeResult", "upgrade_table"]

from datetime import datetime, timezone
from typing import TYPE_CHECKING

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiConfigs, HudiTableConfig
from hudi_sql.config.release_changes import merge_mode_after_upgrade
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.keygen.base import key_generator_class
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant, format_instant_time
from hudi_sql.model.instant_payloads import encode_payload
from hudi_sql.model.payload import Payload
from hudi_sql.services.version_change import UpgradeResult, change_table_version, delete_instants_of_layout
from hudi_sql.table.meta_client import (
    COMMIT_TIME_MERGE_STRATEGY_ID,
    EVENT_TIME_MERGE_STRATEGY_ID,
    PAYLOAD_BASED_MERGE_STRATEGY_ID,
    TableMetaClient,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_DEFAULT_PAYLOAD = Payload.DEFAULT.java_class
_OVERWRITE_PAYLOAD = Payload.OVERWRITE_WITH_LATEST.java_class


def upgrade_table(spark: SparkSession, meta: TableMetaClient, *, to_version: int = 8,
                  configs: Resolved | HudiConfigs | None = None) -> UpgradeResult:
    """Upgrade the table to *to_version* (8), or finish an upgrade that was cut short.

    Raises:
        UnsupportedFeatureError: a target version other than 8, or a table version other than 6 or 8.
        HudiTimelineError: a write of another writer is still running.
    """
    if to_version != 8:
        raise UnsupportedFeatureError(
            f"Cannot upgrade '{meta.table_name}' to table version {to_version}: hudi-sql upgrades to version 8.",
            help="CALL upgrade_table(table => ..., to_version => 8)")
    return change_table_version(spark, meta, configs, source=6, target=8, verb="upgrade",
                                move=lambda writer: _move_timeline(meta, writer))


def _move_timeline(meta: TableMetaClient, writer: TimelineWriter) -> int:
    """Copy, switch ``hoodie.properties``, delete (the crash-safe order of the module docstring)."""
    storage = meta.storage
    writer.retire_metadata_table()  # a version 6 metadata table under a version 8 table: nobody's to keep
    storage.mkdirs(f"{meta.timeline_path_of_layout(2)}/{HudiTableConfig.TIMELINE_HISTORY_PATH.default}")
    delete_instants_of_layout(meta, writer, 2)  # copies of an attempt that was cut short
    modified = {status.name: status.modification_time for status in storage.list(meta.layout.meta_path)}
    legacy = list(meta.timeline.instants)
    for instant in legacy:
        data = meta.read_instant_bytes(instant)
        target = _version_8_instant(meta, instant, modified.get(instant.file_name))
        writer.publish_in_layout(target, _version_8_content(instant, target, data), layout=2)
    meta.update_properties(_upgraded_properties(meta))
    delete_instants_of_layout(meta, writer, 1, legacy)
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
    """The merge mode Apache Hudi's rule gives (:func:`~hudi_sql.config.release_changes.merge_mode_after_upgrade`),
    with the payload class and merge strategy that go with it."""
    t = HudiTableConfig
    mode = merge_mode_after_upgrade(meta.config)
    if mode == "CUSTOM":
        payload, strategy = meta.properties.get(t.PAYLOAD_CLASS.key) or "", PAYLOAD_BASED_MERGE_STRATEGY_ID
    elif mode == "EVENT_TIME_ORDERING":
        payload, strategy = _DEFAULT_PAYLOAD, EVENT_TIME_MERGE_STRATEGY_ID
    else:
        payload, strategy = _OVERWRITE_PAYLOAD, COMMIT_TIME_MERGE_STRATEGY_ID
    return {t.PAYLOAD_CLASS.key: payload, t.RECORD_MERGE_MODE.key: mode, t.RECORD_MERGE_STRATEGY_ID.key: strategy}
