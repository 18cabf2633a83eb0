"""Clustering a Copy-On-Write table of many small files, checked with both readers and file by file."""

from __future__ import annotations

import importlib
import inspect
import itertools
import json
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from table_helpers import rows_of, rust_table

import hudi_sql
from hudi_sql.commit.rollback import rollback_instant
from hudi_sql.config import HudiConfigs
from hudi_sql.config.resolve import Resolved
from hudi_sql.config.scoped import ClusteringConfig
from hudi_sql.errors import CommitConflictError, HudiConfigError
from hudi_sql.model.avro_metadata import AvroMetadataKind, deserialize
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.services.clustering import cluster, maybe_cluster, plan_clustering
from hudi_sql.services.pending_clustering import (
    ALLOW_UPDATE_STRATEGY,
    ClusteringUpdateConflictError,
    check_updates_against_pending_clustering,
    pending_clustering_file_groups,
    pending_clustering_instants,
)
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

OPTIONS = {
    "hoodie.table.name": "clustered",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.parquet.small.file.limit": "0",  # every insert makes new file groups: many small files
    "hoodie.index.bloom.num_entries": "200",  # small footers, so file sizes follow the data
}
SCHEMA = "id int, p string, ts int, col1 int, col2 string, v string"
DATA = ["id", "p", "ts", "col1", "col2", "v"]
COMMITS = 5
SORT = "col1,col2"
SMALL_ROW_GROUPS = {"hoodie.parquet.block.size": "1024"}  # several row groups per clustered file


def batch(commit: int, rng: random.Random) -> list[tuple[Any, ...]]:
    rows = []
    for i in range(40):
        key = commit * 100 + i
        col2 = None if rng.random() < 0.1 else f"s{rng.randrange(50):02d}"
        rows.append((key, "a" if i % 2 else "b", commit, rng.randrange(12), col2, f"v{commit}-{i}"))
    return rows


def write(spark: Any, path: str, rows: list[tuple[Any, ...]], **extra: str) -> str:
    result = hudi_sql.write(spark.createDataFrame(rows, SCHEMA), path, {**OPTIONS, **extra})
    assert result.instant_time is not None
    return result.instant_time


def our_rows(spark: Any, path: str, **options: str) -> list[dict]:
    return rows_of(hudi_sql.read(spark, path, options).toArrow(), [*META_KEEP, *DATA])


META_KEEP = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path"]


def rust_rows(path: str, **options: str) -> list[dict]:
    return rows_of(rust_table(path, **options), [*META_KEEP, *DATA])


def latest_base_files(path: str) -> dict[str, list[str]]:
    view = FileSystemView(TableMetaClient.load(path))
    out: dict[str, list[str]] = {}
    for file_slice in view.latest_file_slices():
        assert file_slice.base_file is not None
        out.setdefault(file_slice.partition_path, []).append(file_slice.base_file.path)
    return {p: sorted(files) for p, files in out.items()}


@dataclass(frozen=True)
class SmallFiles:
    path: str
    commits: tuple[str, ...]
    rows: list[dict]  # snapshot, meta columns except the file name included


@pytest.fixture(scope="module")
def base_table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SmallFiles:
    path = str(tmp_path_factory.mktemp("clustering") / "base")
    rng = random.Random(7)
    commits = [write(spark, path, batch(c, rng)) for c in range(1, COMMITS + 1)]
    # An update: one file group gets a second slice (only the latest slice is clustered).
    commits.append(write(spark, path, [(101, "a", 99, 5, "upd", "updated")]))
    return SmallFiles(path, tuple(commits), our_rows(spark, path))


@pytest.fixture()
def table(base_table: SmallFiles, tmp_path: Path) -> Iterator[SmallFiles]:
    copy = str(tmp_path / "table")
    shutil.copytree(base_table.path, copy)
    yield SmallFiles(copy, base_table.commits, base_table.rows)


def target_for_two_files(path: str) -> int:
    """A target size that makes the smaller partition's files two output file groups."""
    files = latest_base_files(path)
    sizes = {p: sum(Path(f).stat().st_size for f in names) for p, names in files.items()}
    return min(sizes.values()) // 2 + 1


# -- the plan on disk ---------------------------------------------------------------------------------


