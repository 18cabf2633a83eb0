"""HiveSyncTool: register a Hudi table (and its partitions) in a Hive metastore.

The work follows Hudi 0.14's ``HiveSyncTool.syncHoodieTable`` and is split the usual way:

1. **load** (I/O): the metastore side (:class:`MetastoreState`: database, tables, partitions)
   and the table side (:class:`TableState`: schema, completed write instants with the
   partitions each wrote or replaced, and, only when needed, the partition folders);
2. **plan** (:func:`plan_sync`, pure): a frozen :class:`SyncPlan`;
3. **apply** the plan through a :class:`~catalog.hive.client.MetastoreClient`.

Which Hive tables: a COPY_ON_WRITE table is ``<table>``; a MERGE_ON_READ table is
``<table>_ro`` (read-optimized, ``HoodieParquetInputFormat``; ``<table>`` with
``skip_ro_suffix``) and ``<table>_rt`` (snapshot, ``HoodieParquetRealtimeInputFormat``), or only
one of them with ``hoodie.datasource.hive_sync.table.strategy`` RO / RT.

Per Hive table (``syncHoodieTable``):

* create the database when missing (``auto_create_database``, else fail);
* a new table is created with the latest schema, meta columns first; an existing one gets
  ``REPLACE COLUMNS`` when :func:`~catalog.hive.schema.schema_difference` finds changes, and the
  table/serde properties that differ;
* partitions: when ``last_commit_time_sync`` is absent (first sync), older than the first
  completed commit of the active timeline (archived), or ``hoodie.meta.sync.incremental`` is
  off, every partition folder is compared with the metastore (add, relocate, and drop
  partitions the metastore has but storage no longer has). Otherwise only partitions named by
  the completed commit / deltacommit / replacecommit instants after it are looked at
  (``partitionToWriteStats`` and ``partitionToReplaceFileIds`` keys): those dropped are
  dropped, the others added or relocated. A partition counts as dropped when a later
  ``DELETE_PARTITION`` / ``INSERT_OVERWRITE[_TABLE]`` replacecommit replaced it and no later
  commit wrote to it (``TimelineUtils.getDroppedPartitions``, Hudi 0.15 rule);
* last, ``last_commit_time_sync`` is set to the latest completed write instant (skipped when
  unchanged, so a second sync of an unchanged table is an empty plan).

Unlike Hudi, locations are compared with scheme and authority stripped on both sides, values
are compared after URL-decoding when ``decode_partition`` is on, and a partition emptied by a
replacecommit is not re-added by a full listing.
"""

from __future__ import annotations

__all__ = [
    "HIVE_SYNC_ACTION",
    "LAST_COMMIT_TIME_SYNC",
    "CommitSummary",
    "HiveSyncTool",
    "HiveTarget",
    "MetastoreState",
    "PartitionEvent",
    "PartitionEventType",
    "SyncPlan",
    "SyncResult",
    "TablePlan",
    "TableState",
    "dropped_partitions",
    "plan_sync",
    "sync_if_enabled",
    "target_tables",
    "written_partitions",
]

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING

from pyspark.sql.types import StructType

from catalog.hive import ddl, manifest
from catalog.hive.client import SPARK_PROPERTY_PREFIX, HiveTable, MetastoreClient, client_for
from catalog.hive.config import (
    MANIFEST_BASE_PATH_PROPERTY,
    HiveSyncConfig,
    HiveSyncSettings,
    resolve_sync_settings,
)
from catalog.hive.partition_values import extractor_for, unescape_path_name
from catalog.hive.schema import (
    HiveColumn,
    SchemaDifference,
    hive_schema,
    schema_difference,
    spark_table_properties,
    table_schema,
)
from catalog.hive.spark_datasource import LAST_COMMIT_TIME_SYNC, sync_with_spark_ddl, uses_spark_ddl
from hudi_sql.config import HudiConfigs, TableType
from hudi_sql.config.hive_naming import QUERY_AS_RO_TABLE
from hudi_sql.errors import HudiConfigError, HudiError
from hudi_sql.write.post_commit import PostCommitAction, register_post_commit_action

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

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


# --------------------------------------------------------------------------------------------
# The tool


