"""Downgrading a table from version 8 (Apache Hudi 1.0) back to version 6 (Apache Hudi 0.14 / 0.15),
and from version 9 (1.1+) to 8: only ``hoodie.properties`` changes there (:func:`version_8_properties`,
after the same first step), and a version 9 table goes to 6 through 8.

The reverse of :mod:`hudi_sql.services.upgrade`, as Apache Hudi 1.x's own downgrade
(``EightToSevenDowngradeHandler``, then ``SevenToSix``, which changes nothing on disk) does it,
so that a table can go back to jobs still on Hudi 0.x:

1. **Failed writes are rolled back, and a Merge-On-Read table is compacted**, so the latest
   file slices hold no log files named the version 8 way (by their deltacommit).
2. **The timeline moves back** from ``.hoodie/timeline/`` to ``.hoodie/``. A completed instant
   loses its completion time from its name (``<t>_<c>.<action>`` becomes ``<t>.<action>``) and
   keeps it as the file's modification time, which is where version 6 readers look for it; the
   ``clustering`` action becomes ``replacecommit`` again. Commit metadata (inflight and
   completed) goes from Avro back to JSON; other files are copied as they are.
3. **``hoodie.properties``** says version 6 and timeline layout 1, and loses what only version 8
   declares (timeline folder, initial version, merge mode and strategy). The merge mode goes
   back to a payload class (``EVENT_TIME_ORDERING``: ``DefaultHoodieRecordPayload``,
   ``COMMIT_TIME_ORDERING``: ``OverwriteWithLatestAvroPayload``; ``CUSTOM`` keeps the class it
   names), partition fields lose their key generator types (``city:SIMPLE`` becomes ``city``), and a
   key generator given only by its type gets its class.
4. **Apache Hudi's metadata table**, written in version 8's format, is removed (as hudi-sql
   removes it before any write); an Apache Hudi 0.x writer with it enabled rebuilds it.

**Crash safety**, as for the upgrade: copy every instant into ``.hoodie/`` (clearing an earlier
attempt's copies first), then rewrite ``hoodie.properties``, then delete the version 8 files.
Until the properties say 6 the table is the version 8 table it was (its readers only look into
``timeline/``); from then on it is a version 6 table whose leftovers nobody reads. Running the
downgrade again finishes it.

Not done: a table whose LSM archived timeline (``.hoodie/timeline/history/``) holds archived
instants is refused; Apache Hudi rewrites those into ``.hoodie/archived/``, a format hudi-sql
does not convert.
"""

from __future__ import annotations

__all__ = ["downgrade_table"]