def test_schedule_writes_requested_replace_metadata_with_the_plan(spark: Any, table: SmallFiles):
    before = latest_base_files(table.path)
    options = {"hoodie.clustering.plan.strategy.target.file.max.bytes": str(target_for_two_files(table.path))}
    instant = cluster(spark, table.path, options, execute=False, order=SORT)
    assert instant is not None
    record = deserialize(Path(table.path, ".hoodie", f"{instant}.replacecommit.requested").read_bytes(),
                         AvroMetadataKind.REQUESTED_REPLACE_METADATA)
    assert record["operationType"] == "CLUSTER"
    plan = record["clusteringPlan"]
    assert plan["strategy"]["strategyClassName"] == \
        "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
    assert plan["strategy"]["strategyParams"] == {"hoodie.clustering.plan.strategy.sort.columns": SORT}
    assert plan["preserveHoodieMetadata"] is True
    planned = {(s["partitionPath"], s["dataFilePath"].removeprefix("file://")) for g in plan["inputGroups"]
               for s in g["slices"]}
    assert planned == {(p, f) for p, files in before.items() for f in files}
    assert all(s["deltaFilePaths"] == [] and s["fileId"] for g in plan["inputGroups"] for s in g["slices"])
    assert min(g["numOutputFileGroups"] for g in plan["inputGroups"]) == 2
    # Scheduled only: nothing inflight, readers unchanged, the groups are pending clustering.
    assert not Path(table.path, ".hoodie", f"{instant}.replacecommit.inflight").exists()
    meta = TableMetaClient.load(table.path)
    assert [i.instant_time for i in pending_clustering_instants(meta)] == [instant]
    assert set(pending_clustering_file_groups(meta)) == {
        (p, BaseFileName.parse(Path(f).name).file_id) for p, files in before.items() for f in files}
    assert our_rows(spark, table.path) == table.rows


# -- execution ---------------------------------------------------------------------------------------


def test_cluster_rewrites_small_files_sorted_and_keeps_the_snapshot(spark: Any, table: SmallFiles):
    before = latest_base_files(table.path)
    assert all(len(files) == COMMITS for files in before.values())
    options = {"hoodie.clustering.plan.strategy.target.file.max.bytes": str(target_for_two_files(table.path)),
               "hoodie.clustering.plan.strategy.max.num.groups": "10", **SMALL_ROW_GROUPS}
    meta = TableMetaClient.load(table.path)
    dry_run = plan_clustering(meta, Resolved.of(options).clustering, instant_time="29990101000000000")
    assert dry_run is not None
    expected_files = {}
    for group in dry_run.groups:
        expected_files[group.partition_path] = expected_files.get(group.partition_path, 0) + \
            group.num_output_file_groups

    instant = cluster(spark, table.path, options, order=SORT)
    assert instant is not None

    # Timeline: requested (Avro plan), inflight (JSON workload), completed replacecommit.
    hoodie = Path(table.path, ".hoodie")
    inflight = CommitMetadata.from_bytes(Path(hoodie, f"{instant}.replacecommit.inflight").read_bytes())
    assert inflight.operation_type == "CLUSTER"
    completed = CommitMetadata.from_bytes(Path(hoodie, f"{instant}.replacecommit").read_bytes())
    assert completed.operation_type == "CLUSTER"
    assert completed.replaced_file_ids() == {(p, BaseFileName.parse(Path(f).name).file_id)
                                             for p, files in before.items() for f in files}
    assert not Path(hoodie, ".temp", instant).exists()

    after = latest_base_files(table.path)
    assert {p: len(files) for p, files in after.items()} == expected_files
    assert all(len(after[p]) < len(before[p]) for p in before)
    written = {(s.partition_path, s.path) for s in completed.write_stats()}
    assert written == {(p, str(Path(f).relative_to(table.path))) for p, files in after.items() for f in files}
    new_names = {Path(f).name for files in after.values() for f in files}
    assert all(BaseFileName.parse(name).instant_time == instant for name in new_names)
    assert all(s.prev_commit == "null" and s.num_inserts == s.num_writes > 0 for s in completed.write_stats())

    # Same rows, same meta values (commit time, sequence number, key, partition) in both readers.
    assert our_rows(spark, table.path) == table.rows
    assert rust_rows(table.path) == table.rows
    snapshot = hudi_sql.read(spark, table.path).select("_hoodie_file_name").collect()
    assert {r["_hoodie_file_name"] for r in snapshot} == new_names

    for files in after.values():
        assert_sorted_by_col1_col2(files)


def sort_key(row: dict) -> tuple:
    # Spark's ascending sort puts nulls first.
    return tuple((value is not None, value) for value in (row["col1"], row["col2"]))