class HiveSyncTool:
    """Sync one Hudi table to a Hive metastore.

    Example::

        tool = HiveSyncTool(TableMetaClient.load(path), HudiConfigs.of(options), client)
        plan = tool.plan()       # look first
        result = tool.sync()     # then apply (idempotent)
    """

    def __init__(self, meta_client: TableMetaClient, config: HudiConfigs | Mapping[str, object],
                 client: MetastoreClient) -> None:
        self.meta_client = meta_client
        self.settings = resolve_sync_settings(config, meta_client.properties)
        self.client = client

    @classmethod
    def for_table(cls, base_path: str, options: Mapping[str, object], *,
                  spark: SparkSession | None = None) -> HiveSyncTool:
        """A tool for the table at *base_path*, with the client of the configured mode."""
        from hudi_sql.table.meta_client import TableMetaClient

        meta_client = TableMetaClient.load(base_path)
        settings = resolve_sync_settings(options, meta_client.properties)
        return cls(meta_client, options, client_for(settings, spark=spark))

    # -- loading -----------------------------------------------------------------------

    def targets(self) -> tuple[HiveTarget, ...]:
        return target_tables(self.settings, self.meta_client.table_type)

    def load_metastore_state(self) -> MetastoreState:
        db = self.settings.database
        if not self.client.database_exists(db):
            return MetastoreState(False, supports_spark_properties=self.client.supports_spark_properties)
        tables: dict[str, HiveTable] = {}
        partitions: dict[str, dict[tuple[str, ...], str | None]] = {}
        for target in self.targets():
            found = self.client.get_table(db, target.name)
            if found is None:
                continue
            tables[target.name] = found
            if self.settings.partition_fields:
                partitions[target.name] = {p.values: p.location for p in self.client.list_partitions(db, target.name)}
        return MetastoreState(True, tables, partitions, self.client.supports_spark_properties)

    def load_table_state(self, *, since: str | None, listing: bool) -> TableState:
        """Schema, write instants after *since* (all if ``None``) and, with *listing*, partition folders."""
        from hudi_sql.table.fs_view import list_partition_paths

        mc = self.meta_client
        schema = table_schema(mc)
        writes = mc.timeline.completed_writes()
        commits = []
        for instant in writes.instants:
            if since is not None and instant.instant_time <= since:
                continue
            md = mc.commit_metadata(instant)
            commits.append(CommitSummary(instant.instant_time, instant.action.value, md.operation_type,
                                         tuple(md.partition_to_write_stats),
                                         tuple(md.partition_to_replace_file_ids or {})))
        storage = None
        if listing:
            storage = tuple(list_partition_paths(mc.storage, mc.base_path,
                                                 partitioned=bool(self.settings.partition_fields)))
        return TableState(mc.base_path, mc.table_type, schema,
                          writes.first.instant_time if writes.first else None,
                          writes.last.instant_time if writes.last else None, tuple(commits), storage)

    def _fill_locations(self, table: TableState, metastore: MetastoreState) -> MetastoreState:
        """Ask the client for locations it did not list, for the partitions the plan will compare."""
        if not self.settings.partition_fields:
            return metastore
        partitions = {name: dict(parts) for name, parts in metastore.partitions.items()}
        for name, parts in partitions.items():
            last_sync = metastore.tables[name].properties.get(LAST_COMMIT_TIME_SYNC)
            if needs_full_listing(self.settings, table, last_sync):
                paths = list(table.storage_partitions or ())
            else:
                paths = written_partitions(c for c in table.commits if c.instant_time > (last_sync or ""))
            wanted = []
            for path in paths:
                values = partition_values(self.settings, path)
                if values and values in parts and parts[values] is None:
                    wanted.append(values)
            if wanted:
                parts.update(self.client.partition_locations(self.settings.database, name,
                                                             self.settings.partition_fields, wanted))
        return MetastoreState(metastore.database_exists, metastore.tables, partitions,
                              metastore.supports_spark_properties)

    def plan(self) -> SyncPlan:
        """Load both sides and plan, without changing anything."""
        metastore = self.load_metastore_state()
        last_syncs = [metastore.tables[t.name].properties.get(LAST_COMMIT_TIME_SYNC) if t.name in metastore.tables
                      else None for t in self.targets()]
        writes = self.meta_client.timeline.completed_writes()
        start = writes.first.instant_time if writes.first else None
        listing = any(needs_full_listing(self.settings, None, s, timeline_start=start) for s in last_syncs)
        since = None if listing or None in last_syncs else min(s for s in last_syncs if s is not None)
        table = self.load_table_state(since=since, listing=listing)
        return plan_sync(self.settings, table, self._fill_locations(table, metastore))

    # -- applying ----------------------------------------------------------------------

    def apply(self, plan: SyncPlan) -> None:
        c, db = self.client, plan.database
        if plan.create_database:
            c.create_database(db)
        for tp in plan.tables:
            if tp.create is not None:
                c.create_table(tp.create)
            else:
                if tp.schema_update is not None:
                    c.update_columns(db, tp.table, tp.columns, tp.schema_update, cascade=bool(tp.partition_keys))
                c.alter_serde_properties(db, tp.table, tp.serde_properties)
                c.alter_table_properties(db, tp.table, tp.table_properties)
            adds = tp.events(PartitionEventType.ADD)
            if adds:
                c.add_partitions(db, tp.table, tp.partition_keys, [(e.values, e.location) for e in adds],
                                 batch_num=self.settings.batch_num)
            updates = tp.events(PartitionEventType.UPDATE)
            if updates:
                c.alter_partition_locations(db, tp.table, tp.partition_keys,
                                            [(e.values, e.location) for e in updates])
            drops = tp.events(PartitionEventType.DROP)
            if drops:
                c.drop_partitions(db, tp.table, tp.partition_keys, [e.values for e in drops])
            if tp.last_commit_time_sync is not None:
                c.alter_table_properties(db, tp.table, {LAST_COMMIT_TIME_SYNC: tp.last_commit_time_sync})

    def sync(self) -> SyncResult:
        """Plan and apply; with ``ignore_exceptions`` a failure is logged and returned, not raised."""
        try:
            if uses_spark_ddl(self.settings, self.client):
                created, synced = sync_with_spark_ddl(
                    self.settings, self.meta_client, self.client, [(t.name, t.read_optimized) for t in self.targets()])
                return SyncResult(SyncPlan(self.settings.database, created, tuple(
                    TablePlan(name, (), registered=made, last_commit_time_sync=time) for name, made, time in synced)))
            if self.settings.sync_as_manifest:  # before the plan adds partitions pointing at them
                manifest.write_manifests(self.meta_client)
            plan = self.plan()
            for warning in plan.warnings:
                _log.warning("hive sync of %s: %s", self.settings.table, warning)
            self.apply(plan)
            return SyncResult(plan)
        except Exception as exc:
            if not self.settings.ignore_exceptions:
                raise
            _log.error("hive sync of %s failed (ignored): %s", self.settings.table, exc)
            return SyncResult(SyncPlan(self.settings.database, False, ()), error=str(exc))


def _sync_after_commit(base_path: str, configs: HudiConfigs, spark: SparkSession | None) -> SyncResult:
    return HiveSyncTool.for_table(base_path, configs.raw(), spark=spark).sync()


#: Hive sync as the engine's post-commit action: registered on import, so the write client runs
#: it after each commit when ``hoodie.datasource.hive_sync.enable`` (or ``meta.sync.enable``) is on
#: without importing the catalog.
HIVE_SYNC_ACTION = PostCommitAction(
    "Hive sync", (HiveSyncConfig.ENABLED, HiveSyncConfig.META_SYNC_ENABLED), _sync_after_commit)
register_post_commit_action(HIVE_SYNC_ACTION)


def sync_if_enabled(base_path: str, options: Mapping[str, object], *,
                    spark: SparkSession | None = None) -> SyncResult | None:
    """After a write: sync when ``hoodie.datasource.hive_sync.enable`` (or ``meta.sync.enable``) is on.

    Returns ``None`` without touching anything when neither is set.
    """
    configs = HudiConfigs.of(options, validate=False)
    if not HIVE_SYNC_ACTION.is_enabled(configs):
        return None
    return _sync_after_commit(base_path, configs, spark)
