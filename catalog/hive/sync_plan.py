"""Hive sync's inputs and its pure planning: what to create, alter, add, relocate and drop.

:func:`plan_sync` takes the table side (:class:`TableState`) and the metastore side
(:class:`MetastoreState`) and returns a frozen :class:`SyncPlan` without any I/O;
:class:`~catalog.hive.sync.HiveSyncTool` loads the two states and applies the plan. The rules
(which Hive tables, when partitions are listed in full, which partitions count as dropped)
are described in :mod:`catalog.hive.sync`.
"""

from __future__ import annotations

__all__ = [
    "CommitSummary",
    "HiveTarget",
    "MetastoreState",
    "PartitionEvent",
    "PartitionEventType",
    "SyncPlan",
    "SyncResult",
    "TablePlan",
    "TableState",
    "dropped_partitions",
    "needs_full_listing",
    "partition_values",
    "plan_sync",
    "target_tables",
    "written_partitions",
]

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from pyspark.sql.types import StructType

from catalog.hive import ddl, manifest
from catalog.hive.client import SPARK_PROPERTY_PREFIX, HiveTable
from catalog.hive.config import (
    MANIFEST_BASE_PATH_PROPERTY,
    HiveSyncConfig,
    HiveSyncSettings,
)
from catalog.hive.partition_values import extractor_for, unescape_path_name
from catalog.hive.schema import (
    HiveColumn,
    SchemaDifference,
    hive_schema,
    schema_difference,
    spark_table_properties,
)
from catalog.hive.spark_datasource import LAST_COMMIT_TIME_SYNC
from hudi_sql.config import TableType
from hudi_sql.config.hive_naming import QUERY_AS_RO_TABLE
from hudi_sql.errors import HudiConfigError, HudiError

_DELETE_PARTITION_OPERATIONS = frozenset({"DELETE_PARTITION", "INSERT_OVERWRITE", "INSERT_OVERWRITE_TABLE"})


# --------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class CommitSummary:
    """What hive sync needs from one completed write instant's metadata."""

    instant_time: str
    action: str
    operation_type: str = "UNKNOWN"
    written_partitions: tuple[str, ...] = ()
    replaced_partitions: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableState:
    """The Hudi side of a sync.

    Attributes:
        base_path: the table's base path (partition locations are built from it).
        table_type: COPY_ON_WRITE or MERGE_ON_READ.
        schema: the data columns of the latest completed write.
        timeline_start: the first completed write instant of the active timeline.
        latest_instant: the last completed write instant (what ``last_commit_time_sync`` becomes).
        commits: completed write instants after the oldest ``last_commit_time_sync`` (all when
            a full listing is needed), oldest first.
        storage_partitions: the partition folders, when listed.
    """

    base_path: str
    table_type: TableType
    schema: StructType
    timeline_start: str | None
    latest_instant: str | None
    commits: tuple[CommitSummary, ...] = ()
    storage_partitions: tuple[str, ...] | None = None


@dataclass(frozen=True)
class MetastoreState:
    """The metastore side: which tables exist and their partitions (values -> location, if known)."""

    database_exists: bool
    tables: Mapping[str, HiveTable] = field(default_factory=dict)
    partitions: Mapping[str, Mapping[tuple[str, ...], str | None]] = field(default_factory=dict)
    supports_spark_properties: bool = True


# --------------------------------------------------------------------------------------------
# The plan


class PartitionEventType(str, Enum):
    ADD = "add"
    UPDATE = "update"
    DROP = "drop"


@dataclass(frozen=True)
class PartitionEvent:
    type: PartitionEventType
    partition_path: str
    values: tuple[str, ...]
    location: str


@dataclass(frozen=True)
class HiveTarget:
    """One Hive table to keep in sync with the Hudi table."""

    name: str
    realtime: bool
    read_optimized: bool


@dataclass(frozen=True)
class TablePlan:
    table: str
    partition_keys: tuple[str, ...]
    create: ddl.TableDefinition | None = None
    columns: tuple[HiveColumn, ...] = ()
    schema_update: SchemaDifference | None = None
    table_properties: Mapping[str, str] = field(default_factory=dict)
    serde_properties: Mapping[str, str] = field(default_factory=dict)
    partition_events: tuple[PartitionEvent, ...] = ()
    last_commit_time_sync: str | None = None
    full_listing: bool = False
    #: registered (again) as a Spark datasource table with Spark's DDL (:mod:`.spark_datasource`)
    registered: bool = False

    def events(self, kind: PartitionEventType) -> tuple[PartitionEvent, ...]:
        return tuple(e for e in self.partition_events if e.type is kind)

    @property
    def changes_metadata(self) -> bool:
        return bool(self.create or self.registered or self.schema_update or self.table_properties
                    or self.serde_properties or self.partition_events)

    @property
    def is_noop(self) -> bool:
        return not (self.changes_metadata or self.last_commit_time_sync)