def assert_sorted_by_col1_col2(files: list[str]) -> None:
    ranges = []
    for path in files:
        parquet = pq.ParquetFile(path)
        assert parquet.metadata.num_row_groups > 1, "the test wants several row groups per file"
        index = parquet.schema_arrow.get_field_index("col1")
        bounds = []
        for rg in range(parquet.metadata.num_row_groups):
            stats = parquet.metadata.row_group(rg).column(index).statistics
            assert stats is not None and stats.has_min_max
            bounds.append((stats.min, stats.max))
        # Row groups follow each other in col1 order: each starts at or after the previous one's end.
        assert all(lo <= hi for lo, hi in bounds)
        assert all(prev[1] <= cur[0] for prev, cur in itertools.pairwise(bounds)), bounds
        rows = parquet.read(columns=["col1", "col2"]).to_pylist()
        keys = [sort_key(r) for r in rows]
        assert keys == sorted(keys)
        ranges.append((keys[0], keys[-1]))
    # The files of a partition hold consecutive ranges of the sort order.
    ranges.sort()
    assert all(prev[1] <= cur[0] for prev, cur in itertools.pairwise(ranges)), ranges


def test_time_travel_before_the_clustering_reads_the_old_files(spark: Any, table: SmallFiles):
    before = latest_base_files(table.path)
    instant = cluster(spark, table.path, {}, order=SORT)
    assert instant is not None
    last_commit = table.commits[-1]
    old_names = {Path(f).name for files in before.values() for f in files}
    travelled = hudi_sql.read(spark, table.path, {"as.of.instant": last_commit}).toArrow()
    assert rows_of(travelled, [*META_KEEP, *DATA]) == table.rows
    assert set(travelled.column("_hoodie_file_name").to_pylist()) == old_names
    assert rust_rows(table.path, as_of=last_commit) == table.rows
    # And now: one file per partition (the default target is 1 GB).
    assert {p: len(f) for p, f in latest_base_files(table.path).items()} == {"a": 1, "b": 1}


def test_incremental_query_across_the_clustering_keeps_commit_times(spark: Any, table: SmallFiles):
    cluster(spark, table.path, {}, order=SORT)
    begin = table.commits[2]
    incremental = hudi_sql.read(spark, table.path, {"hoodie.datasource.query.type": "incremental",
                                                    "hoodie.datasource.read.begin.instanttime": begin})
    got = rows_of(incremental.toArrow(), [*META_KEEP, *DATA])
    assert got == [r for r in table.rows if r["_hoodie_commit_time"] > begin]


def test_clustering_twice_with_nothing_new_plans_only_the_small_results(spark: Any, table: SmallFiles):
    first = cluster(spark, table.path, {}, order=SORT)
    # Results above the small-file limit are not clustered again.
    limit = {"hoodie.clustering.plan.strategy.small.file.limit": "1"}
    assert cluster(spark, table.path, limit, order=SORT) is None
    assert first is not None
    assert our_rows(spark, table.path) == table.rows


# -- writers and pending clustering -------------------------------------------------------------------


def group_of_key(spark: Any, path: str, key: int) -> tuple[str, str]:
    row = hudi_sql.read(spark, path).where(f"id = {key}") \
        .select("_hoodie_partition_path", "_hoodie_file_name").collect()[0]
    return row[0], BaseFileName.parse(row[1]).file_id


def test_update_of_a_group_under_pending_clustering_is_rejected(spark: Any, table: SmallFiles):
    instant = cluster(spark, table.path, {}, execute=False, order=SORT)
    assert instant is not None
    meta = TableMetaClient.load(table.path)
    touched = group_of_key(spark, table.path, 101)
    with pytest.raises(ClusteringUpdateConflictError) as error:
        check_updates_against_pending_clustering(meta, ClusteringConfig(), {touched, ("a", "not-a-group")})
    message = str(error.value)
    assert touched[1] in message and instant in message and "partition 'a'" in message
    assert "SparkAllowUpdateStrategy" in message  # the help line names the way out
    assert error.value.file_groups == {touched: instant}
    # Groups not under clustering, and the allow strategy, pass.
    check_updates_against_pending_clustering(meta, ClusteringConfig(), {("a", "not-a-group")})
    check_updates_against_pending_clustering(
        meta, Resolved.of({"hoodie.clustering.updates.strategy": ALLOW_UPDATE_STRATEGY}).clustering, {touched})
    with pytest.raises(HudiConfigError, match="SparkRejectUpdateStrategy"):
        typo = Resolved.of({"hoodie.clustering.updates.strategy": "SparkRejectUpdateStrateg"}).clustering
        check_updates_against_pending_clustering(meta, typo, {touched})


