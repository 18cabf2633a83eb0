"""Hive metastore sync for Hudi tables (Apache Hudi's ``hoodie.datasource.hive_sync.*``).

Modules: :mod:`.config` (options), :mod:`.schema` (Hive types, pure), :mod:`.partition_values`
(partition path -> values), :mod:`.ddl` (DDL text, pure), :mod:`.sync` (plan and apply) and
:mod:`.client` (the metastore clients: jdbc, hms, hiveql).
"""

from catalog.hive.client import (
    HiveSyncError,
    HmsMetastoreClient,
    JdbcMetastoreClient,
    MetastoreClient,
    SparkSqlMetastoreClient,
    client_for,
)
from catalog.hive.config import HiveSyncConfig, HiveSyncMode, HiveSyncSettings, resolve_sync_settings
from catalog.hive.sync import HiveSyncTool
from catalog.hive.sync_plan import SyncPlan, SyncResult, plan_sync

__all__ = [
    "HiveSyncConfig",
    "HiveSyncError",
    "HiveSyncMode",
    "HiveSyncSettings",
    "HiveSyncTool",
    "HmsMetastoreClient",
    "JdbcMetastoreClient",
    "MetastoreClient",
    "SparkSqlMetastoreClient",
    "SyncPlan",
    "SyncResult",
    "client_for",
    "plan_sync",
    "resolve_sync_settings",
]
