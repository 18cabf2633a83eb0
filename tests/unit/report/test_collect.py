"""The report's figures of hand-made tables: instant files written through the TimelineWriter,
data files that are junk bytes of chosen sizes (the report must never open one)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiServiceConfig, HudiTableConfig, HudiWriteConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.file_names import PARTITION_METADATA_FILE
from hudi_sql.model.instant import Action, Instant, State, format_instant_time
from hudi_sql.model.instant_payloads import CompactionOperation, CompactionPlan
from hudi_sql.report import table_report
from hudi_sql.report.collect import collect_report
from hudi_sql.table.meta_client import TableMetaClient, init_table

KB = 1024


class HandMadeTable:
    """A table whose instants and files a test lays down one by one."""

    def __init__(self, root: Path, table_type: str = "COPY_ON_WRITE") -> None:
        self.root = root
        self.meta = init_table(str(root), {
            HudiTableConfig.NAME.key: "hand_made",
            HudiTableConfig.TYPE.key: table_type,
            HudiTableConfig.RECORD_KEY_FIELDS.key: "id",
            HudiTableConfig.PARTITION_FIELDS.key: "p",
        })
        self.clock = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def next_time(self) -> str:
        self.clock += timedelta(seconds=1)
        return format_instant_time(self.clock)

    def data_file(self, partition: str, name: str, size: int) -> str:
        folder = self.root / partition
        folder.mkdir(parents=True, exist_ok=True)
        (folder / PARTITION_METADATA_FILE).write_bytes(b"#partition metadata\n")
        (folder / name).write_bytes(b"\x00junk, not parquet" + b"\x00" * (size - 18))
        return f"{partition}/{name}"

    def commit(self, action: Action, stats: dict[str, list[WriteStat]], operation: str = "UPSERT", *,
               started: float | None = None, ran_seconds: float | None = None, compacted: bool = False,
               instant_time: str | None = None) -> str:
        t = instant_time or self.next_time()
        metadata = CommitMetadata({p: tuple(s) for p, s in stats.items()}, operation, {"schema": ""},
                                  compacted=compacted)
        writer = TimelineWriter(self.meta, Resolved())
        pending_action = Action.COMPACTION if compacted else action
        with writer.transaction("test"):
            if not compacted:
                writer.request(Instant(t, pending_action, State.REQUESTED))
            writer.start(Instant(t, pending_action, State.INFLIGHT))
            writer.complete(Instant(t, action), metadata)
        if started is not None and ran_seconds is not None:
            inflight = Instant(t, pending_action, State.INFLIGHT)
            os.utime(self.meta.layout.instant_path(inflight), (started, started))
            done = self.meta.layout.instant_path(Instant(t, action))
            os.utime(done, (started + ran_seconds, started + ran_seconds))
        self.meta.reload_timeline()
        return t

    def reload(self) -> TableMetaClient:
        return TableMetaClient.load(str(self.root))


def _stat(path: str, *, writes: int, inserts: int = 0, updates: int = 0, deletes: int = 0, size: int,
          prev: str = "null") -> WriteStat:
    partition, name = path.split("/")
    return WriteStat(file_id=name.split("_")[0], path=path, partition_path=partition, prev_commit=prev,
                     num_writes=writes, num_inserts=inserts, num_update_writes=updates, num_deletes=deletes,
                     total_write_bytes=size, file_size_in_bytes=size)


@pytest.fixture()
def cow(tmp_path: Path) -> tuple[HandMadeTable, dict[str, str]]:
    """Two inserts into two partitions, then a COW update rewriting a file of 60 records for 10."""
    table = HandMadeTable(tmp_path / "cow")
    t1 = table.next_time()
    a1 = table.data_file("p1", f"aaaa-0_0-1-0_{t1}.parquet", 60 * KB)
    b1 = table.data_file("p2", f"bbbb-0_0-1-0_{t1}.parquet", 40 * KB)
    table.commit(Action.COMMIT, {"p1": [_stat(a1, writes=60, inserts=60, size=60 * KB)],
                                 "p2": [_stat(b1, writes=40, inserts=40, size=40 * KB)]}, "INSERT",
                 instant_time=t1, started=1_700_000_000.0, ran_seconds=12.5)
    t2 = table.next_time()
    a2 = table.data_file("p1", f"aaaa-0_0-1-0_{t2}.parquet", 60 * KB)
    table.commit(Action.COMMIT, {"p1": [_stat(a2, writes=60, updates=10, size=60 * KB, prev=t1)]},
                 instant_time=t2)
    return table, {"t1": t1, "t2": t2, "a1": a1}


def test_collect_report_cow_history_counts_records_and_bytes_per_commit(cow: tuple[HandMadeTable, dict]) -> None:
    table, _ = cow
    report = collect_report(table.reload())
    first, second = report.commits
    assert (first.records_inserted, first.records_updated, first.records_written) == (100, 0, 100)
    assert (second.records_inserted, second.records_updated, second.records_written) == (0, 10, 60)
    assert (first.bytes_written, second.bytes_written) == (100 * KB, 60 * KB)
    assert report.instant_counts() == {"commit": {"completed": 2}}


def test_collect_report_cow_update_write_amplification_is_records_rewritten_per_record_changed(
        cow: tuple[HandMadeTable, dict]) -> None:
    table, _ = cow
    first, second = collect_report(table.reload()).commits
    assert first.write_amplification == pytest.approx(1.0), "an insert into new files rewrites nothing"
    assert second.write_amplification == pytest.approx(6.0, rel=1e-3), "60 records rewritten for 10 updated"


def test_collect_report_duration_from_inflight_to_completed_file_times(cow: tuple[HandMadeTable, dict]) -> None:
    table, _ = cow
    first, _ = collect_report(table.reload()).commits
    assert first.duration_seconds == pytest.approx(12.5)


def test_collect_report_partitions_count_latest_slices_and_small_files(cow: tuple[HandMadeTable, dict]) -> None:
    table, _ = cow
    options = {HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT.key: str(50 * KB)}
    report = collect_report(table.reload(), options)
    by_name = {p.partition: p for p in report.partitions}
    assert (by_name["p1"].file_groups, by_name["p1"].base_file_sizes, by_name["p1"].small_files) == (1, (60 * KB,), 0)
    assert (by_name["p2"].file_groups, by_name["p2"].base_file_sizes, by_name["p2"].small_files) == (1, (40 * KB,), 1)
    assert report.settings["small_file_limit"] == 50 * KB
    assert report.skew()["largest_partition"] == "p1"
    assert report.skew()["max_over_mean"] == pytest.approx(60 / 50)


def test_collect_report_clean_preview_sizes_the_planned_files_and_deletes_nothing(
        cow: tuple[HandMadeTable, dict]) -> None:
    table, names = cow
    options = {HudiServiceConfig.CLEANER_POLICY.key: "KEEP_LATEST_FILE_VERSIONS",
               HudiServiceConfig.CLEANER_FILE_VERSIONS_RETAINED.key: "1"}
    clean = collect_report(table.reload(), options).clean
    assert (clean.would_clean, clean.files, clean.bytes) == (True, 1, 60 * KB)
    assert clean.files_by_partition == {"p1": 1}
    assert (table.root / names["a1"]).exists(), "the report only plans"
    assert not [i for i in table.reload().timeline if i.action is Action.CLEAN]


def test_collect_report_default_policy_with_two_commits_would_clean_nothing(cow: tuple[HandMadeTable, dict]) -> None:
    table, _ = cow
    clean = collect_report(table.reload()).clean
    assert (clean.would_clean, clean.files, clean.bytes, clean.policy) == (False, 0, 0, "KEEP_LATEST_COMMITS")


def test_collect_report_mor_counts_logs_deltas_and_pending_compaction(tmp_path: Path) -> None:
    table = HandMadeTable(tmp_path / "mor", "MERGE_ON_READ")
    t1 = table.next_time()
    base = table.data_file("p1", f"cccc-0_0-1-0_{t1}.parquet", 30 * KB)
    table.commit(Action.DELTA_COMMIT, {"p1": [_stat(base, writes=30, inserts=30, size=30 * KB)]}, instant_time=t1)
    logs = []
    for version in (1, 2, 3):
        t = table.next_time()
        log = table.data_file("p1", f".cccc-0_{t1}.log.{version}_0-1-0", 2 * KB)
        logs.append(log)
        table.commit(Action.DELTA_COMMIT, {"p1": [_stat(log, writes=5, updates=5, size=2 * KB, prev=t1)]},
                     instant_time=t)
    with TimelineWriter(table.meta, Resolved()).transaction("schedule") as writer:
        tc = writer.next_instant_time()
        plan = CompactionPlan(tc, (CompactionOperation("p1", "cccc-0", t1, base.split("/")[1],
                                                       tuple(lf.split("/")[1] for lf in logs)),))
        writer.request(Instant(tc, Action.COMPACTION, State.REQUESTED), plan)
    report = collect_report(table.reload())
    assert report.is_mor
    assert report.delta_commits_since_compaction == 4
    assert [(p.instant_time, p.file_groups, p.log_files) for p in report.pending_compactions] == [(tc, 1, 3)]
    (only,) = report.slices
    assert (only.log_files, only.log_bytes, only.base_bytes) == (3, 6 * KB, 30 * KB)
    assert report.instant_counts() == {"deltacommit": {"completed": 4}, "compaction": {"requested": 1}}
    assert [c.write_amplification for c in report.commits[1:]] == [pytest.approx(1.0)] * 3


def test_collect_report_completed_compaction_resets_the_delta_count(tmp_path: Path) -> None:
    table = HandMadeTable(tmp_path / "mor", "MERGE_ON_READ")
    t1 = table.next_time()
    base = table.data_file("p1", f"dddd-0_0-1-0_{t1}.parquet", 10 * KB)
    table.commit(Action.DELTA_COMMIT, {"p1": [_stat(base, writes=10, inserts=10, size=10 * KB)]}, instant_time=t1)
    tc = table.next_time()
    compacted = table.data_file("p1", f"dddd-0_0-1-0_{tc}.parquet", 10 * KB)
    table.commit(Action.COMMIT, {"p1": [_stat(compacted, writes=10, updates=2, size=10 * KB, prev=t1)]},
                 "COMPACT", compacted=True, instant_time=tc)
    t3 = table.next_time()
    log = table.data_file("p1", f".dddd-0_{tc}.log.1_0-1-0", KB)
    table.commit(Action.DELTA_COMMIT, {"p1": [_stat(log, writes=1, updates=1, size=KB, prev=tc)]}, instant_time=t3)
    report = collect_report(table.reload())
    assert (report.delta_commits_since_compaction, report.last_compaction) == (1, tc)
    assert report.commits[1].write_amplification is None, "a compaction changes no record"
    compaction = report.commits[1]
    assert (compaction.records_written, compaction.records_updated, compaction.records_inserted) == (10, 0, 0)


def test_table_report_json_is_the_collected_figures(cow: tuple[HandMadeTable, dict]) -> None:
    table, names = cow
    figures = json.loads(table_report(str(table.root), format="json"))
    assert [c["instant_time"] for c in figures["commits"]] == [names["t1"], names["t2"]]
    assert figures["summary"]["file_groups"] == 2
    assert figures["table"]["table_type"] == "COPY_ON_WRITE"
    assert "merge_on_read" not in figures


def test_table_report_unknown_format_names_it(cow: tuple[HandMadeTable, dict]) -> None:
    from hudi_sql.errors import HudiConfigError

    table, _ = cow
    with pytest.raises(HudiConfigError, match="'pdf'"):
        table_report(str(table.root), format="pdf")