@dataclass(frozen=True)
class SyncPlan:
    database: str
    create_database: bool
    tables: tuple[TablePlan, ...]
    warnings: tuple[str, ...] = ()

    @property
    def is_noop(self) -> bool:
        return not self.create_database and all(t.is_noop for t in self.tables)


@dataclass(frozen=True)
class SyncResult:
    plan: SyncPlan
    error: str | None = None

    def summary(self) -> dict[str, Any]:
        """What the sync did, as plain values (``hudi-sql sync --output json``): the database
        created or not, and per table whether it was created or registered, the columns added,
        changed and dropped, the partitions added, moved and dropped, the commit synced up to."""
        tables = []
        for table in self.plan.tables:
            schema = table.schema_update
            tables.append({
                "table": table.table,
                "created": table.create is not None,
                "registered": table.registered,
                "columns_added": [c.name for c in schema.added] if schema else [],
                "columns_changed": [c.name for c in schema.updated] if schema else [],
                "columns_dropped": list(schema.deleted) if schema else [],
                "partitions_added": len(table.events(PartitionEventType.ADD)),
                "partitions_updated": len(table.events(PartitionEventType.UPDATE)),
                "partitions_dropped": len(table.events(PartitionEventType.DROP)),
                "last_commit_time_sync": table.last_commit_time_sync,
            })
        return {"database": self.plan.database, "database_created": self.plan.create_database, "tables": tables,
                "warnings": list(self.plan.warnings), "error": self.error}

    def lines(self) -> list[str]:
        """The summary as lines for a person, one per change (Hudi's sync tool logs the same)."""
        figures = self.summary()
        out = [f"created database {figures['database']}"] if figures["database_created"] else []
        for t in figures["tables"]:
            name = f"{figures['database']}.{t['table']}"
            done = ["created" if t["created"] else "registered" if t["registered"] else ""]
            for key, what in (("columns_added", "added columns"), ("columns_changed", "changed columns"),
                              ("columns_dropped", "dropped columns")):
                if t[key]:
                    done.append(f"{what} {', '.join(t[key])}")
            for key, what in (("partitions_added", "added"), ("partitions_updated", "moved"),
                              ("partitions_dropped", "dropped")):
                if t[key]:
                    done.append(f"{what} {t[key]} partition{'' if t[key] == 1 else 's'}")
            changes = [d for d in done if d] or ["no change"]
            synced = f" (synced up to commit {t['last_commit_time_sync']})" if t["last_commit_time_sync"] else ""
            out.append(f"{name}: {'; '.join(changes)}{synced}")
        out += [f"warning: {w}" for w in figures["warnings"]]
        if figures["error"]:
            out.append(f"error (ignored): {figures['error']}")
        return out


# --------------------------------------------------------------------------------------------
# Pure planning


def target_tables(settings: HiveSyncSettings, table_type: TableType) -> tuple[HiveTarget, ...]:
    """The Hive tables of a Hudi table (``HiveSyncTool.initTableNameVars`` / ``doSync``)."""
    name = settings.table
    if table_type is TableType.COPY_ON_WRITE:
        return (HiveTarget(name, realtime=False, read_optimized=False),)
    strategy = settings.table_strategy
    if settings.sync_as_manifest:  # manifests list base files: the merged _rt view needs a Hudi reader
        if strategy == "RT":
            raise HudiConfigError(
                f"{HiveSyncConfig.SYNC_AS_MANIFEST.key} syncs the read-optimized table only, and "
                f"{HiveSyncConfig.TABLE_STRATEGY.key} is RT.", help="use table strategy RO or ALL")
        if strategy == "ALL":  # the read-optimized table of ALL, under the name it has there
            return (HiveTarget(name if settings.skip_ro_suffix else f"{name}_ro", realtime=False,
                               read_optimized=True),)
    if strategy == "RO":
        return (HiveTarget(name, realtime=False, read_optimized=True),)
    if strategy == "RT":
        return (HiveTarget(name, realtime=True, read_optimized=False),)
    ro_name = name if settings.skip_ro_suffix else f"{name}_ro"
    return (HiveTarget(ro_name, realtime=False, read_optimized=True),
            HiveTarget(f"{name}_rt", realtime=True, read_optimized=False))


def written_partitions(commits: Iterable[CommitSummary]) -> list[str]:
    """``TimelineUtils.getWrittenPartitions``: partitions written or replaced, first-seen order."""
    seen: dict[str, None] = {}
    for c in commits:
        for p in c.written_partitions + c.replaced_partitions:
            if p:
                seen.setdefault(p, None)
    return list(seen)


