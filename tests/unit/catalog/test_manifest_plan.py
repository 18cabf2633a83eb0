"""Hive sync in the manifest form: what the plan creates (pure, no metastore)."""

from __future__ import annotations

import pytest
from pyspark.sql.types import LongType, StringType, StructField, StructType

from catalog.hive.client import HiveTable
from catalog.hive.config import resolve_sync_settings
from catalog.hive.manifest import SYMLINK_INPUT_FORMAT, SYMLINK_OUTPUT_FORMAT, manifest_location
from catalog.hive.schema import hive_schema
from catalog.hive.sync_plan import (
    CommitSummary,
    MetastoreState,
    PartitionEventType,
    TableState,
    plan_sync,
    target_tables,
)
from hudi_sql.config import TableType
from hudi_sql.errors import HudiConfigError

TABLE_PROPS = {"hoodie.table.name": "trips", "hoodie.database.name": "lake", "hoodie.table.partition.fields": "p"}
SCHEMA = StructType([StructField("id", LongType()), StructField("p", StringType()), StructField("ts", LongType())])
BASE = "/data/trips"
MANIFEST = {"hoodie.datasource.hive_sync.mode": "hms", "hoodie.datasource.hive_sync.sync_as_manifest": "true"}


def _table(table_type: TableType = TableType.COPY_ON_WRITE) -> TableState:
    commits = (CommitSummary("001", "commit", "INSERT", ("a", "b")),)
    return TableState(BASE, table_type, SCHEMA, "001", "001", commits, ("a", "b"))


def test_plan_sync_manifest_form_creates_symlink_table_over_manifest_folders() -> None:
    settings = resolve_sync_settings(MANIFEST, TABLE_PROPS)
    [tp] = plan_sync(settings, _table(), MetastoreState(True)).tables
    assert tp.create is not None
    assert (tp.create.input_format, tp.create.output_format) == (SYMLINK_INPUT_FORMAT, SYMLINK_OUTPUT_FORMAT)
    assert tp.create.serde == "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert tp.create.location == f"{BASE}/.hoodie/.aux/manifest"
    assert tp.create.table_properties["hoodie.base.path"] == BASE
    assert not any(k.startswith("spark.sql.") for k in tp.create.table_properties)  # not a datasource table
    assert "path" not in tp.create.serde_properties
    assert [(e.type, e.location) for e in tp.partition_events] == [
        (PartitionEventType.ADD, manifest_location(BASE, "a")), (PartitionEventType.ADD, manifest_location(BASE, "b"))]


def test_target_tables_manifest_form_mor_is_read_optimized_table_only() -> None:
    settings = resolve_sync_settings(MANIFEST, TABLE_PROPS)
    assert [(t.name, t.realtime) for t in target_tables(settings, TableType.MERGE_ON_READ)] == [("trips_ro", False)]
    rt = resolve_sync_settings({**MANIFEST, "hoodie.datasource.hive_sync.table.strategy": "RT"}, TABLE_PROPS)
    with pytest.raises(HudiConfigError, match="read-optimized table only"):
        target_tables(rt, TableType.MERGE_ON_READ)


def test_plan_sync_manifest_form_over_input_format_table_fails_naming_the_table() -> None:
    hs = hive_schema(SCHEMA, ["p"])
    existing = HiveTable("lake", "trips", hs.columns, hs.partition_columns, {}, None, f"file:{BASE}",
                         "org.apache.hudi.hadoop.HoodieParquetInputFormat")
    settings = resolve_sync_settings(MANIFEST, TABLE_PROPS)
    with pytest.raises(HudiConfigError, match="lake.trips is not a manifest table"):
        plan_sync(settings, _table(), MetastoreState(True, {"trips": existing}, {"trips": {}}))
