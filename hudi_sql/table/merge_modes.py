"""How a table of version 8 or 9 records the way its records merge (``hoodie.properties``), as
Apache Hudi 1.x writes it when it creates a table: the merge strategy ids, the merge mode a payload
class stands for, and version 9's merge modes in place of payload classes. Used when a table is
created (:func:`hudi_sql.table.meta_client.init_table`) and read back
(:meth:`hudi_sql.table.meta_client.TableMetaClient.record_payload`); an upgrade or downgrade
rewrites these entries by the same names (:mod:`hudi_sql.services.upgrade`).
"""

from __future__ import annotations

__all__ = ["COMMIT_TIME_MERGE_STRATEGY_ID", "CUSTOM_MERGE_STRATEGY_ID", "EVENT_TIME_MERGE_STRATEGY_ID",
           "PAYLOAD_BASED_MERGE_STRATEGY_ID", "delete_marker_properties", "version_8_defaults",
           "version_9_merge_properties"]

from hudi_sql.config import HudiTableConfig, HudiWriteConfig
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.model.payload import Payload

#: ``hoodie.record.merge.strategy.id`` of Apache Hudi 1.x's merge modes (``HoodieRecordMerger``).
EVENT_TIME_MERGE_STRATEGY_ID = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
COMMIT_TIME_MERGE_STRATEGY_ID = "ce9acb64-bde0-424c-9b91-f6ebba25356d"
#: ... and of a custom merger class (``HoodieRecordMerger.CUSTOM_MERGE_STRATEGY_UUID``).
CUSTOM_MERGE_STRATEGY_ID = "1897ef5f-18bc-4557-939c-9d6a8afd1519"


#: Apache Hudi 1.x's merge mode for the payload classes a version 6 table names; any other
#: payload is a CUSTOM mode run by the payload (its strategy id is the payload-based one).
_MERGE_MODE_OF_PAYLOAD = {
    Payload.OVERWRITE_WITH_LATEST.java_class: "COMMIT_TIME_ORDERING",
    Payload.DEFAULT.java_class: "EVENT_TIME_ORDERING",
    Payload.EVENT_TIME.java_class: "EVENT_TIME_ORDERING",
}
PAYLOAD_BASED_MERGE_STRATEGY_ID = "00000000-0000-0000-0000-000000000000"


def version_8_defaults(values: dict[str, str]) -> None:
    """The properties Apache Hudi 1.0 gives every table it creates at version 8.

    The merge mode follows the payload class when one is named (as Apache Hudi 1.x infers it),
    else the ordering field: event-time ordering with one, commit-time ordering without.
    """
    t = HudiTableConfig
    values.setdefault(t.INITIAL_VERSION.key, values[t.VERSION.key])
    values.setdefault(t.TIMELINE_PATH.key, str(t.TIMELINE_PATH.default))
    values.setdefault(t.TIMELINE_HISTORY_PATH.key, str(t.TIMELINE_HISTORY_PATH.default))
    payload = values.get(t.PAYLOAD_CLASS.key)
    if payload:
        mode = _MERGE_MODE_OF_PAYLOAD.get(payload, "CUSTOM")
    else:
        mode = "EVENT_TIME_ORDERING" if values.get(t.PRECOMBINE_FIELD.key) else "COMMIT_TIME_ORDERING"
    mode = values.setdefault(t.RECORD_MERGE_MODE.key, mode)
    strategy = {"EVENT_TIME_ORDERING": EVENT_TIME_MERGE_STRATEGY_ID,
                "COMMIT_TIME_ORDERING": COMMIT_TIME_MERGE_STRATEGY_ID}.get(mode, PAYLOAD_BASED_MERGE_STRATEGY_ID)
    values.setdefault(t.RECORD_MERGE_STRATEGY_ID.key, strategy)
    values.setdefault(t.PAYLOAD_CLASS.key, Payload.DEFAULT.java_class if mode == "EVENT_TIME_ORDERING"
                      else Payload.OVERWRITE_WITH_LATEST.java_class)


#: Version 9: the payload classes Apache Hudi 1.1+ replaces by a merge mode at table creation
#: (``inferMergingConfigsForV9TableCreation``), keeping the class as ``hoodie.table.legacy.payload.class``:
#: each with the mode it becomes (:func:`delete_marker_properties` carry the rest of its rule).
_VERSION_9_MODE_OF_PAYLOAD: dict[Payload, str] = {
    Payload.DEFAULT: "EVENT_TIME_ORDERING",
    Payload.EVENT_TIME: "EVENT_TIME_ORDERING",
    Payload.OVERWRITE_WITH_LATEST: "COMMIT_TIME_ORDERING",
    Payload.AWS_DMS: "COMMIT_TIME_ORDERING",
}


def delete_marker_properties(payload: Payload) -> dict[str, str]:
    """Version 9's merge properties for a payload's delete marker (AWS DMS: ``Op`` = ``D``), none
    for a payload without one."""
    marker = payload.rules.delete_marker
    if marker is None:
        return {}
    return {HudiTableConfig.MERGE_DELETE_FIELD.key: marker[0], HudiTableConfig.MERGE_DELETE_MARKER.key: marker[1]}


def version_9_merge_properties(values: dict[str, str], named_payload: str | None, *, where: str) -> None:
    """How a version 9 table records merging, as Apache Hudi 1.1+ creates one: the ordering field
    as ``hoodie.table.ordering.fields`` (no precombine field), the merge mode with no payload class
    and no strategy id of a built-in mode, a payload named by the writer kept as the legacy payload
    with the mode (and merge properties) it stands for, and ``hoodie.table.format=native``.

    Raises:
        UnsupportedFeatureError: a payload whose version 9 form is a partial-update mode, which
            hudi-sql does not merge yet (the reader refuses to merge it).
    """
    t = HudiTableConfig
    ordering = values.pop(t.PRECOMBINE_FIELD.key, None)
    if ordering:
        values.setdefault(t.ORDERING_FIELDS.key, ordering)
    values.pop(t.PAYLOAD_CLASS.key, None)
    values.pop(t.RECORD_MERGE_STRATEGY_ID.key, None)
    values.setdefault(t.TABLE_FORMAT.key, "native")
    if not named_payload:
        return  # the mode version_8_defaults inferred from the ordering field (or the one asked for)
    payload = Payload.of(named_payload)
    if payload not in _VERSION_9_MODE_OF_PAYLOAD:
        raise UnsupportedFeatureError(
            f"Cannot create {where} at table version 9 with {payload.java_class}: version 9 records it as a "
            f"partial-update mode ({t.PARTIAL_UPDATE_MODE.key}), which hudi-sql does not merge yet.",
            help=f"create it at table version 6 or 8 ({HudiWriteConfig.WRITE_TABLE_VERSION.key}), or with another payload")
    values[t.RECORD_MERGE_MODE.key] = _VERSION_9_MODE_OF_PAYLOAD[payload]
    values[t.LEGACY_PAYLOAD_CLASS.key] = payload.java_class
    values.update(delete_marker_properties(payload))