def dropped_partitions(commits: Sequence[CommitSummary]) -> set[str]:
    """Partitions replaced by a delete-partition-like replacecommit and not written since."""
    deleted: dict[str, str] = {}
    for c in commits:
        if c.action == "replacecommit" and c.operation_type.upper() in _DELETE_PARTITION_OPERATIONS:
            for p in c.replaced_partitions:
                deleted[p] = c.instant_time
    if not deleted:
        return set()
    earliest = min(deleted.values())
    last_write: dict[str, str] = {}
    for c in commits:
        if c.instant_time >= earliest:
            for p in c.written_partitions:
                last_write[p] = c.instant_time
    return {p for p, t in deleted.items() if p and (p not in last_write or t > last_write[p])}


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(//[^/]*)?")


def _path_only(location: str) -> str:
    """``Path.getPathWithoutSchemeAndAuthority``: ``file:/a/b/`` and ``hdfs://nn/a/b`` -> ``/a/b``."""
    path = _SCHEME.sub("", location.strip())
    path = re.sub(r"/{2,}", "/", path)
    return path.rstrip("/") or "/"


def same_location(a: str, b: str) -> bool:
    pa, pb = _path_only(a), _path_only(b)
    return pa == pb or unescape_path_name(pa) == unescape_path_name(pb)


def partition_location(base_path: str, partition_path: str) -> str:
    """``FSUtils.getPartitionPath``: the base path for ``""``, else ``<base>/<partition>``."""
    base = base_path.rstrip("/")
    return f"{base}/{partition_path}" if partition_path else base


def data_root(settings: HiveSyncSettings, base_path: str) -> str:
    """Where the Hive table and its partitions point: the base path, or the manifest folder."""
    return manifest.manifest_root(base_path) if settings.sync_as_manifest else base_path


def partition_values(settings: HiveSyncSettings, partition_path: str) -> tuple[str, ...]:
    """The Hive values of one partition path (URL-decoded with ``decode_partition``); checked for arity."""
    values = extractor_for(settings.partition_extractor_class).extract(partition_path)
    if settings.decode_partition:
        values = [unescape_path_name(v) for v in values]
    if values and len(values) != len(settings.partition_fields):
        raise HudiConfigError(
            f"Partition key parts {list(settings.partition_fields)} do not match partition values {values} "
            f"of partition '{partition_path}'.",
            help=f"check {HiveSyncConfig.PARTITION_FIELDS.key} and {HiveSyncConfig.PARTITION_EXTRACTOR_CLASS.key}",
        )
    return tuple(values)


def needs_full_listing(settings: HiveSyncSettings, table: TableState | None, last_sync: str | None,
                       *, timeline_start: str | None = None) -> bool:
    start = timeline_start if table is None else table.timeline_start
    return last_sync is None or not settings.incremental or (start is not None and last_sync < start)


def _plan_partitions(
    settings: HiveSyncSettings,
    table: TableState,
    existing: Mapping[tuple[str, ...], str | None],
    last_sync: str | None,
) -> tuple[tuple[PartitionEvent, ...], bool]:
    if not settings.partition_fields:
        return (), False
    events: list[PartitionEvent] = []
    full = needs_full_listing(settings, table, last_sync)
    if full:
        if table.storage_partitions is None:
            raise HudiError("Hive sync needs the partition listing of the table but was not given it.")
        gone = dropped_partitions(table.commits)
        on_storage: set[tuple[str, ...]] = set()
        for path in table.storage_partitions:
            if path in gone:
                continue
            values = partition_values(settings, path)
            if not values:
                continue
            on_storage.add(values)
            location = partition_location(data_root(settings, table.base_path), path)
            if values not in existing:
                events.append(PartitionEvent(PartitionEventType.ADD, path, values, location))
            elif existing[values] is not None and not same_location(str(existing[values]), location):
                events.append(PartitionEvent(PartitionEventType.UPDATE, path, values, location))
        for values, stored in existing.items():
            if values not in on_storage:
                events.append(PartitionEvent(PartitionEventType.DROP, "", values, stored or ""))
        return tuple(events), True
    since = [c for c in table.commits if last_sync is None or c.instant_time > last_sync]
    gone = dropped_partitions(since)
    for path in written_partitions(since):
        values = partition_values(settings, path)
        if not values:
            continue
        location = partition_location(data_root(settings, table.base_path), path)
        if path in gone:
            if values in existing:
                events.append(PartitionEvent(PartitionEventType.DROP, path, values, location))
        elif values not in existing:
            events.append(PartitionEvent(PartitionEventType.ADD, path, values, location))
        elif existing[values] is not None and not same_location(str(existing[values]), location):
            events.append(PartitionEvent(PartitionEventType.UPDATE, path, values, location))
    return tuple(events), False


def _check_same_form(settings: HiveSyncSettings, existing: HiveTable) -> None:
    """A Hive table keeps the form it was created in: switching to or from manifests needs a new table."""
    if existing.input_format is None:
        return
    is_manifest = existing.input_format == manifest.SYMLINK_INPUT_FORMAT
    if is_manifest != settings.sync_as_manifest:
        raise HudiConfigError(
            f"Hive table {existing.database}.{existing.table} is {'' if is_manifest else 'not '}a manifest table, "
            f"and {HiveSyncConfig.SYNC_AS_MANIFEST.key} is {str(settings.sync_as_manifest).lower()}.",
            help="drop the Hive table to sync it in the other form")


def plan_sync(settings: HiveSyncSettings, table: TableState, metastore: MetastoreState) -> SyncPlan:
    """The changes that bring the metastore in line with the table (pure).

    Raises:
        HudiConfigError: the database is missing and ``auto_create_database`` is off, or a
            partition path does not fit the partition fields.
        HudiSchemaError: a column changed type in a way Hive cannot follow.
    """
    if not metastore.database_exists and not settings.auto_create_database:
        raise HudiConfigError(f"Hive database '{settings.database}' does not exist.",
                              help=f"create it, or set {HiveSyncConfig.AUTO_CREATE_DATABASE.key}=true")
    warnings: list[str] = []
    keys = settings.partition_fields
    schema = hive_schema(table.schema, keys, support_timestamp=settings.support_timestamp,
                         with_meta_fields=not settings.omit_metadata_fields)
    common_props = {k: v for k, v in settings.table_properties.items()
                    if metastore.supports_spark_properties or not k.startswith(SPARK_PROPERTY_PREFIX)}
    if settings.sync_as_datasource and not metastore.supports_spark_properties:
        warnings.append("The metastore client cannot store spark.sql.* table properties (Spark SQL refuses "
                        "them), so the tables are not synced as Spark datasource tables; use hms mode.")
    if settings.sync_as_manifest:
        common_props[MANIFEST_BASE_PATH_PROPERTY] = table.base_path
    plans: list[TablePlan] = []
    for target in target_tables(settings, table.table_type):
        table_props = dict(common_props)
        if settings.sync_as_datasource and metastore.supports_spark_properties:
            table_props.update(spark_table_properties(
                table.schema, keys, spark_version=settings.spark_version,
                threshold=settings.schema_string_length_threshold, with_meta_fields=not settings.omit_metadata_fields,
                base_path=table.base_path, read_optimized=target.read_optimized))
        serde_props = dict(settings.serde_properties)
        if settings.sync_as_datasource:
            serde_props.update({"path": table.base_path,
                                QUERY_AS_RO_TABLE: "true" if target.read_optimized else "false"})
        existing = metastore.tables.get(target.name)
        partitions = metastore.partitions.get(target.name, {}) if existing is not None else {}
        if existing is None:
            create = ddl.TableDefinition(
                database=settings.database, table=target.name, columns=schema.columns,
                partition_columns=schema.partition_columns, location=data_root(settings, table.base_path),
                input_format=manifest.SYMLINK_INPUT_FORMAT if settings.sync_as_manifest else ddl.input_format_class(
                    settings.base_file_format, realtime=target.realtime,
                    pre_apache=settings.use_pre_apache_input_format),
                output_format=manifest.SYMLINK_OUTPUT_FORMAT if settings.sync_as_manifest else ddl.OUTPUT_FORMAT,
                serde_properties=serde_props, table_properties=table_props,
                external=not settings.create_managed_table,
            )
            events, full = _plan_partitions(settings, table, {}, None)
            plans.append(TablePlan(target.name, keys, create=create, columns=schema.columns,
                                   partition_events=events, last_commit_time_sync=table.latest_instant,
                                   full_listing=full))
            continue
        _check_same_form(settings, existing)
        difference = schema_difference(schema, existing.column_types(), keys)
        props_to_set = {k: v for k, v in table_props.items() if existing.properties.get(k) != v}
        serde_to_set = ({k: v for k, v in serde_props.items() if existing.serde_properties.get(k) != v}
                        if existing.serde_properties is not None else {})
        last_sync = existing.properties.get(LAST_COMMIT_TIME_SYNC)
        events, full = _plan_partitions(settings, table, partitions, last_sync)
        plan = TablePlan(target.name, keys, columns=schema.columns,
                         schema_update=None if difference.is_empty else difference,
                         table_properties=props_to_set, serde_properties=serde_to_set,
                         partition_events=events, full_listing=full)
        new_sync = table.latest_instant
        if new_sync is not None and new_sync != last_sync and (
                not settings.conditional_sync or plan.changes_metadata):
            plan = replace(plan, last_commit_time_sync=new_sync)
        plans.append(plan)
    return SyncPlan(settings.database, not metastore.database_exists, tuple(plans), tuple(warnings))