def _write_path_checks_pending_clustering() -> bool:
    """Whether the lead wired the check into the write path (and rollback spares scheduled clusterings)."""
    rollback = importlib.import_module("hudi_sql.commit.rollback")
    client = importlib.import_module("hudi_sql.engine.write_client")  # hudi_sql.write is also a function
    return ("check_updates_against_pending_clustering" in inspect.getsource(client)
            and "clustering" in inspect.getsource(rollback.rollback_failed_writes))


@pytest.mark.skipif(not _write_path_checks_pending_clustering(),
                    reason="the write path does not call check_updates_against_pending_clustering yet")
def test_upsert_into_a_group_under_pending_clustering_fails_and_writes_nothing(spark: Any, table: SmallFiles):
    instant = cluster(spark, table.path, {}, execute=False, order=SORT)
    timeline = sorted(p.name for p in Path(table.path, ".hoodie").iterdir() if p.is_file())
    with pytest.raises(ClusteringUpdateConflictError, match=f"pending clustering {instant}"):
        write(spark, table.path, [(101, "a", 100, 1, "x", "rejected")])
    assert sorted(p.name for p in Path(table.path, ".hoodie").iterdir() if p.is_file()) == timeline
    # Inserts still go through (to new file groups), and the clustering then completes.
    write(spark, table.path, [(9001, "a", 1, 1, "new", "inserted")])
    assert cluster(spark, table.path, {}, schedule=False) == instant
    assert len(our_rows(spark, table.path)) == len(table.rows) + 1


def test_allowed_update_makes_the_pending_clustering_roll_back(spark: Any, table: SmallFiles,
                                                               monkeypatch: pytest.MonkeyPatch):
    client = importlib.import_module("hudi_sql.engine.write_client")  # hudi_sql.write is also a function

    def rollback_failed_writes_but_clustering(meta: TableMetaClient, options: Resolved) -> list:
        """What the write path must do: leave scheduled clusterings alone (Java's getInstantsToRollback)."""
        meta.reload_timeline()
        keep = {i.instant_time for i in pending_clustering_instants(meta)}
        return [rollback_instant(meta, i, options) for i in meta.timeline.pending_writes()
                if i.instant_time not in keep]

    monkeypatch.setattr(client, "rollback_failed_writes", rollback_failed_writes_but_clustering)
    allow = {"hoodie.clustering.updates.strategy": ALLOW_UPDATE_STRATEGY}
    instant = cluster(spark, table.path, allow, execute=False, order=SORT)
    assert instant is not None
    write(spark, table.path, [(101, "a", 100, 1, "x", "allowed")], **allow)
    with pytest.raises(CommitConflictError, match="rolled back"):
        cluster(spark, table.path, allow, schedule=False)
    meta = TableMetaClient.load(table.path)
    assert not pending_clustering_instants(meta)
    assert meta.timeline.find(instant, Action.REPLACE_COMMIT) is None
    assert not list(Path(table.path).glob(f"*/*_{instant}.parquet"))
    rows = {r["id"]: r["v"] for r in our_rows(spark, table.path)}
    assert rows[101] == "allowed" and len(rows) == len(table.rows)


def test_inline_clustering_runs_after_max_commits(spark: Any, table: SmallFiles):
    meta = TableMetaClient.load(table.path)
    configs = HudiConfigs.of({"hoodie.clustering.inline": "true", "hoodie.clustering.inline.max.commits": "7",
                              "hoodie.clustering.plan.strategy.sort.columns": SORT})
    assert maybe_cluster(spark, meta, configs) is None  # 6 commits so far
    off = HudiConfigs.of({"hoodie.clustering.inline.max.commits": "1"})
    assert maybe_cluster(spark, meta, off) is None  # hoodie.clustering.inline is false
    write(spark, table.path, [(9001, "b", 1, 3, "new", "seventh")])
    instant = maybe_cluster(spark, meta, configs)
    assert instant is not None
    assert Path(table.path, ".hoodie", f"{instant}.replacecommit").exists()
    assert maybe_cluster(spark, meta, configs) is None  # 0 commits since
    assert {p: len(f) for p, f in latest_base_files(table.path).items()} == {"a": 1, "b": 1}
    assert len(our_rows(spark, table.path)) == len(table.rows) + 1


