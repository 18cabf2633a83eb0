"""What a data instant changes in the metadata table's ``files`` partition."""

from __future__ import annotations

from hudi_sql.metadata.changes import FileChanges, files_partition_records
from hudi_sql.metadata.records import FileInfo
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.instant import Action, Instant

BASE = "a-0_0-1-2_20240101000000000.parquet"
LOG = ".a-0_20240101000000000.log.1_0-1-2"


def _records(changes: FileChanges) -> dict[tuple[str, int], dict[str, FileInfo]]:
    return {(r.key, int(r.record_type)): dict(r.files) for r in files_partition_records(changes)}


def test_a_commit_adds_its_files_and_partitions() -> None:
    metadata = CommitMetadata({
        "p1": (WriteStat("a-0", f"p1/{BASE}", "p1", file_size_in_bytes=10),
               WriteStat("a-0", f"p1/{LOG}", "p1", file_size_in_bytes=5, log_version=1),
               WriteStat("a-0", f"p1/{LOG}", "p1", file_size_in_bytes=7, log_version=1)),
        "": (WriteStat("b-0", BASE, "", file_size_in_bytes=3, cdc_stats=((".b-0_1.log.1_0-1-2.cdc", 4),)),),
    }, "UPSERT")
    changes = FileChanges.of(Instant("20240101000000000", Action.DELTA_COMMIT), metadata)
    assert changes is not None
    assert _records(changes) == {
        ("__all_partitions__", 1): {"p1": FileInfo(0), ".": FileInfo(0)},
        ("p1", 2): {BASE: FileInfo(10), LOG: FileInfo(7)},
        (".", 2): {BASE: FileInfo(3), ".b-0_1.log.1_0-1-2.cdc": FileInfo(4)},
    }
    assert changes.base_files_added() == [("", BASE), ("p1", BASE)]


def test_a_clean_deletes_its_files_and_the_partitions_it_emptied() -> None:
    clean = {"partitionMetadata": {
        "p1": {"deletePathPatterns": [BASE], "isPartitionDeleted": True},
        "p2": {"deletePathPatterns": [LOG], "isPartitionDeleted": False}}}
    changes = FileChanges.of(Instant("20240101000000001", Action.CLEAN), clean)
    assert changes is not None
    assert _records(changes) == {
        ("p1", 2): {BASE: FileInfo(0, True)},
        ("p2", 2): {LOG: FileInfo(0, True)},
        ("__all_partitions__", 1): {"p1": FileInfo(0, True)},
    }


def test_a_rollback_adds_its_log_files_and_deletes_what_it_deleted() -> None:
    rollback = {"commitsRollback": ["20240101000000000"], "partitionMetadata": {"p1": {
        "successDeleteFiles": [f"file:/t/p1/{BASE}"],
        "rollbackLogFiles": {f"file:/t/p1/{LOG}": 90},
        "logFilesFromFailedCommit": {"file:/t/p1/.a-0_20240101000000000.log.2_0-1-3": 12}}}}
    changes = FileChanges.of(Instant("20240101000000002", Action.ROLLBACK), rollback)
    assert changes is not None
    assert _records(changes) == {("p1", 2): {
        LOG: FileInfo(90), ".a-0_20240101000000000.log.2_0-1-3": FileInfo(12), BASE: FileInfo(0, True)}}


def test_a_restore_is_the_rollbacks_it_made() -> None:
    restore = {"instantsToRollback": ["t1", "t2"], "hoodieRestoreMetadata": {
        "t1": [{"partitionMetadata": {"p1": {"successDeleteFiles": ["p1/x.parquet"]}}}],
        "t2": [{"partitionMetadata": {"p2": {"successDeleteFiles": ["p2/y.parquet"]}}}]}}
    changes = FileChanges.of(Instant("20240101000000003", Action.RESTORE), restore)
    assert changes is not None
    assert changes.deleted == {"p1": ("x.parquet",), "p2": ("y.parquet",)}


def test_a_savepoint_changes_nothing() -> None:
    assert FileChanges.of(Instant("20240101000000004", Action.SAVEPOINT), {"x": 1}) is None
