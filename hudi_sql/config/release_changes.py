"""What an upgrade of Apache Hudi would change for a table: the defaults and rules that differ
between Apache Hudi 0.15 (table version 6), 1.0 (version 8) and 1.1 / 1.2 (version 9), judged
against one table's properties and the options set on it.

A nightly job keeps its options when its cluster moves to a newer Apache Hudi; what it does not
set, the new release decides. These are the differences a job notices without a word in the log:
rows kept twice instead of updated, a change feed that starts one commit later, a stored row that
no longer loses to a later write, keys that stop matching. Each rule names the option that keeps
today's behaviour where one exists, and applies only to tables it would change (a table without an
ordering field sees no difference in how records merge).

The facts come from running Apache Hudi 0.15.0, 1.0.2 and 1.2.0 through the oracle
(``docs/compatibility.md`` §19, §25, "Version 8", "Version 9") and from Apache Hudi's own
upgrade rule for merge modes (``upgradeMergeMode``), which :func:`merge_mode_after_upgrade` states
once for the upgrade itself (:mod:`hudi_sql.services.upgrade`) and for this check.
"""

from __future__ import annotations

__all__ = ["ReleaseChange", "merge_mode_after_upgrade", "release_changes"]

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hudi_sql.config.keygen import single_complex_key_value_only
from hudi_sql.config.read import HudiReadConfig
from hudi_sql.config.registry import HudiConfigs
from hudi_sql.config.resolve import TableConfig
from hudi_sql.config.table import HudiTableConfig, TableType
from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.model.payload import Payload


@dataclass(frozen=True)
class ReleaseChange:
    """One behaviour an upgrade changes for the table: the option that decides it (set it to
    keep today's behaviour, where one exists) and what changes, release by release."""

    key: str
    detail: str


def merge_mode_after_upgrade(table: TableConfig) -> str:
    """The record merge mode Apache Hudi 1.x records when it upgrades a version 6 table
    (``upgradeMergeMode``): a payload class it has no mode for stays as a ``CUSTOM`` mode run by
    that payload; a Merge-On-Read table with an ordering field orders by event time whatever its
    payload; otherwise ``DefaultHoodieRecordPayload`` means event time and anything else the
    latest commit."""
    payload = table.declared_payload_class or ""
    known = (Payload.DEFAULT.java_class, Payload.OVERWRITE_WITH_LATEST.java_class, Payload.EVENT_TIME.java_class)
    if payload and payload not in known:
        return "CUSTOM"
    if (table.table_type is TableType.MERGE_ON_READ and table.precombine_field) or payload == Payload.DEFAULT.java_class:
        return "EVENT_TIME_ORDERING"
    return "COMMIT_TIME_ORDERING"


def release_changes(table: TableConfig, options: Mapping[str, str], *,
                    stored_keys_value_only: bool | None = None) -> tuple[ReleaseChange, ...]:
    """The behaviours of *table*, with the ``hoodie.*`` *options* set on it or in the session,
    that an upgrade to a newer Apache Hudi release changes; *stored_keys_value_only* is the form
    of its stored record keys where releases disagree on it
    (:meth:`hudi_sql.table.meta_client.TableMetaClient.stored_keys_value_only`)."""
    configs = HudiConfigs.of(options, validate=False)
    changes = [rule(table, configs) for rule in _RULES]
    changes.append(_complex_key_encoding(table, configs, stored_keys_value_only))
    return tuple(change for change in changes if change is not None)


def _insert_into_operation(table: TableConfig, configs: HudiConfigs) -> ReleaseChange | None:
    """Apache Hudi 0.15 runs ``INSERT INTO`` as an upsert on a table with an ordering field; 1.0+
    run it as an insert, ordering field or not."""
    key = HudiWriteConfig.SQL_INSERT_INTO_OPERATION
    if table.version != 6 or not table.precombine_field or configs.is_set(key) or configs.is_set(
            HudiWriteConfig.SQL_INSERT_MODE):
        return None
    return ReleaseChange(key.key, (
        f"on this version 6 table with ordering field {table.precombine_field}, INSERT INTO runs as an upsert (as "
        f"Apache Hudi 0.15 runs it); Apache Hudi 1.0 and later run it as an insert, so an INSERT of a stored key keeps "
        f"both rows. Set {key.key}=upsert to keep updating."))


