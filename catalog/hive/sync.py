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
    "HiveSyncTool",
    "sync_if_enabled",
]

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from catalog.hive import manifest
from catalog.hive.client import HiveTable, MetastoreClient, client_for
from catalog.hive.config import (
    HiveSyncConfig,
    resolve_sync_settings,
)
from catalog.hive.schema import (
    table_schema,
)
from catalog.hive.spark_datasource import LAST_COMMIT_TIME_SYNC, sync_with_spark_ddl, uses_spark_ddl
from catalog.hive.sync_plan import (
    CommitSummary,
    HiveTarget,
    MetastoreState,
    PartitionEventType,
    SyncPlan,
    SyncResult,
    TablePlan,
    TableState,
    needs_full_listing,
    partition_values,
    plan_sync,
    target_tables,
    written_partitions,
)
from hudi_sql.config import HudiConfigs
from hudi_sql.table.fs_view import list_partition_paths
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.post_commit import PostCommitAction, register_post_commit_action

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


_log = logging.getLogger(__name__)

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