def test_failed_clustering_attempt_is_redone_from_its_plan(spark: Any, table: SmallFiles):
    instant = cluster(spark, table.path, {}, execute=False, order=SORT)
    assert instant is not None
    # An attempt that died after writing a file: inflight exists, a marker names the leftover.
    hoodie = Path(table.path, ".hoodie")
    Path(hoodie, f"{instant}.replacecommit.inflight").write_bytes(b"{}")
    leftover = Path(table.path, "a", f"00000000-0000-0000-0000-000000000000-0_0-1-1_{instant}.parquet")
    leftover.write_bytes(b"garbage")
    marker_dir = Path(hoodie, ".temp", instant, "a")
    marker_dir.mkdir(parents=True)
    Path(marker_dir, f"{leftover.name}.marker.CREATE").touch()
    assert cluster(spark, table.path, {}, schedule=False) == instant
    assert not leftover.exists()
    assert our_rows(spark, table.path) == table.rows
    meta = TableMetaClient.load(table.path)
    assert meta.timeline.find(instant, Action.REPLACE_COMMIT, State.COMPLETED) == Instant(
        instant, Action.REPLACE_COMMIT, State.COMPLETED)
    assert json.loads(Path(hoodie, f"{instant}.replacecommit").read_bytes())["operationType"] == "CLUSTER"


def test_mor_slices_with_logs_are_merged_into_the_new_files(spark: Any, tmp_path: Path):
    path = str(tmp_path / "mor")
    mor = {"hoodie.datasource.write.table.type": "MERGE_ON_READ"}
    rng = random.Random(3)
    for c in range(1, 4):
        write(spark, path, batch(c, rng), **mor)
    write(spark, path, [(101, "a", 99, 0, "upd", "from-log")], **mor)
    hudi_sql.write(spark.createDataFrame([(102, "b", 99, 0, "x", "x")], SCHEMA), path,
                   {**OPTIONS, **mor, "hoodie.datasource.write.operation": "delete"})
    meta = TableMetaClient.load(path)
    assert any(s.has_logs for s in FileSystemView(meta).latest_file_slices())
    expected = rows_of(hudi_sql.read(spark, path).toArrow(), DATA, key="id")
    instant = cluster(spark, path, {}, order=SORT)
    assert instant is not None
    assert all(not s.has_logs for s in FileSystemView(TableMetaClient.load(path)).latest_file_slices())
    assert rows_of(hudi_sql.read(spark, path).toArrow(), DATA, key="id") == expected
    assert rows_of(rust_table(path), DATA, key="id") == expected
    assert {r["id"]: r["v"] for r in expected}[101] == "from-log" and 102 not in {r["id"] for r in expected}


def test_non_partitioned_table(spark: Any, tmp_path: Path):
    path = str(tmp_path / "flat")
    flat = {**OPTIONS, "hoodie.datasource.write.partitionpath.field": "",
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator"}
    rng = random.Random(5)
    for c in (1, 2, 3):
        hudi_sql.write(spark.createDataFrame(batch(c, rng), SCHEMA), path, flat)
    expected = our_rows(spark, path)
    assert {p: len(f) for p, f in latest_base_files(path).items()} == {"": 3}
    assert cluster(spark, path, {}, order="col2") is not None
    assert {p: len(f) for p, f in latest_base_files(path).items()} == {"": 1}
    assert our_rows(spark, path) == expected
    assert rust_rows(path) == expected
    (new_file,) = latest_base_files(path)[""]
    col2 = pq.read_table(new_file, columns=["col2"]).column("col2").to_pylist()
    assert col2 == sorted(col2, key=lambda v: (v is not None, v))


def test_without_preserved_metadata_rows_take_the_clustering_instant(spark: Any, table: SmallFiles):
    instant = cluster(spark, table.path, {"hoodie.clustering.preserve.commit.metadata": "false"}, order=SORT)
    assert instant is not None
    got = hudi_sql.read(spark, table.path).toArrow()
    assert set(got.column("_hoodie_commit_time").to_pylist()) == {instant}
    assert all(s.startswith(f"{instant}_") for s in got.column("_hoodie_commit_seqno").to_pylist())
    assert rows_of(got, DATA, key="id") == rows_of(pa_rows(table.rows), DATA, key="id")


def pa_rows(rows: list[dict]) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist(rows)
