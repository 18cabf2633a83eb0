"""Clustering planning over hand-built timelines and listings (no storage, no Spark)."""

from __future__ import annotations

import pytest

from hudi_sql.config import HudiConfigs
from hudi_sql.config.scoped import ClusteringConfig
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError
from hudi_sql.model.avro_metadata import AvroMetadataKind, deserialize, serialize
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.timeline import Timeline
from hudi_sql.services.clustering import (
    SORT_AND_SIZE_STRATEGY,
    ClusteringInputs,
    ClusteringPlan,
    ClusteringSlice,
    plan_clustering_from,
)
from hudi_sql.services.pending_clustering import ClusteringUpdateConflictError
from hudi_sql.storage.fs import FileStatus

ROOT = "/tbl"
MB = 1024 * 1024
PLAN_TIME = "20240101000000999"
PREFIX = "hoodie.clustering.plan.strategy."


def t(i: int) -> str:
    return f"20240101000000{i:03d}"


def base(fid: str, time_: str, size: int, partition: str = "p1") -> FileStatus:
    name = f"{fid}_0-1-1_{time_}.parquet"
    return FileStatus(f"{ROOT}/{partition}/{name}", name, size, False, 0.0)


def log(fid: str, base_time: str, version: int = 1, partition: str = "p1", size: int = 10) -> FileStatus:
    name = f".{fid}_{base_time}.log.{version}_0-1-1"
    return FileStatus(f"{ROOT}/{partition}/{name}", name, size, False, 0.0)


def commits(*times: str, action: Action = Action.COMMIT, done: bool = True) -> list[Instant]:
    states = [State.REQUESTED, State.INFLIGHT] + ([State.COMPLETED] if done else [])
    return [Instant(time_, action, s) for time_ in times for s in states]


def inputs(partitions: dict[str, tuple[FileStatus, ...]], *extra: list[Instant],
           **kw: object) -> ClusteringInputs:
    instants = commits(*(t(i) for i in range(1, 10)))
    for group in extra:
        instants += group
    return ClusteringInputs(Timeline.of(instants), partitions, **kw)  # type: ignore[arg-type]


def settings(**kw: object) -> ClusteringConfig:
    values: dict[str, object] = {"small_file_limit": 100, "target_file_max_bytes": 100, "max_num_groups": 30,
                                 "max_bytes_per_group": 1000, "parquet_max_file_size": 120}
    values.update(kw)
    return ClusteringConfig(**values)  # type: ignore[arg-type]


def plan_of(partitions: dict[str, tuple[FileStatus, ...]], s: ClusteringConfig | None = None,
            **kw: object) -> ClusteringPlan | None:
    return plan_clustering_from(inputs(partitions, **kw), s or settings(), instant_time=PLAN_TIME)


def file_ids(plan: ClusteringPlan | None) -> list[list[str]]:
    assert plan is not None
    return [[s.file_id for s in g.slices] for g in plan.groups]


# -- choosing and grouping ------------------------------------------------------------------------


def test_plan_groups_small_files_largest_first_up_to_max_bytes_per_group():
    listing = (base("A", t(1), 60), base("B", t(2), 50), base("C", t(3), 40), base("D", t(4), 30),
               base("E", t(5), 20))
    plan = plan_of({"p1": listing}, settings(max_bytes_per_group=100))
    # Sorted 60, 50, 40, 30, 20: a group closes when the next slice would pass 100 bytes.
    assert file_ids(plan) == [["A"], ["B", "C"], ["D", "E"]]
    assert plan is not None
    assert [g.num_output_file_groups for g in plan.groups] == [1, 1, 1]
    assert plan.instant_time == PLAN_TIME and plan.strategy_class == SORT_AND_SIZE_STRATEGY


def test_plan_num_output_file_groups_is_ceil_of_group_bytes_over_target():
    listing = tuple(base(f"F{i}", t(i), 45) for i in range(1, 6))  # 225 bytes
    plan = plan_clustering_from(inputs({"p1": listing}), settings(target_file_max_bytes=100),
                                instant_time=PLAN_TIME)
    assert plan is not None
    assert [g.num_output_file_groups for g in plan.groups] == [3]
    exact = plan_clustering_from(inputs({"p1": listing}), settings(target_file_max_bytes=45),
                                 instant_time=PLAN_TIME)
    assert exact is not None and exact.groups[0].num_output_file_groups == 5