def _merge_mode(table: TableConfig, configs: HudiConfigs) -> ReleaseChange | None:
    """What the upgrade's merge mode changes against Apache Hudi 0.15's payload behaviour."""
    if table.version != 6 or not table.precombine_field:
        return None
    payload = table.declared_payload_class or Payload.OVERWRITE_WITH_LATEST.java_class
    mode = merge_mode_after_upgrade(table)
    key = HudiTableConfig.RECORD_MERGE_MODE.key
    if mode == "EVENT_TIME_ORDERING" and payload == Payload.OVERWRITE_WITH_LATEST.java_class:
        return ReleaseChange(key, (
            f"the payload is OverwriteWithLatestAvroPayload, so today the latest write replaces a stored row; the upgrade "
            f"to version 8 records {key}=EVENT_TIME_ORDERING for a Merge-On-Read table with an ordering field, so "
            f"after it a write whose {table.precombine_field} is lower than the stored one no longer replaces it."))
    if mode == "COMMIT_TIME_ORDERING":
        return ReleaseChange(key, (
            f"the upgrade to version 8 records {key}=COMMIT_TIME_ORDERING (the latest write wins, as today); Apache "
            f"Hudi 1.x then keeps, of two rows of one key in one batch, the one that arrived last, where 0.15 keeps "
            f"the one with the greater {table.precombine_field}: deduplicate a batch before writing it."))
    return None


def _incremental_begin(table: TableConfig, configs: HudiConfigs) -> ReleaseChange | None:
    """Incremental queries: version 6 compares requested instant times, begin exclusive; Apache
    Hudi 1.0 compares completion times with the begin inclusive; 1.1+ with the begin exclusive.
    Said for version 8 tables (1.0 to 1.1 moves the begin) and where the options ask for
    incremental reads."""
    key = HudiReadConfig.BEGIN_INSTANT.key
    asks = configs.is_set(HudiReadConfig.BEGIN_INSTANT) or configs.get(HudiReadConfig.QUERY_TYPE).value == "incremental"
    if table.version == 8:
        return ReleaseChange(key, (
            "incremental queries of this version 8 table take the begin completion time as inclusive in Apache Hudi "
            "1.0 and as exclusive in 1.1 and later (and here): a job that passes the last commit it read as the "
            "begin sees that commit again on 1.0 only."))
    if table.version == 6 and asks:
        return ReleaseChange(key, (
            f"{key} is compared with requested instant times on version 6 (Apache Hudi 0.15, begin exclusive); after "
            "an upgrade to version 8 or 9 with completion times (begin inclusive on 1.0, exclusive on 1.1 and "
            "later). Two writers that complete out of order can then put a commit on the other side of the begin."))
    return None


def _complex_key_encoding(table: TableConfig, configs: HudiConfigs, stored_value_only: bool | None) -> ReleaseChange | None:
    """A ComplexKeyGenerator over one record key field whose keys are (or, on version 6, are by
    default) bare values, as Apache Hudi 0.14.1 to 1.0.2 write them: 1.1 and later key ``id:1``
    unless told otherwise (HUDI-9666), and then match none of the stored keys."""
    key = HudiWriteConfig.COMPLEX_KEYGEN_NEW_ENCODING
    field = table.single_complex_key_field
    if field is None:
        return None
    explicit = configs.get(key) if configs.is_set(key) else None
    if not single_complex_key_value_only(table.version, explicit, stored_value_only):
        return None
    seen = "the table stores" if stored_value_only else f"version {table.version} writes by default"
    return ReleaseChange(key.key, (
        f"a ComplexKeyGenerator over one record key field ({field}): {seen} bare values (1), as Apache Hudi 0.14.1 "
        f"to 1.0.2 do. Apache Hudi 1.1 and later key records {field}:1 unless {key.key}=true, match none of the "
        "stored keys and add every upserted row a second time. Set it to true on every Apache Hudi 1.1+ writer "
        "(hudi-sql follows the keys the table stores)."))


_RULES: tuple[Callable[[TableConfig, HudiConfigs], ReleaseChange | None], ...] = (
    _insert_into_operation, _merge_mode, _incremental_begin)
