"""The timeline writer on a real (empty) table folder: transactions, the lock seam, payload round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import CleanerPolicy
from hudi_sql.config.metadata import MetadataConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import CommitConflictError, HudiError, HudiTimelineError
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.instant_payloads import (
    CleanerPlan,
    CompactionOperation,
    CompactionPlan,
    SavepointMetadata,
)
from hudi_sql.table.meta_client import TableMetaClient, init_table


class RecordingLock:
    """A lock provider that records what the writer asks of it."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def lock(self, purpose: str) -> None:
        self.events.append(f"lock {purpose}")

    def unlock(self) -> None:
        self.events.append("unlock")


@pytest.fixture
def meta(tmp_path: Path) -> TableMetaClient:
    return init_table(str(tmp_path / "t"), {"hoodie.table.name": "t"})


def _files(meta: TableMetaClient) -> list[str]:
    return sorted(p.name for p in Path(meta.layout.meta_path).iterdir() if p.is_file() and p.name[0].isdigit())


def test_timeline_writer_transition_outside_transaction_raises_and_writes_nothing(meta: TableMetaClient) -> None:
    writer = TimelineWriter(meta, Resolved())
    with pytest.raises(HudiError, match="outside a timeline transaction"):
        writer.request(Instant("20240101000000000", Action.COMMIT, State.REQUESTED))
    with pytest.raises(HudiError, match="outside a timeline transaction"):
        writer.delete(Instant("20240101000000000", Action.COMMIT))
    with pytest.raises(HudiError, match="outside a timeline transaction"):
        writer.next_instant_time()
    assert _files(meta) == []


def test_timeline_writer_transaction_locks_once_and_unlocks_on_error(meta: TableMetaClient) -> None:
    lock = RecordingLock()
    writer = TimelineWriter(meta, Resolved(), lock)
    with writer.transaction("outer"), writer.transaction("inner"):
        assert writer.in_transaction
    assert lock.events == ["lock outer", "unlock"]
    with pytest.raises(RuntimeError), writer.transaction("failing"):
        raise RuntimeError("boom")
    assert lock.events[-2:] == ["lock failing", "unlock"]
    assert not writer.in_transaction


def test_timeline_writer_transaction_reloads_the_timeline_on_entry(meta: TableMetaClient) -> None:
    other = TableMetaClient.load(meta.base_path)
    with TimelineWriter(other, Resolved()).transaction("other writer") as writer:
        writer.request(Instant("20240101000000000", Action.COMMIT, State.REQUESTED))
    assert not meta.timeline.instants  # loaded before the other writer's change
    with TimelineWriter(meta, Resolved()).transaction("ours") as writer:
        assert meta.timeline.find("20240101000000000", Action.COMMIT, State.REQUESTED) is not None
        assert writer.next_instant_time() > "20240101000000000"
        with pytest.raises(HudiTimelineError, match="not after the latest instant"):
            writer.new_instant_time("20231231000000000")


def test_timeline_writer_commit_lifecycle_publishes_metadata_the_meta_client_reads(meta: TableMetaClient) -> None:
    metadata = CommitMetadata({"p": (WriteStat(file_id="f1", path="p/f1_0-1-0_1.parquet", partition_path="p"),)},
                              "UPSERT")
    with TimelineWriter(meta, Resolved()).transaction("commit") as writer:
        time_ = writer.new_instant_time()
        instant = Instant(time_, Action.COMMIT)
        writer.request(instant.to(State.REQUESTED))
        writer.start(instant.to(State.INFLIGHT), CommitMetadata({}, "UPSERT"))
        writer.create_marker_dir(time_)
        writer.complete(instant, metadata)
        writer.delete_marker_dir(time_)
    meta.reload_timeline()
    assert meta.timeline.completed_writes().times() == [time_]
    assert meta.commit_metadata(instant) == metadata
    assert _files(meta) == [f"{time_}.commit", f"{time_}.commit.requested", f"{time_}.inflight"]
    assert not Path(meta.layout.marker_dir(time_)).exists()
    with TimelineWriter(meta, Resolved()).transaction("again") as writer, pytest.raises(CommitConflictError):
        writer.complete(instant, metadata)  # a completed instant is written once


def test_timeline_writer_service_plans_round_trip_through_the_meta_client(meta: TableMetaClient) -> None:
    clean = CleanerPlan(CleanerPolicy.KEEP_LATEST_COMMITS, Instant("20240101000000000", Action.COMMIT),
                        "20240102000000000", {"p": (str(Path(meta.base_path, "p", "a.parquet")),)})
    compaction = CompactionPlan("20240103000000000", (CompactionOperation("p", "f1", "20240101000000000",
                                                                          "f1_0-1-0_20240101000000000.parquet",
                                                                          (".f1_20240101000000000.log.1_0-1-0",)),))
    savepoint = SavepointMetadata("20240102000000000", "me", 1700000000000, "keep", {"p": ("a.parquet",)})
    with TimelineWriter(meta, Resolved()).transaction("services") as writer:
        writer.request(Instant("20240104000000000", Action.CLEAN, State.REQUESTED), clean)
        writer.request(Instant("20240103000000000", Action.COMPACTION, State.REQUESTED), compaction)
        writer.start(Instant("20240102000000000", Action.SAVEPOINT, State.INFLIGHT))
        writer.complete(Instant("20240102000000000", Action.SAVEPOINT), savepoint)
    meta.reload_timeline()
    assert meta.clean_plan("20240104000000000") == clean
    assert meta.compaction_plan("20240103000000000") == compaction
    assert meta.pending_compaction_operations() == {("p", "f1"): "20240103000000000"}
    assert meta.savepoint_metadata("20240102000000000") == savepoint