def test_plan_skips_files_at_or_above_the_small_file_limit():
    listing = (base("A", t(1), 99), base("B", t(2), 100), base("C", t(3), 500), base("D", t(4), 10))
    assert file_ids(plan_clustering_from(inputs({"p1": listing}), settings(), instant_time=PLAN_TIME)) == [
        ["A", "D"]]


def test_plan_uses_only_the_latest_committed_slice_of_each_group():
    listing = (base("A", t(1), 10), base("A", t(3), 20), base("B", t(2), 30),
               base("C", "20240101000000500", 5))  # C: a file of a write that never completed
    pending = commits("20240101000000500", done=False)
    plan = plan_clustering_from(inputs({"p1": listing}, pending), settings(), instant_time=PLAN_TIME)
    assert plan is not None
    (group,) = plan.groups
    assert [(s.file_id, s.base_file_path) for s in group.slices] == [
        ("B", f"{ROOT}/p1/{listing[2].name}"), ("A", f"{ROOT}/p1/{listing[1].name}")]


def test_plan_skips_replaced_and_busy_file_groups():
    listing = tuple(base(fid, t(i), 10) for i, fid in enumerate("ABCD", start=1))
    plan = plan_of({"p1": listing}, replaced=frozenset({("p1", "A")}),
                   busy=frozenset({("p1", "B"), ("p2", "C")}))
    assert file_ids(plan) == [["C", "D"]]  # busy is per partition: (p2, C) does not exclude p1's C


def test_plan_lone_last_slice_needs_single_group_clustering_or_sort_columns():
    listing = (base("A", t(1), 60), base("B", t(2), 50))  # two groups of one slice each at 100 bytes max
    grouped = settings(max_bytes_per_group=100, single_group=False)
    # The first group is closed by the size limit and kept; the lone last one is dropped ...
    assert file_ids(plan_clustering_from(inputs({"p1": listing}), grouped, instant_time=PLAN_TIME)) == [["A"]]
    # ... unless single-group clustering is on (Hudi's default) or the plan sorts.
    assert file_ids(plan_clustering_from(inputs({"p1": listing}), settings(max_bytes_per_group=100),
                                         instant_time=PLAN_TIME)) == [["A"], ["B"]]
    sorted_ = settings(max_bytes_per_group=100, single_group=False, sort_columns=("c",))
    assert file_ids(plan_of({"p1": listing}, sorted_)) == [["A"], ["B"]]
    single = (base("A", t(1), 60),)
    assert plan_of({"p1": single}, settings(single_group=False)) is None


def test_plan_groups_never_span_partitions_and_stop_at_max_num_groups():
    partitions = {p: tuple(base(f"{p}-{i}", t(i), 10, p) for i in range(1, 4)) for p in ("p1", "p2", "p3")}
    plan = plan_clustering_from(inputs(partitions), settings(), instant_time=PLAN_TIME)
    assert plan is not None
    assert [g.partition_path for g in plan.groups] == ["p1", "p2", "p3"]
    assert all({s.partition_path for s in g.slices} == {g.partition_path} for g in plan.groups)
    capped = plan_clustering_from(inputs(partitions), settings(max_num_groups=2), instant_time=PLAN_TIME)
    assert capped is not None and [g.partition_path for g in capped.groups] == ["p1", "p2"]
    one_partition = plan_of(partitions, settings(max_num_groups=2, max_bytes_per_group=10))
    assert file_ids(one_partition) == [["p1-1"], ["p1-2"]]


def test_plan_nothing_small_returns_none():
    assert plan_of({"p1": (base("A", t(1), 1000),)}) is None
    assert plan_clustering_from(inputs({}), settings(), instant_time=PLAN_TIME) is None