from typing import TYPE_CHECKING

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiConfigs, HudiTableConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError
from hudi_sql.keygen.base import key_generator_class
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant, State, parse_instant_time
from hudi_sql.model.instant_payloads import encode_payload
from hudi_sql.model.payload import Payload
from hudi_sql.services.version_change import UpgradeResult, change_table_version, delete_instants_of_layout
from hudi_sql.table.lsm_timeline import has_lsm_instants, lsm_history_path, read_lsm_instants
from hudi_sql.table.merge_modes import (
    COMMIT_TIME_MERGE_STRATEGY_ID,
    EVENT_TIME_MERGE_STRATEGY_ID,
    PAYLOAD_BASED_MERGE_STRATEGY_ID,
)
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: The payload class version 6 names for each version 8 merge mode (Apache Hudi's ``unsetRecordMergeMode``).
_PAYLOAD_OF_MODE = {"EVENT_TIME_ORDERING": Payload.DEFAULT.java_class,
                    "COMMIT_TIME_ORDERING": Payload.OVERWRITE_WITH_LATEST.java_class}
_STRATEGY_OF_MODE = {"EVENT_TIME_ORDERING": EVENT_TIME_MERGE_STRATEGY_ID,
                     "COMMIT_TIME_ORDERING": COMMIT_TIME_MERGE_STRATEGY_ID}


def downgrade_table(spark: SparkSession, meta: TableMetaClient, *, to_version: int = 6,
                    configs: Resolved | HudiConfigs | None = None) -> UpgradeResult:
    """Downgrade the table to *to_version* (9 to 8; 8, or 9 through 8, to 6), or finish a
    downgrade that was cut short.

    Raises:
        UnsupportedFeatureError: a target other than 6 or 8, one above the table's version, a
            table with archived instants in its LSM timeline (to 6), or a version 9 merge
            description version 8 cannot carry.
        HudiConfigError: a CUSTOM merge mode without the payload class version 6 would need.
        HudiTimelineError: a write of another writer is still running.
    """
    if to_version not in (6, 8) or meta.table_version < to_version:
        raise UnsupportedFeatureError(
            f"Cannot downgrade '{meta.table_name}' (table version {meta.table_version}) to table version "
            f"{to_version}: hudi-sql downgrades version 9 tables to 8 or 6, and version 8 tables to 6.",
            help="CALL downgrade_table(table => ..., to_version => 6), or upgrade_table to go forward")
    first = None
    if meta.table_version == 9:
        def refuse_what_8_cannot_say() -> None:
            version_8_properties(meta)

        first = change_table_version(spark, meta, configs, source=9, target=8, verb="downgrade",
                                     check=refuse_what_8_cannot_say, move=lambda writer: _to_version_8(meta, writer))
        if to_version == 8:
            return first
        meta = TableMetaClient.load(meta.base_path, storage=meta.storage)

    def check() -> None:
        _refuse_lsm_archive(meta)
        _downgraded_properties(meta)  # a CUSTOM mode without a class fails before any change

    six = change_table_version(spark, meta, configs, source=8, target=6, verb="downgrade", check=check,
                               move=lambda writer: _move_timeline_back(meta, writer))
    if first is None:
        return six
    return UpgradeResult(9, 6, six.instants_moved, first.compaction or six.compaction)


def _to_version_8(meta: TableMetaClient, writer: TimelineWriter) -> int:
    """Version 9 to 8 changes only ``hoodie.properties``."""
    writer.retire_metadata_table()
    meta.update_properties(version_8_properties(meta))
    return 0


#: Version 9's legacy payloads that version 8 runs as a CUSTOM mode by the payload class.
_PAYLOAD_BASED_ON_8 = frozenset({Payload.AWS_DMS.java_class})


def version_8_properties(meta: TableMetaClient) -> dict[str, str | None]:
    """The ``hoodie.properties`` changes from version 9 back to 8: the merge described by a
    payload class again (the legacy payload, else the one of the merge mode, with its strategy
    id), the ordering field as ``hoodie.table.precombine.field`` too, the version 9 entries gone.

    Raises:
        UnsupportedFeatureError: several ordering fields or a partial-update mode, which version 8
            cannot say: refused before anything changes.
    """
    t = HudiTableConfig
    config = meta.config
    if len(config.ordering_fields) > 1 or config.partial_update_mode != "NONE":
        what = (f"{t.ORDERING_FIELDS.key}={','.join(config.ordering_fields)}" if len(config.ordering_fields) > 1
                else f"{t.PARTIAL_UPDATE_MODE.key}={config.partial_update_mode}")
        raise UnsupportedFeatureError(
            f"Cannot downgrade '{meta.table_name}' to table version 8: it merges with {what}, which version 8 "
            "cannot describe.", help="keep the table at version 9")
    changes: dict[str, str | None] = {
        t.VERSION.key: "8", t.LEGACY_PAYLOAD_CLASS.key: None, t.PARTIAL_UPDATE_MODE.key: None,
        t.MERGE_DELETE_FIELD.key: None, t.MERGE_DELETE_MARKER.key: None,
    }
    legacy = meta.properties.get(t.LEGACY_PAYLOAD_CLASS.key) or ""
    mode = config.record_merge_mode or ("EVENT_TIME_ORDERING" if config.precombine_field else "COMMIT_TIME_ORDERING")
    if legacy in _PAYLOAD_BASED_ON_8:
        changes.update({t.PAYLOAD_CLASS.key: legacy, t.RECORD_MERGE_MODE.key: "CUSTOM",
                        t.RECORD_MERGE_STRATEGY_ID.key: PAYLOAD_BASED_MERGE_STRATEGY_ID})
    elif mode in _PAYLOAD_OF_MODE:
        changes.update({t.PAYLOAD_CLASS.key: legacy or _PAYLOAD_OF_MODE[mode], t.RECORD_MERGE_MODE.key: mode,
                        t.RECORD_MERGE_STRATEGY_ID.key: _STRATEGY_OF_MODE[mode]})
    if config.precombine_field:
        changes[t.PRECOMBINE_FIELD.key] = config.precombine_field
    return changes


def _refuse_lsm_archive(meta: TableMetaClient) -> None:
    if has_lsm_instants(meta):
        raise UnsupportedFeatureError(
            f"Cannot downgrade '{meta.table_name}': its LSM archived timeline ({lsm_history_path(meta)}) holds "
            f"{len(read_lsm_instants(meta))} archived instants, which hudi-sql does not convert to version 6's archive.",
            help="downgrade it with Apache Hudi 1.x (CALL downgrade_table there), which converts them")


def _move_timeline_back(meta: TableMetaClient, writer: TimelineWriter) -> int:
    """Copy, switch ``hoodie.properties``, delete (the crash-safe order of the module docstring)."""
    writer.retire_metadata_table()
    delete_instants_of_layout(meta, writer, 1)  # copies of an attempt that was cut short
    current = list(meta.timeline.instants)
    for instant in current:
        target = _version_6_instant(instant)
        completed_at = parse_instant_time(instant.completion_time).timestamp() if instant.completion_time else None
        writer.publish_in_layout(target, _version_6_content(instant, target, meta.read_instant_bytes(instant)),
                                 layout=1, modification_time=completed_at)
    meta.update_properties(_downgraded_properties(meta))
    delete_instants_of_layout(meta, writer, 2, current)
    return len(current)


def _version_6_instant(instant: Instant) -> Instant:
    if instant.action is Action.CLUSTERING:
        return Instant(instant.instant_time, Action.REPLACE_COMMIT, instant.state)
    return instant.with_completion_time(None)


def _version_6_content(instant: Instant, target: Instant, data: bytes) -> bytes:
    """Commit metadata as JSON: the inflight and completed files of commits, deltacommits,
    replacecommits and clusterings (a requested replacecommit or clustering holds its plan,
    Avro in both versions; other requested files are empty)."""
    rewrite = instant.action in (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, Action.CLUSTERING) \
        and instant.state is not State.REQUESTED
    if not rewrite or not data.strip():
        return data
    metadata = CommitMetadata.from_bytes(data, origin=f"instant file {instant.file_name}")
    return encode_payload(target, metadata, timeline_layout=1)


def _downgraded_properties(meta: TableMetaClient) -> dict[str, str | None]:
    t = HudiTableConfig
    props = meta.properties
    changes: dict[str, str | None] = {
        t.VERSION.key: "6",
        t.TIMELINE_LAYOUT_VERSION.key: "1",
        t.TIMELINE_PATH.key: None,
        t.TIMELINE_HISTORY_PATH.key: None,
        t.INITIAL_VERSION.key: None,
        t.RECORD_MERGE_MODE.key: None,
        t.RECORD_MERGE_STRATEGY_ID.key: None,
    }
    mode = (props.get(t.RECORD_MERGE_MODE.key) or "").strip().upper()
    if mode in _PAYLOAD_OF_MODE:
        changes[t.PAYLOAD_CLASS.key] = _PAYLOAD_OF_MODE[mode]
    elif mode == "CUSTOM" and not props.get(t.PAYLOAD_CLASS.key):
        raise HudiConfigError(
            f"Cannot downgrade '{meta.table_name}': it merges with a custom merger "
            f"({t.RECORD_MERGE_MODE.key}=CUSTOM) and names no payload class, which version 6 needs.",
            help=f"set {t.PAYLOAD_CLASS.key} to the payload class of that merger first")
    fields = props.get(t.PARTITION_FIELDS.key)
    if fields and ":" in fields:
        changes[t.PARTITION_FIELDS.key] = ",".join(f.split(":", 1)[0] for f in fields.split(","))
    keygen_type = props.get(t.KEY_GENERATOR_TYPE.key)
    if keygen_type and not props.get(t.KEY_GENERATOR_CLASS.key):
        changes[t.KEY_GENERATOR_CLASS.key] = key_generator_class(keygen_type).class_name
    return changes
