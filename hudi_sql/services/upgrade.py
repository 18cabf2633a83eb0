"""Upgrading a table from version 6 (Apache Hudi 0.14 / 0.15) to version 8 (Apache Hudi 1.0), and on to 9 (1.1+).

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

**On to version 9** (Apache Hudi 1.1's ``EightToNineUpgradeHandler``): after the same first step
(failed writes rolled back, a Merge-On-Read table compacted), only ``hoodie.properties`` changes
(:func:`version_9_properties`): version 9 names merge modes, not payload classes. A version 6
table goes through 8; one ``hoodie.properties`` rewrite switches 8 to 9, so there is nothing to
finish when it is cut short.
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
from hudi_sql.table.merge_modes import (
    COMMIT_TIME_MERGE_STRATEGY_ID,
    CUSTOM_MERGE_STRATEGY_ID,
    EVENT_TIME_MERGE_STRATEGY_ID,
    PAYLOAD_BASED_MERGE_STRATEGY_ID,
    delete_marker_properties,
)
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_DEFAULT_PAYLOAD = Payload.DEFAULT.java_class
_OVERWRITE_PAYLOAD = Payload.OVERWRITE_WITH_LATEST.java_class
_PACKAGE = "org.apache.hudi.common.model"


def upgrade_table(spark: SparkSession, meta: TableMetaClient, *, to_version: int = 8,
                  configs: Resolved | HudiConfigs | None = None) -> UpgradeResult:
    """Upgrade the table to *to_version* (8 or 9), or finish an upgrade that was cut short; a
    version 6 table goes to 9 through 8, as in Apache Hudi.

    Raises:
        UnsupportedFeatureError: a target version other than 8 or 9, or one below the table's.
        HudiTimelineError: a write of another writer is still running.
    """
    if to_version not in (8, 9) or meta.table_version > to_version:
        raise UnsupportedFeatureError(
            f"Cannot upgrade '{meta.table_name}' (table version {meta.table_version}) to table version {to_version}: "
            "hudi-sql upgrades version 6 tables to 8 or 9, and version 8 tables to 9.",
            help="CALL upgrade_table(table => ..., to_version => 9), or downgrade_table to go back")
    first = None
    if meta.table_version <= 8:
        first = change_table_version(spark, meta, configs, source=6, target=8, verb="upgrade",
                                     move=lambda writer: _move_timeline(meta, writer))
        if to_version == 8:
            return first
        meta = TableMetaClient.load(meta.base_path, storage=meta.storage)
    nine = change_table_version(spark, meta, configs, source=8, target=9, verb="upgrade",
                                move=lambda writer: _to_version_9(meta, writer))
    if first is None or first.from_version == first.to_version:
        return nine
    return UpgradeResult(first.from_version, 9, first.instants_moved, first.compaction or nine.compaction)


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


#: Version 9 (Apache Hudi 1.1's ``EightToNineUpgradeHandler``): payload classes whose merge mode
#: the upgrade rewrites, and the classes it keeps only as ``hoodie.table.legacy.payload.class``.
_PAYLOADS_TO_EVENT_TIME = frozenset({Payload.EVENT_TIME.java_class, Payload.PARTIAL_UPDATE.java_class,
                                     f"{_PACKAGE}.debezium.MySqlDebeziumAvroPayload",
                                     f"{_PACKAGE}.debezium.PostgresDebeziumAvroPayload"})
_PAYLOADS_TO_COMMIT_TIME = frozenset({Payload.AWS_DMS.java_class, Payload.OVERWRITE_NON_DEFAULTS.java_class})
_LEGACY_PAYLOADS = _PAYLOADS_TO_EVENT_TIME | _PAYLOADS_TO_COMMIT_TIME | {_DEFAULT_PAYLOAD, _OVERWRITE_PAYLOAD}
_PARTIAL_UPDATE_PAYLOADS = frozenset({Payload.PARTIAL_UPDATE.java_class, Payload.OVERWRITE_NON_DEFAULTS.java_class,
                                      f"{_PACKAGE}.debezium.PostgresDebeziumAvroPayload"})
_BUILT_IN_STRATEGIES = frozenset({EVENT_TIME_MERGE_STRATEGY_ID, COMMIT_TIME_MERGE_STRATEGY_ID,
                                  PAYLOAD_BASED_MERGE_STRATEGY_ID, CUSTOM_MERGE_STRATEGY_ID})


def _to_version_9(meta: TableMetaClient, writer: TimelineWriter) -> int:
    """Version 8 to 9 changes only ``hoodie.properties``: files and timeline stay as they are."""
    writer.retire_metadata_table()  # written for version 8; Apache Hudi 1.x rebuilds its own on its next write
    meta.update_properties(version_9_properties(meta))
    return 0


def version_9_properties(meta: TableMetaClient) -> dict[str, str | None]:
    """The ``hoodie.properties`` changes of the upgrade from 8 to 9, Apache Hudi 1.1's rules: a
    payload class of a built-in strategy becomes the legacy payload (with the merge mode and merge
    properties it stands for), the precombine field becomes ``hoodie.table.ordering.fields``.

    Raises:
        UnsupportedFeatureError: a payload version 9 records as a partial-update mode, which
            hudi-sql does not merge: refused before anything changes.
    """
    t = HudiTableConfig
    props = meta.properties
    changes: dict[str, str | None] = {t.VERSION.key: "9", t.TABLE_FORMAT.key: props.get(t.TABLE_FORMAT.key) or "native"}
    payload = props.get(t.PAYLOAD_CLASS.key) or ""
    if payload and props.get(t.RECORD_MERGE_STRATEGY_ID.key) in _BUILT_IN_STRATEGIES:
        if payload in _PARTIAL_UPDATE_PAYLOADS:
            raise UnsupportedFeatureError(
                f"Cannot upgrade '{meta.table_name}' to table version 9: its payload {payload} becomes a "
                f"partial-update mode ({t.PARTIAL_UPDATE_MODE.key}) there, which hudi-sql does not merge yet.",
                help="keep the table at version 8, or upgrade it with Apache Hudi")
        if payload in _PAYLOADS_TO_EVENT_TIME:
            changes.update({t.RECORD_MERGE_MODE.key: "EVENT_TIME_ORDERING",
                            t.RECORD_MERGE_STRATEGY_ID.key: EVENT_TIME_MERGE_STRATEGY_ID})
        elif payload in _PAYLOADS_TO_COMMIT_TIME:
            changes.update({t.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING",
                            t.RECORD_MERGE_STRATEGY_ID.key: COMMIT_TIME_MERGE_STRATEGY_ID})
        if payload == Payload.AWS_DMS.java_class:
            changes.update(delete_marker_properties(Payload.AWS_DMS))
        if payload in _LEGACY_PAYLOADS:
            changes.update({t.LEGACY_PAYLOAD_CLASS.key: payload, t.PAYLOAD_CLASS.key: None})
    ordering = props.get(t.ORDERING_FIELDS.key) or props.get(t.PRECOMBINE_FIELD.key)
    if ordering:
        changes.update({t.ORDERING_FIELDS.key: ordering, t.PRECOMBINE_FIELD.key: None})
    return changes


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