def test_plan_mor_slices_carry_their_logs_and_log_only_slices_count_as_full_size():
    listing = (base("A", t(1), 30), log("A", t(1), 1, size=7), log("A", t(1), 2, size=8),
               log("B", t(2)))  # B: a log-only file group, sized as hoodie.parquet.max.file.size (120)
    plan = plan_clustering_from(inputs({"p1": listing}, commits(t(1), t(2), action=Action.DELTA_COMMIT)),
                                settings(max_bytes_per_group=1000), instant_time=PLAN_TIME)
    assert plan is not None
    (group,) = plan.groups
    assert [s.file_id for s in group.slices] == ["B", "A"]
    b, a = group.slices
    assert b.base_file_path is None and b.log_file_paths == (f"{ROOT}/p1/{listing[3].name}",)
    assert a.log_file_paths == (f"{ROOT}/p1/{listing[1].name}", f"{ROOT}/p1/{listing[2].name}")
    assert group.num_output_file_groups == 2  # ceil((120 + 30) / 100)
    assert group.metrics == {"TOTAL_IO_READ_MB": 0.0, "TOTAL_IO_WRITE_MB": 0.0, "TOTAL_IO_MB": 0.0,
                             "TOTAL_LOG_FILES_SIZE": 25.0, "TOTAL_LOG_FILES": 3.0}


def test_group_metrics_follow_file_slice_metric_utils():
    listing = (base("A", t(1), 3 * MB), base("B", t(2), 2 * MB), log("B", t(2), size=MB))
    plan = plan_of({"p1": listing}, settings(small_file_limit=10 * MB, max_bytes_per_group=10 * MB,
                                             target_file_max_bytes=MB))
    assert plan is not None
    assert plan.groups[0].metrics == {"TOTAL_IO_READ_MB": 6.0, "TOTAL_IO_WRITE_MB": 5.0, "TOTAL_IO_MB": 11.0,
                                      "TOTAL_LOG_FILES_SIZE": float(MB), "TOTAL_LOG_FILES": 1.0}


# -- the plan as Avro ------------------------------------------------------------------------------


def test_plan_round_trips_through_requested_replace_metadata():
    listing = (base("A", t(1), 30), log("A", t(1)), base("B", t(2), 20))
    plan = plan_of({"p1": listing}, settings(sort_columns=("c1", "c2")))
    assert plan is not None
    record = plan.to_avro()
    assert record["operationType"] == "CLUSTER"
    assert record["clusteringPlan"]["strategy"] == {
        "strategyClassName":
            "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy",
        "strategyParams": {"hoodie.clustering.plan.strategy.sort.columns": "c1,c2"}, "version": 1}
    slice_a = record["clusteringPlan"]["inputGroups"][0]["slices"][0]
    assert slice_a == {"dataFilePath": f"file://{ROOT}/p1/{listing[0].name}",
                       "deltaFilePaths": [f"file://{ROOT}/p1/{listing[1].name}"], "fileId": "A",
                       "partitionPath": "p1", "bootstrapFilePath": "", "version": 1}
    data = serialize(AvroMetadataKind.REQUESTED_REPLACE_METADATA, record)
    stored = deserialize(data, AvroMetadataKind.REQUESTED_REPLACE_METADATA)
    back = ClusteringPlan.from_avro(PLAN_TIME, stored, ROOT)
    assert back == plan
    assert back.sort_columns == ("c1", "c2")
    assert back.replaced_file_ids() == {"p1": ("A", "B")}
    # Only file names count: the same plan read under another base path points into that table.
    moved = ClusteringPlan.from_avro(PLAN_TIME, stored, "/elsewhere")
    assert moved.groups[0].slices[0] == ClusteringSlice("p1", "A", f"/elsewhere/p1/{listing[0].name}",
                                                        (f"/elsewhere/p1/{listing[1].name}",))


def test_plan_from_java_style_record_with_scheme_paths_and_empty_data_file():
    record = {"operationType": "CLUSTER", "extraMetadata": {}, "version": 1, "clusteringPlan": {
        "inputGroups": [{"slices": [
            {"dataFilePath": "file:/old/base/2024/f1_1-2-3_20240101000000001.parquet", "deltaFilePaths": [],
             "fileId": "f1", "partitionPath": "2024", "bootstrapFilePath": "", "version": 1},
            {"dataFilePath": "", "deltaFilePaths": ["file:/old/base/2024/.f2_20240101000000002.log.1_0-1-1"],
             "fileId": "f2", "partitionPath": "2024", "bootstrapFilePath": "", "version": 1}],
            "metrics": {}, "numOutputFileGroups": 2, "extraMetadata": None, "version": 1}],
        "strategy": {"strategyClassName": SORT_AND_SIZE_STRATEGY, "strategyParams": {}, "version": 1},
        "extraMetadata": {}, "version": 1, "preserveHoodieMetadata": None}}
    plan = ClusteringPlan.from_avro(PLAN_TIME, record, "/tbl")
    assert plan.groups[0].slices == (
        ClusteringSlice("2024", "f1", "/tbl/2024/f1_1-2-3_20240101000000001.parquet"),
        ClusteringSlice("2024", "f2", None, ("/tbl/2024/.f2_20240101000000002.log.1_0-1-1",)))
    assert plan.groups[0].num_output_file_groups == 2
    assert plan.sort_columns == () and plan.preserve_hoodie_metadata