def test_timeline_writer_payload_for_a_json_instant_is_refused(meta: TableMetaClient) -> None:
    plan = CompactionPlan("20240103000000000", ())
    with TimelineWriter(meta, Resolved()).transaction("bad") as writer, pytest.raises(HudiTimelineError, match="no Avro record"):
        writer.complete(Instant("20240103000000000", Action.COMMIT), plan)
    assert _files(meta) == []


def test_timeline_writer_delete_pending_states_removes_a_compactions_files(meta: TableMetaClient) -> None:
    time_ = "20240103000000000"
    with TimelineWriter(meta, Resolved()).transaction("compaction") as writer:
        writer.request(Instant(time_, Action.COMPACTION, State.REQUESTED), CompactionPlan(time_, ()))
        writer.start(Instant(time_, Action.COMPACTION, State.INFLIGHT))
    assert len(_files(meta)) == 2
    with TimelineWriter(meta, Resolved()).transaction("undo") as writer:
        writer.delete_pending_states(Instant(time_, Action.COMMIT))
        assert not writer.delete(Instant(time_, Action.COMMIT))  # never completed
    assert _files(meta) == []


def test_timeline_writer_write_with_metadata_table_off_removes_it(tmp_path: Path) -> None:
    """As Apache Hudi with hoodie.metadata.enable=false: the declared partitions are cleared and
    .hoodie/metadata deleted before the write's instant, so no metadata-table reader misses it."""
    meta = init_table(str(tmp_path / "t"), {"hoodie.table.name": "t",
                                            "hoodie.table.metadata.partitions": "files,column_stats",
                                            "hoodie.table.metadata.partitions.inflight": "record_index"})
    folder = Path(meta.layout.meta_path) / "metadata"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "a.hfile").write_bytes(b"x")
    writer = TimelineWriter(meta, Resolved().given(metadata=MetadataConfig(enable=False)))
    with writer.transaction("commit"):
        writer.request(Instant(writer.next_instant_time(), Action.COMMIT, State.REQUESTED))
    assert not folder.exists()
    stored = TableMetaClient.load(meta.base_path).properties
    assert stored["hoodie.table.metadata.partitions"] == ""
    assert stored["hoodie.table.metadata.partitions.inflight"] == ""
    assert stored["hoodie.table.name"] == "t"


def test_timeline_writer_service_request_leaves_a_table_without_metadata_table_alone(meta: TableMetaClient) -> None:
    before = Path(meta.layout.properties_path).read_bytes()
    writer = TimelineWriter(meta, Resolved())
    with writer.transaction("clean"):
        writer.request(Instant(writer.next_instant_time(), Action.CLEAN, State.REQUESTED))
    assert Path(meta.layout.properties_path).read_bytes() == before
    assert not (Path(meta.layout.meta_path) / "metadata").exists()


def test_timeline_writer_publishes_version_8_instants_in_layout_2_with_a_completion_time(tmp_path: Path) -> None:
    """A version 8 table (Apache Hudi 1.x) gets its instants in ``.hoodie/timeline/``; a completed
    one is named by its requested and completion times, the completion after every time on the
    timeline, and its commit metadata is Avro."""
    v8 = init_table(str(tmp_path / "t"), {"hoodie.table.name": "t", "hoodie.table.version": "8"})
    assert v8.table_version == 8 and v8.properties["hoodie.timeline.layout.version"] == "2"
    writer = TimelineWriter(v8, Resolved())
    with writer.transaction("write"):
        time_ = writer.next_instant_time()
        writer.request(Instant(time_, Action.COMMIT, State.REQUESTED))
        writer.start(Instant(time_, Action.COMMIT, State.INFLIGHT), CommitMetadata(operation_type="UPSERT"))
        writer.complete(Instant(time_, Action.COMMIT), CommitMetadata(
            {"p": (WriteStat("f1", "p/f1_0-1-2_" + time_ + ".parquet", "p", num_writes=2),)}, "UPSERT",
            {"schema": "{}"}))
    v8.reload_timeline()
    names = sorted(p.name for p in (Path(v8.layout.meta_path) / "timeline").iterdir() if p.is_file())
    completed = v8.timeline.find(time_, Action.COMMIT, State.COMPLETED)
    assert completed is not None and completed.completion_time is not None and completed.completion_time > time_
    assert names == [f"{time_}.commit.requested", f"{time_}.inflight", f"{time_}_{completed.completion_time}.commit"]
    data = (Path(v8.layout.meta_path) / "timeline" / names[2]).read_bytes()
    assert data[:4] == b"Obj\x01"
    assert v8.commit_metadata(completed).write_stats()[0].num_writes == 2
    with writer.transaction("next"):
        assert writer.next_instant_time() > completed.completion_time