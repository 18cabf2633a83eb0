"""Clean, archive, savepoint and restore on real Copy-On-Write tables, checked file by file and with both readers."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import hudi_sql
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiError
from hudi_sql.metadata.maintenance.sync import storage_listing
from hudi_sql.metadata.reader import MetadataTableReader
from hudi_sql.model.avro_metadata import AvroMetadataKind, deserialize
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.model.instant import Action, parse_instant_time
from hudi_sql.services.archive import archive, plan_archive, read_archived_entries, read_archived_instants
from hudi_sql.services.clean import clean, execute_clean, plan_clean
from hudi_sql.services.clean_history import active_cleans, clean_metadata
from hudi_sql.services.savepoint import (
    create_savepoint,
    delete_savepoint,
    restore_to_savepoint,
    show_savepoints,
)
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

OPTIONS = {
    "hoodie.table.name": "services",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
    # The metadata table compacted at every write: archival never passes its latest compaction.
    "hoodie.metadata.compact.max.delta.commits": "1",
}
SCHEMA = "id int, p string, ts int, v string"


def write(spark: Any, path: str, rows: list[tuple[int, str, int, str]], **extra: str) -> str:
    result = hudi_sql.write(spark.createDataFrame(rows, SCHEMA), path, {**OPTIONS, **extra})
    assert result.instant_time is not None
    return result.instant_time


def our_rows(spark: Any, path: str, **options: str) -> list[tuple[int, str, str]]:
    return sorted((r.id, r.p, r.v) for r in hudi_sql.read(spark, path, options).select("id", "p", "v").collect())


def rust_rows(path: str) -> list[tuple[int, str, str]]:
    from hudi import HudiTableBuilder

    table = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return sorted((r["id"], r["p"], r["v"]) for r in table.select(["id", "p", "v"]).to_pylist())


def data_files(path: str) -> dict[str, list[str]]:
    """Partition -> base and log file names (what the cleaner may touch)."""
    out: dict[str, list[str]] = {}
    for entry in sorted(Path(path).iterdir()):
        if entry.is_dir() and not entry.name.startswith("."):
            out[entry.name] = sorted(f.name for f in entry.iterdir() if not f.name.startswith(".hoodie_partition"))
    return out


def timeline_files(path: str) -> list[str]:
    return sorted(f.name for f in Path(path, ".hoodie").iterdir() if f.is_file() and f.name != "hoodie.properties")


@dataclass(frozen=True)
class BaseTable:
    """Five commits: c1 inserts id 1 (p=a, file group A) and id 2 (p=b, group B); c2, c3 and c5
    update id 1; c4 updates ids 1 and 2. So A has slices c1..c5 and B has c1 and c4."""

    path: str
    commits: tuple[str, ...]
    rows_as_of: dict[str, list[tuple[int, str, str]]]
    group_a: str
    group_b: str
    names: dict[tuple[str, str], str]  # (file id, commit) -> base file name, as first written

    def name(self, group: str, commit: str) -> str:
        """The base file name of a slice (write tokens differ per commit; looked up, also for later commits)."""
        if (group, commit) in self.names:
            return self.names[(group, commit)]
        part = "a" if group == self.group_a else "b"
        matches = [n for n in os.listdir(Path(self.path, part)) if n.startswith(group) and n.endswith(f"_{commit}.parquet")]
        assert len(matches) == 1, matches
        return matches[0]


@pytest.fixture(scope="module")
def base_table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> BaseTable:
    path = str(tmp_path_factory.mktemp("services") / "base")
    commits = [write(spark, path, [(1, "a", 1, "v1"), (2, "b", 1, "v1")])]
    commits.append(write(spark, path, [(1, "a", 2, "v2")]))
    commits.append(write(spark, path, [(1, "a", 3, "v3")]))
    commits.append(write(spark, path, [(1, "a", 4, "v4"), (2, "b", 4, "v4")]))
    commits.append(write(spark, path, [(1, "a", 5, "v5")]))
    rows = {c: our_rows(spark, path, **{"as.of.instant": c}) for c in commits}
    files = data_files(path)
    group_a = BaseFileName.parse(files["a"][0]).file_id
    group_b = BaseFileName.parse(files["b"][0]).file_id
    names = {(BaseFileName.parse(n).file_id, BaseFileName.parse(n).instant_time): n
             for part in files.values() for n in part}
    return BaseTable(path, tuple(commits), rows, group_a, group_b, names)


@pytest.fixture()
def table(base_table: BaseTable, tmp_path: Path) -> Iterator[BaseTable]:
    """A private copy of the base table (paths inside a table are relative, so a copy is a table)."""
    copy = str(tmp_path / "table")
    shutil.copytree(base_table.path, copy)
    yield BaseTable(copy, base_table.commits, base_table.rows_as_of, base_table.group_a, base_table.group_b,
                    base_table.names)


def expect_files(t: BaseTable, a: list[int], b: list[int]) -> dict[str, list[str]]:
    return {"a": sorted(t.name(t.group_a, t.commits[i - 1]) for i in a),
            "b": sorted(t.name(t.group_b, t.commits[i - 1]) for i in b)}


# -- clean --------------------------------------------------------------------------------------------


def test_base_table_has_every_slice(table: BaseTable):
    assert data_files(table.path) == expect_files(table, [1, 2, 3, 4, 5], [1, 4])


def test_clean_keep_latest_commits_deletes_exactly_the_slices_outside_the_window(spark: Any, table: BaseTable):
    c = table.commits
    options = {"hoodie.cleaner.policy": "KEEP_LATEST_COMMITS", "hoodie.cleaner.commits.retained": "2"}
    before, before_timeline = data_files(table.path), timeline_files(table.path)
    dry = clean(table.path, options, dry_run=True)
    assert dry.dry_run and dry.plan is not None and dry.instant_time is None
    assert data_files(table.path) == before  # a dry run deletes nothing
    assert timeline_files(table.path) == before_timeline  # and writes no instant
    result = clean(table.path, options)
    assert result.plan == dry.plan
    assert sorted(os.path.basename(p) for p in result.deleted_files) == sorted(
        [table.name(table.group_a, c[0]), table.name(table.group_a, c[1])])
    # ECTR = c4: A keeps c5, c4 and c3 (the slice a query as of c3 reads); B keeps c4 and c1.
    assert data_files(table.path) == expect_files(table, [3, 4, 5], [1, 4])
    for commit in c[3:]:
        assert our_rows(spark, table.path, **{"as.of.instant": commit}) == table.rows_as_of[commit]
    # Time travel stops at the earliest commit retained, as in Apache Hudi (c3's files are kept
    # for the slice as of c4, not for queries as of c3).
    with pytest.raises(HudiError, match=f"cleaner removed.*from {c[3]} on"):
        our_rows(spark, table.path, **{"as.of.instant": c[2]})
    assert our_rows(spark, table.path) == rust_rows(table.path) == table.rows_as_of[c[-1]]
    # The instant files: requested and inflight hold the plan, the completed file the metadata.
    t = result.instant_time
    hoodie = Path(table.path, ".hoodie")
    requested = (hoodie / f"{t}.clean.requested").read_bytes()
    assert (hoodie / f"{t}.clean.inflight").read_bytes() == requested
    plan = deserialize(requested, AvroMetadataKind.CLEANER_PLAN)
    assert plan["earliestInstantToRetain"]["timestamp"] == c[3]
    metadata = deserialize((hoodie / f"{t}.clean").read_bytes(), AvroMetadataKind.CLEAN_METADATA)
    assert metadata["totalFilesDeleted"] == 2 and metadata["earliestCommitToRetain"] == c[3]
    assert metadata["lastCompletedCommitTimestamp"] == c[4]
    assert sorted(metadata["partitionMetadata"]["a"]["successDeleteFiles"]) == sorted(
        [table.name(table.group_a, c[0]), table.name(table.group_a, c[1])])
    meta = TableMetaClient.load(table.path)
    cleans = active_cleans(meta, completed_only=True)
    assert [(c.instant.instant_time, clean_metadata(meta, c)["totalFilesDeleted"],
             clean_metadata(meta, c)["partitionMetadata"]["a"]["policy"]) for c in cleans] == [(t, 2, "KEEP_LATEST_COMMITS")]
    # Nothing new since: hoodie.clean.max.commits (1) is not reached, so no second clean.
    assert clean(table.path, options).plan is None


def test_clean_keep_latest_file_versions_in_spark_tasks(spark: Any, table: BaseTable):
    c = table.commits
    meta = TableMetaClient.load(table.path)
    plan = plan_clean(meta, {"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS",
                             "hoodie.cleaner.fileversions.retained": "1"})
    assert plan is not None and plan.earliest_instant_to_retain is None
    expected = expect_files(table, [5], [4])
    result = execute_clean(meta, plan, Resolved(), spark=spark, parallel_threshold=1)
    assert len(result.deleted_files) == 5 and not result.failed_files
    assert data_files(table.path) == expected
    assert our_rows(spark, table.path) == rust_rows(table.path) == table.rows_as_of[c[-1]]


def test_clean_keep_latest_by_hours(spark: Any, table: BaseTable):
    c = table.commits
    now = parse_instant_time(c[3]) + timedelta(hours=1)  # the window starts exactly at c4
    result = clean(table.path, {"hoodie.cleaner.policy": "KEEP_LATEST_BY_HOURS",
                                "hoodie.cleaner.hours.retained": "1"}, now=now)
    assert result.plan is not None and result.plan.earliest_instant_to_retain is not None
    assert result.plan.earliest_instant_to_retain.instant_time == c[3]
    assert data_files(table.path) == expect_files(table, [3, 4, 5], [1, 4])
    assert our_rows(spark, table.path, **{"as.of.instant": c[3]}) == table.rows_as_of[c[3]]


def test_clean_never_deletes_savepointed_files(spark: Any, table: BaseTable):
    c = table.commits
    meta = TableMetaClient.load(table.path)
    savepoint = create_savepoint(meta, c[1], user="tester", comments="before c3")
    assert savepoint.partition_files == {"a": (table.name(table.group_a, c[1]),),
                                         "b": (table.name(table.group_b, c[0]),)}
    assert [r["savepoint_time"] for r in show_savepoints(meta)] == [c[1]]
    options = {"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1"}
    clean(meta, options)
    assert data_files(table.path) == expect_files(table, [2, 5], [1, 4])
    assert our_rows(spark, table.path, **{"as.of.instant": c[1]}) == table.rows_as_of[c[1]]
    assert our_rows(spark, table.path) == rust_rows(table.path) == table.rows_as_of[c[-1]]
    # Once the savepoint is gone, the next clean (after a new commit) may take those files.
    delete_savepoint(meta, c[1])
    assert show_savepoints(meta) == []
    assert not Path(table.path, ".hoodie", f"{c[1]}.savepoint").exists()
    c6 = write(spark, table.path, [(1, "a", 6, "v6")])
    clean(meta, options)
    assert data_files(table.path) == {"a": [table.name(table.group_a, c6)], "b": [table.name(table.group_b, c[3])]}


def test_clean_deletes_replaced_file_groups_after_the_window(spark: Any, table: BaseTable):
    c = table.commits
    c6 = write(spark, table.path, [(3, "a", 6, "v6")], **{"hoodie.datasource.write.operation": "insert_overwrite"})
    c7 = write(spark, table.path, [(2, "b", 7, "v7")])
    expected_rows = [(2, "b", "v7"), (3, "a", "v6")]
    new_group = [n for n in data_files(table.path)["a"] if n.endswith(f"_{c6}.parquet")]
    assert len(new_group) == 1
    # Retaining 2 commits (ECTR = c6): the replacecommit is inside the window, A stays on disk.
    clean(table.path, {"hoodie.cleaner.commits.retained": "2"})
    assert table.name(table.group_a, c[0]) in data_files(table.path)["a"]
    c8 = write(spark, table.path, [(2, "b", 8, "v8")])
    expected_rows = [(2, "b", "v8"), (3, "a", "v6")]
    result = clean(table.path, {"hoodie.cleaner.commits.retained": "1"})  # ECTR = c8 > c6
    assert result.plan is not None
    assert data_files(table.path) == {"a": new_group, "b": sorted([table.name(table.group_b, c7),
                                                                    table.name(table.group_b, c8)])}
    assert our_rows(spark, table.path) == rust_rows(table.path) == expected_rows


# -- archive ------------------------------------------------------------------------------------------


def test_archive_moves_old_commits_and_both_readers_still_see_the_table(spark: Any, table: BaseTable):
    c = table.commits
    options = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "4"}
    meta = TableMetaClient.load(table.path)
    plan = plan_archive(meta, options)
    assert plan.archived_times() == list(c[:3])
    result = archive(meta, options)
    assert result.archive_file is not None and result.archive_file.endswith("/.commits_.archive.1_1-0-1")
    assert timeline_files(table.path) == sorted(
        f"{t}{suffix}" for t in c[3:] for suffix in (".commit", ".commit.requested", ".inflight"))
    archived = read_archived_instants(meta)
    assert [(r["commitTime"], r["actionType"], r["state"]) for r in archived] == [
        (t, "commit", s) for t in c[:3] for s in ("REQUESTED", "INFLIGHT", "COMPLETED")]
    completed = [e for e in read_archived_entries(meta) if e["actionState"] == "COMPLETED"]
    assert all(e["hoodieCommitMetadata"]["partitionToWriteStats"] for e in completed)
    assert completed[0]["hoodieCommitMetadata"]["extraMetadata"]["ROLLING_STAT"] == ""
    # B's only slice before c4 was written by the archived c1: still read, by both readers.
    assert our_rows(spark, table.path) == rust_rows(table.path) == table.rows_as_of[c[-1]]
    assert data_files(table.path) == expect_files(table, [1, 2, 3, 4, 5], [1, 4])  # archival deletes no data
    assert archive(meta, options).plan.is_empty
    # Later: a clean between c6 and c7, then c7 rewrites B. Archiving c4..c7 must take the clean
    # too: readers count a file as committed when it is older than the first active instant,
    # so a clean left in front of c8 would hide B@c7 (its commit archived, its time after the clean).
    write(spark, table.path, [(1, "a", 6, "v6")])
    cleaned = clean(table.path, {"hoodie.cleaner.commits.retained": "1"})
    assert cleaned.instant_time is not None
    c7 = write(spark, table.path, [(2, "b", 7, "v7")])
    for i in (8, 9):
        write(spark, table.path, [(1, "a", i, f"v{i}")])
    second = archive(TableMetaClient.load(table.path), options)
    assert second.archive_file is not None and second.archive_file.endswith("/.commits_.archive.2_1-0-1")
    assert second.plan.archived_times(Action.CLEAN) == [cleaned.instant_time]
    assert c7 in second.plan.archived_times(Action.COMMIT)
    assert not any(".clean" in n for n in timeline_files(table.path))
    assert ("clean", "COMPLETED") in {(r["actionType"], r["state"]) for r in read_archived_instants(meta)}
    assert our_rows(spark, table.path) == rust_rows(table.path) == [(1, "a", "v9"), (2, "b", "v7")]
    # The metadata table's own timeline was archived in the same step, and still lists every file.
    assert list(Path(table.path, ".hoodie", "metadata", ".hoodie", "archived").glob(".commits_.archive.*"))
    listing = MetadataTableReader.open(TableMetaClient.load(table.path)).file_listing()
    assert {p: listing.files(p) for p in listing.partitions} == storage_listing(TableMetaClient.load(table.path))


def test_archive_never_passes_what_the_cleaner_or_a_savepoint_needs(table: BaseTable):
    c = table.commits
    meta = TableMetaClient.load(table.path)
    tight = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "4"}
    # The cleaner retains 2 commits (ECTR = c4): archival keeps c3 onwards (min grows to 3, max to 5).
    assert plan_archive(meta, {**tight, "hoodie.cleaner.commits.retained": "2"}).is_empty
    create_savepoint(meta, c[1])
    plan = plan_archive(meta, tight)
    assert plan.archived_times() == [c[0]]


# -- savepoint and restore -------------------------------------------------------------------------------


def test_restore_to_savepoint_gives_back_exactly_the_savepointed_rows(spark: Any, table: BaseTable):
    c = table.commits
    meta = TableMetaClient.load(table.path)
    create_savepoint(meta, user="tester")  # the latest commit, c5
    hoodie = Path(table.path, ".hoodie")
    assert (hoodie / f"{c[4]}.savepoint.inflight").read_bytes() == b""
    record = deserialize((hoodie / f"{c[4]}.savepoint").read_bytes(), AvroMetadataKind.SAVEPOINT_METADATA)
    assert record["savepointedBy"] == "tester"
    assert sorted(record["partitionMetadata"]) == ["a", "b"]
    before_files = data_files(table.path)
    c6 = write(spark, table.path, [(1, "a", 6, "v6"), (3, "c", 6, "v6")])
    c7 = write(spark, table.path, [(4, "b", 7, "v7")], **{"hoodie.datasource.write.operation": "insert_overwrite"})
    assert our_rows(spark, table.path) == [(1, "a", "v6"), (3, "c", "v6"), (4, "b", "v7")]
    dry = restore_to_savepoint(meta, c[4], dry_run=True)
    assert [i.instant_time for i in dry.plan.instants_to_rollback] == [c7, c6]
    result = restore_to_savepoint(meta, c[4])
    assert result.restore_instant_time is not None
    r = result.restore_instant_time
    assert our_rows(spark, table.path) == rust_rows(table.path) == table.rows_as_of[c[4]]
    after = data_files(table.path)
    assert after.pop("c") == []  # the partition folder c6 created is left empty
    assert after == before_files
    names = timeline_files(table.path)
    assert not any(n.startswith((c6, c7)) for n in names)
    assert not any(".rollback" in n for n in names)  # rollbacks live inside the restore metadata
    plan = deserialize((hoodie / f"{r}.restore.requested").read_bytes(), AvroMetadataKind.RESTORE_PLAN)
    assert plan["instantsToRollback"] == [{"commitTime": c7, "action": "replacecommit"},
                                          {"commitTime": c6, "action": "commit"}]
    assert (hoodie / f"{r}.restore.inflight").read_bytes() == b""
    metadata = deserialize((hoodie / f"{r}.restore").read_bytes(), AvroMetadataKind.RESTORE_METADATA)
    assert metadata["instantsToRollback"] == [c7, c6]
    assert metadata["hoodieRestoreMetadata"][c6][0]["totalFilesDeleted"] == 2
    # The table takes writes again afterwards.
    write(spark, table.path, [(5, "b", 9, "v9")])
    assert our_rows(spark, table.path) == rust_rows(table.path) == table.rows_as_of[c[4]] + [(5, "b", "v9")]


def test_restore_to_an_older_savepoint_after_cleaning(spark: Any, table: BaseTable):
    c = table.commits
    meta = TableMetaClient.load(table.path)
    create_savepoint(meta, c[1])
    clean(meta, {"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1"})
    restore_to_savepoint(meta, c[1])
    assert our_rows(spark, table.path) == rust_rows(table.path) == table.rows_as_of[c[1]]
    assert data_files(table.path) == expect_files(table, [2], [1])


def test_incremental_over_cleaned_files_fails_clearly_or_falls_back_to_full_scan(spark: Any, tmp_path: Path) -> None:
    import hudi_sql as hs

    path = str(tmp_path / "incr_clean")
    options = {"hoodie.table.name": "incr_clean", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
               "hoodie.cleaner.commits.retained": "1"}
    schema = "id int, v string, ts int, p string"
    first = hs.write(spark.createDataFrame([(1, "a", 1, "x"), (2, "b", 1, "x")], schema), path, options)
    second = hs.write(spark.createDataFrame([(1, "a2", 2, "x"), (3, "c", 2, "x")], schema), path, options)
    hs.write(spark.createDataFrame([(2, "b3", 3, "x")], schema), path, options)
    hs.write(spark.createDataFrame([(1, "a4", 4, "x")], schema), path, options)  # the cleaner has run by now
    incremental = {"hoodie.datasource.query.type": "incremental",
                   "hoodie.datasource.read.begin.instanttime": first.instant_time,
                   "hoodie.datasource.read.end.instanttime": second.instant_time}
    with pytest.raises(hs.HudiTimelineError, match="cleaner already deleted"):
        hs.read(spark, path, incremental).collect()
    fallback = hs.read(spark, path, {**incremental,
                                     "hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"})
    # The full scan sees each key's latest version: only key 3 was last written inside the range.
    assert [(r.id, r.v) for r in fallback.collect()] == [(3, "c")]