# -- settings and errors ---------------------------------------------------------------------------


def test_settings_defaults_are_hudis():
    s = ClusteringConfig.of(HudiConfigs())
    assert (s.small_file_limit, s.target_file_max_bytes, s.max_bytes_per_group, s.max_num_groups) == (
        300 * MB, 1024 * MB, 2048 * MB, 30)
    assert s.single_group and s.sort_columns == () and s.parquet_max_file_size == 120 * MB


def test_settings_read_every_clustering_key():
    # layered: not every key is in the registry yet, and settings must read them all the same
    configs = HudiConfigs.layered({
        "hoodie.clustering.plan.strategy.small.file.limit": "5",
        "hoodie.clustering.plan.strategy.target.file.max.bytes": "6",
        "hoodie.clustering.plan.strategy.max.bytes.per.group": "7",
        "hoodie.clustering.plan.strategy.max.num.groups": "8",
        "hoodie.clustering.plan.strategy.single.group.clustering.enabled": "false",
        "hoodie.clustering.plan.strategy.sort.columns": "a, b",
        "hoodie.parquet.max.file.size": "9",
    })
    assert ClusteringConfig.of(configs) == ClusteringConfig(
        small_file_limit=5, target_file_max_bytes=6, max_bytes_per_group=7, max_num_groups=8, single_group=False,
        sort_columns=("a", "b"), parquet_max_file_size=9)


def test_settings_bad_values_are_config_errors():
    with pytest.raises(HudiConfigError, match="max.bytes.per.group' is 0"):
        ClusteringConfig.of(HudiConfigs.layered({PREFIX + "max.bytes.per.group": "0"})).for_planning()
    with pytest.raises(HudiConfigError, match="max.num.groups' has a value that does not parse"):
        ClusteringConfig.of(HudiConfigs.layered({PREFIX + "max.num.groups": "x"}))
    with pytest.raises(HudiConfigError, match="target.file.max.bytes' is -1"):
        ClusteringConfig.of(HudiConfigs.of({PREFIX + "target.file.max.bytes": "-1"})).for_planning()
    with pytest.raises(UnsupportedFeatureError, match="SparkRecentDays"):
        ClusteringConfig.of(HudiConfigs.layered({
            "hoodie.clustering.plan.strategy.class":
                "org.apache.hudi.client.clustering.plan.strategy.SparkRecentDaysClusteringPlanStrategy"})).for_planning()
    with pytest.raises(UnsupportedFeatureError, match="SparkConsistentBucket"):
        strategy = "org.apache.hudi.client.clustering.run.strategy." \
            "SparkConsistentBucketClusteringExecutionStrategy"
        ClusteringConfig.of(
            HudiConfigs.layered({"hoodie.clustering.execution.strategy.class": strategy})).for_planning()
    with pytest.raises(HudiConfigError, match="Did you mean 'hoodie.clustering.plan.strategy.sort.columns'"):
        HudiConfigs.of({PREFIX + "sort.colums": "a"})


def test_update_conflict_error_names_group_partition_instant_and_the_way_out():
    error = ClusteringUpdateConflictError({("2024/01", "fid-2"): t(5), ("2024/01", "fid-1"): t(4)})
    text = str(error)
    assert "file group fid-1 in partition '2024/01'" in text and f"pending clustering {t(4)}" in text
    assert "(1 more file group too)" in text and "nothing was written" in text
    assert "Help:" in text and "SparkAllowUpdateStrategy" in text
    assert list(error.file_groups) == [("2024/01", "fid-1"), ("2024/01", "fid-2")]
    unpartitioned = str(ClusteringUpdateConflictError({("", "f"): t(1)}))
    assert "file group f in the table" in unpartitioned
