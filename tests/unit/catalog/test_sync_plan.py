"""Hive sync planning: tables, schema, properties and partition events (pure, no metastore)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from catalog.hive.client import HiveTable
from catalog.hive.config import HiveSyncConfig, HiveSyncMode, parse_key_values, resolve_sync_settings
from catalog.hive.schema import hive_schema
from catalog.hive.sync import LAST_COMMIT_TIME_SYNC
from catalog.hive.sync_plan import (
    CommitSummary,
    MetastoreState,
    PartitionEventType,
    TableState,
    dropped_partitions,
    plan_sync,
    same_location,
    target_tables,
    written_partitions,
)
from hudi_sql.config import HudiConfigs, TableType
from hudi_sql.errors import HudiConfigError, HudiSchemaError

TABLE_PROPS = {"hoodie.table.name": "trips", "hoodie.database.name": "lake", "hoodie.table.type": "COPY_ON_WRITE",
               "hoodie.table.partition.fields": "p"}
SCHEMA = StructType([StructField("id", LongType()), StructField("p", StringType()), StructField("ts", LongType())])
BASE = "/data/trips"


def _settings(**options: object):  # type: ignore[no-untyped-def]
    return resolve_sync_settings({"hoodie.datasource.hive_sync.mode": "hms", **options}, TABLE_PROPS)


def _commit(t: str, written: tuple[str, ...] = (), replaced: tuple[str, ...] = (), op: str = "UPSERT",
            action: str = "commit") -> CommitSummary:
    return CommitSummary(t, action, op, written, replaced)


def _table(commits: tuple[CommitSummary, ...], storage: tuple[str, ...] | None = None,
           schema: StructType = SCHEMA, table_type: TableType = TableType.COPY_ON_WRITE) -> TableState:
    return TableState(BASE, table_type, schema, commits[0].instant_time if commits else None,
                      commits[-1].instant_time if commits else None, commits, storage)


def _existing(last_sync: str, props: Mapping[str, str] | None = None) -> HiveTable:
    hs = hive_schema(SCHEMA, ["p"])
    return HiveTable("lake", "trips", hs.columns, hs.partition_columns,
                     {LAST_COMMIT_TIME_SYNC: last_sync, **(props or {})}, None, f"file:{BASE}")


def _synced_state(last_sync: str, partitions: dict[tuple[str, ...], str | None], **kw: object) -> MetastoreState:
    return MetastoreState(True, {"trips": _existing(last_sync)}, {"trips": partitions},
                          supports_spark_properties=bool(kw.get("spark", True)))


# -- settings -----------------------------------------------------------------------------


def test_resolve_sync_settings_infers_from_table() -> None:
    s = resolve_sync_settings({}, TABLE_PROPS)
    assert (s.mode, s.database, s.table, s.partition_fields) == (HiveSyncMode.JDBC, "lake", "trips", ("p",))
    assert s.partition_extractor_class == "org.apache.hudi.hive.SinglePartPartitionValueExtractor"
    assert s.sync_as_datasource and s.auto_create_database and not s.support_timestamp
    assert s.jdbc_url == "jdbc:hive2://localhost:10000" and s.metastore_uris == "thrift://localhost:9083"


def test_resolve_sync_settings_extractor_inference_rules() -> None:
    multi = resolve_sync_settings({}, {**TABLE_PROPS, "hoodie.table.partition.fields": "a,b:simple"})
    assert multi.partition_fields == ("a", "b")
    assert multi.partition_extractor_class.endswith("MultiPartKeysValueExtractor")
    hive_style = resolve_sync_settings({"hoodie.datasource.write.hive_style_partitioning": "true"}, TABLE_PROPS)
    assert hive_style.partition_extractor_class.endswith("HiveStylePartitionValueExtractor")
    none = resolve_sync_settings({}, {"hoodie.table.name": "t"})
    assert none.partition_fields == () and none.partition_extractor_class.endswith("NonPartitionedExtractor")
    encoded = resolve_sync_settings({}, {**TABLE_PROPS, "hoodie.datasource.write.partitionpath.urlencode": "true"})
    assert encoded.decode_partition


def test_resolve_sync_settings_explicit_options_win() -> None:
    s = resolve_sync_settings({"hoodie.datasource.hive_sync.database": "other",
                               "hoodie.datasource.hive_sync.table": "t2",
                               "hoodie.datasource.hive_sync.use_jdbc": "false",
                               "hoodie.datasource.hive_sync.table_properties": "a=1\nb = x=y\n"}, TABLE_PROPS)
    assert (s.database, s.table, s.mode) == ("other", "t2", HiveSyncMode.HIVEQL)
    assert dict(s.table_properties) == {"a": "1", "b": "x=y"}


def test_hive_sync_keys_are_registered_options() -> None:
    configs = HudiConfigs.of({"hoodie.datasource.hive_sync.enable": "true", "hoodie.datasource.hive_sync.mode": "jdbc"})
    assert configs.get(HiveSyncConfig.ENABLED) is True
    with pytest.raises(HudiConfigError, match="Did you mean"):
        HudiConfigs.of({"hoodie.datasource.hive_sync.jdbc_url": "x"})
    with pytest.raises(HudiConfigError):
        HudiConfigs.of({"hoodie.datasource.hive_sync.mode": "thrift"}).get(HiveSyncConfig.MODE)
    with pytest.raises(HudiConfigError):
        parse_key_values("novalue")


# -- tables -------------------------------------------------------------------------------


def test_target_tables_cow_mor_and_skip_ro_suffix() -> None:
    assert [t.name for t in target_tables(_settings(), TableType.COPY_ON_WRITE)] == ["trips"]
    mor = target_tables(_settings(), TableType.MERGE_ON_READ)
    assert [(t.name, t.realtime, t.read_optimized) for t in mor] == [("trips_ro", False, True),
                                                                      ("trips_rt", True, False)]
    skip = target_tables(_settings(**{"hoodie.datasource.hive_sync.skip_ro_suffix": "true"}), TableType.MERGE_ON_READ)
    assert [t.name for t in skip] == ["trips", "trips_rt"]
    rt = target_tables(_settings(**{"hoodie.datasource.hive_sync.table.strategy": "rt"}), TableType.MERGE_ON_READ)
    assert [(t.name, t.realtime) for t in rt] == [("trips", True)]


def test_plan_sync_first_sync_creates_database_table_and_all_partitions() -> None:
    table = _table((_commit("001", ("a", "b")), _commit("002", ("c",))), storage=("a", "b", "c"))
    plan = plan_sync(_settings(), table, MetastoreState(False))
    assert plan.create_database and plan.database == "lake"
    [tp] = plan.tables
    assert tp.create is not None and tp.full_listing
    assert tp.create.location == BASE and tp.create.external
    assert tp.create.input_format == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
    assert dict(tp.create.serde_properties) == {"path": BASE, "hoodie.query.as.ro.table": "false"}
    assert tp.create.table_properties["spark.sql.sources.provider"] == "hudi"
    assert [c.name for c in tp.create.columns][-2:] == ["id", "ts"]
    assert [c.name for c in tp.create.partition_columns] == ["p"]
    assert [(e.type, e.values, e.location) for e in tp.partition_events] == [
        (PartitionEventType.ADD, ("a",), f"{BASE}/a"), (PartitionEventType.ADD, ("b",), f"{BASE}/b"),
        (PartitionEventType.ADD, ("c",), f"{BASE}/c")]
    assert tp.last_commit_time_sync == "002"


def test_plan_sync_mor_creates_ro_and_rt_with_their_formats() -> None:
    table = _table((_commit("001", ("a",), action="deltacommit"),), storage=("a",), table_type=TableType.MERGE_ON_READ)
    plan = plan_sync(_settings(), table, MetastoreState(True))
    ro, rt = plan.tables
    assert ro.create is not None and rt.create is not None
    assert (ro.table, ro.create.input_format) == ("trips_ro", "org.apache.hudi.hadoop.HoodieParquetInputFormat")
    assert (rt.table, rt.create.input_format) == (
        "trips_rt", "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat")
    assert ro.create.serde_properties["hoodie.query.as.ro.table"] == "true"
    assert rt.create.serde_properties["hoodie.query.as.ro.table"] == "false"


def test_plan_sync_missing_database_without_auto_create_raises() -> None:
    with pytest.raises(HudiConfigError, match="does not exist"):
        plan_sync(_settings(**{"hoodie.datasource.hive_sync.auto_create_database": "false"}),
                  _table((_commit("001", ("a",)),), storage=("a",)), MetastoreState(False))


def test_plan_sync_resync_unchanged_is_noop() -> None:
    table = _table((_commit("001", ("a",)), _commit("002", ("b",))))
    state = _synced_state("002", {("a",): f"file:{BASE}/a", ("b",): f"{BASE}/b/"})
    props = plan_sync(_settings(), table, state).tables[0].table_properties
    existing = _existing("002", props)
    state = MetastoreState(True, {"trips": existing}, state.partitions)
    plan = plan_sync(_settings(), table, state)
    assert plan.is_noop, plan


def test_plan_sync_incremental_adds_only_partitions_written_since_last_sync() -> None:
    table = _table((_commit("001", ("a",)), _commit("002", ("b",)), _commit("003", ("b", "c"))))
    state = _synced_state("002", {("a",): None, ("b",): f"{BASE}/b"})
    [tp] = plan_sync(_settings(**{"hoodie.datasource.hive_sync.sync_as_datasource": "false"}), table, state).tables
    assert not tp.full_listing
    assert [(e.type, e.values) for e in tp.partition_events] == [(PartitionEventType.ADD, ("c",))]
    assert tp.last_commit_time_sync == "003"


def test_plan_sync_moved_partition_is_updated() -> None:
    table = _table((_commit("001", ("a",)), _commit("002", ("a",))))
    state = _synced_state("001", {("a",): "hdfs://nn:8020/old/place/a"})
    [tp] = plan_sync(_settings(), table, state).tables
    assert [(e.type, e.location) for e in tp.partition_events] == [(PartitionEventType.UPDATE, f"{BASE}/a")]


def test_plan_sync_delete_partition_drops_it() -> None:
    table = _table((_commit("001", ("a", "b")),
                    _commit("002", (), ("a",), op="DELETE_PARTITION", action="replacecommit")))
    state = _synced_state("001", {("a",): None, ("b",): None})
    [tp] = plan_sync(_settings(), table, state).tables
    assert [(e.type, e.values) for e in tp.partition_events] == [(PartitionEventType.DROP, ("a",))]


def test_plan_sync_partition_rewritten_after_delete_is_kept() -> None:
    commits = (_commit("001", ("a",)), _commit("002", (), ("a",), op="DELETE_PARTITION", action="replacecommit"),
               _commit("003", ("a",)))
    assert dropped_partitions(commits) == set()
    assert written_partitions(commits) == ["a"]


def test_dropped_partitions_insert_overwrite_table_drops_untouched_partitions() -> None:
    commits = (_commit("001", ("a", "b")),
               _commit("002", ("a",), ("a", "b"), op="INSERT_OVERWRITE_TABLE", action="replacecommit"))
    assert dropped_partitions(commits) == {"b"}
    clustering = (_commit("002", ("a",), ("a",), op="CLUSTER", action="replacecommit"),)
    assert dropped_partitions(clustering) == set()


def test_plan_sync_full_listing_drops_partitions_gone_from_storage() -> None:
    table = _table((_commit("001", ("a", "b")),), storage=("a",))
    state = _synced_state("001", {("a",): None, ("zz",): f"{BASE}/zz"})
    [tp] = plan_sync(_settings(**{"hoodie.meta.sync.incremental": "false"}), table, state).tables
    assert tp.full_listing
    assert [(e.type, e.values) for e in tp.partition_events] == [(PartitionEventType.DROP, ("zz",))]


def test_plan_sync_last_sync_before_timeline_start_lists_everything() -> None:
    table = _table((_commit("005", ("c",)),), storage=("a", "c"))
    state = _synced_state("001", {("a",): None})
    [tp] = plan_sync(_settings(), table, state).tables
    assert tp.full_listing
    assert [(e.type, e.values) for e in tp.partition_events] == [(PartitionEventType.ADD, ("c",))]


def test_plan_sync_full_listing_without_listing_raises() -> None:
    with pytest.raises(Exception, match="partition listing"):
        plan_sync(_settings(), _table((_commit("001", ("a",)),)), MetastoreState(True))


def test_plan_sync_schema_evolution_new_column() -> None:
    wider = StructType(SCHEMA.fields + [StructField("n", IntegerType())])
    table = _table((_commit("001", ("a",)), _commit("002", ("a",))), schema=wider)
    [tp] = plan_sync(_settings(), table, _synced_state("001", {("a",): None})).tables
    assert tp.schema_update is not None
    assert [c.name for c in tp.schema_update.added] == ["n"]
    assert tp.columns[-1].name == "n"
    assert "spark.sql.sources.schema.part.0" in tp.table_properties


def test_plan_sync_incompatible_type_change_raises() -> None:
    narrowed = StructType([StructField("id", StringType()), StructField("p", StringType()),
                           StructField("ts", LongType())])
    table = _table((_commit("001", ("a",)), _commit("002", ("a",))), schema=narrowed)
    with pytest.raises(HudiSchemaError, match="bigint to string"):
        plan_sync(_settings(), table, _synced_state("001", {("a",): None}))


def test_plan_sync_without_spark_properties_support_warns_and_filters() -> None:
    table = _table((_commit("001", ("a",)),), storage=("a",))
    plan = plan_sync(_settings(), table, MetastoreState(True, supports_spark_properties=False))
    assert plan.warnings and "spark.sql" in plan.warnings[0]
    create = plan.tables[0].create
    assert create is not None
    assert not any(k.startswith("spark.sql.") for k in create.table_properties)


def test_plan_sync_conditional_sync_skips_last_sync_when_nothing_changed() -> None:
    table = _table((_commit("001", ("a",)), _commit("002", ("a",))))
    settings = _settings(**{"hoodie.datasource.meta_sync.condition.sync": "true",
                            "hoodie.datasource.hive_sync.sync_as_datasource": "false"})
    state = _synced_state("001", {("a",): f"{BASE}/a"})
    [tp] = plan_sync(settings, table, state).tables
    assert tp.last_commit_time_sync is None
    [tp2] = plan_sync(replace(settings, conditional_sync=False), table, state).tables
    assert tp2.last_commit_time_sync == "002"


def test_plan_sync_partition_arity_mismatch_raises() -> None:
    settings = replace(_settings(), partition_extractor_class="org.apache.hudi.hive.MultiPartKeysValueExtractor")
    with pytest.raises(HudiConfigError, match="do not match"):
        plan_sync(settings, _table((_commit("001", ("a/b",)),), storage=("a/b",)), MetastoreState(True))


def test_plan_sync_decode_partition_unescapes_values() -> None:
    settings = replace(_settings(), decode_partition=True)
    plan = plan_sync(settings, _table((_commit("001", ("x%27y",)),), storage=("x%27y",)), MetastoreState(True))
    assert plan.tables[0].partition_events[0].values == ("x'y",)


def test_plan_sync_injection_value_is_plain_partition_value() -> None:
    value = "x'); DROP TABLE t; --"
    plan = plan_sync(_settings(), _table((_commit("001", (value,)),), storage=(value,)), MetastoreState(True))
    [event] = plan.tables[0].partition_events
    assert event.values == (value,) and event.location == f"{BASE}/{value}"


@pytest.mark.parametrize(("a", "b", "same"), [
    ("file:/data/t/a", "/data/t/a", True), ("hdfs://nn:8020/data/t/a/", "/data/t/a", True),
    ("file:///data/t/a", "/data/t/a", True), ("/data/t/a%20b", "/data/t/a b", True), ("/data/t/a", "/data/t/b", False),
])
def test_same_location_ignores_scheme_authority_and_encoding(a: str, b: str, same: bool) -> None:
    assert same_location(a, b) is same


def test_sync_if_enabled_does_nothing_when_disabled(tmp_path: object) -> None:
    from catalog.hive.sync import sync_if_enabled

    # no table at the path: a disabled sync must not even load it
    assert sync_if_enabled(str(tmp_path), {"hoodie.datasource.hive_sync.enable": "false"}) is None
    assert sync_if_enabled(str(tmp_path), {}) is None
