"""The advisor: each rule speaks when its evidence crosses the threshold, names the setting, and
keeps quiet on a healthy table."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from hudi_sql.config.resolve import Resolved
from hudi_sql.report.advise import advise, key_range_overlap
from hudi_sql.report.collect import CleanPreview, CommitStats, PartitionStats, SliceStats, TableReport

MB = 1024 * 1024


def _report(**changes: Any) -> TableReport:
    base = TableReport(
        table_name="t", base_path="/data/t", table_type="COPY_ON_WRITE", table_version=6,
        generated_at="2026-11-30T00:00:00Z", settings={}, instants=(), commits=(), partitions=(), slices=(),
        pending_compactions=(), pending_clusterings=(), delta_commits_since_compaction=None, last_compaction=None,
        clean=CleanPreview("KEEP_LATEST_COMMITS", False, None, 0, 0), savepoints=())
    return replace(base, **changes)


def _commit(time: str, *, inserted: int = 0, updated: int = 0, amplification: float = 1.0,
            action: str = "commit") -> CommitStats:
    changed = inserted + updated
    return CommitStats(time, action, "upsert", 1, 1, changed, inserted, updated, 0, int(changed * 100 * amplification),
                       changed * 100, amplification, 1.0)


def _partition(name: str, sizes: list[int]) -> PartitionStats:
    return PartitionStats(name, len(sizes), len(sizes), sum(sizes), 0, 0,
                          sum(1 for s in sizes if s < 100 * MB), tuple(sorted(sizes)))


def _findings(report: TableReport, options: dict[str, str] | None = None, **kwargs: Any) -> list[str]:
    return [r.finding for r in advise(report, Resolved.of(options or {}), **kwargs)]


HEALTHY = _report(
    commits=(_commit("001", inserted=1000), _commit("002", inserted=900, updated=100, amplification=3.0)),
    partitions=(_partition("a", [120 * MB, 118 * MB]), _partition("b", [119 * MB])))


def test_a_healthy_table_gets_no_recommendation() -> None:
    ordered = {"a": [("a-0000", "a-0999"), ("a-1000", "a-1999")], "b": [("b-0000", "b-0999")]}
    assert advise(HEALTHY, Resolved.of({}), ordered, ("files", "column_stats")) == ()


def test_random_keys_under_the_bloom_index_point_to_the_simple_index() -> None:
    """A bloom-indexed table's random keys overlap in every file; ordered keys do not."""
    random = {p: sorted((min(k), max(k)) for k in ([str(uuid.uuid4()) for _ in range(50)] for _ in range(4)))
              for p in ("a", "b")}
    overlap = key_range_overlap(random)
    assert overlap is not None and overlap[0] > 0.9 and overlap[1] == 8
    bloom = Resolved.of({"hoodie.index.type": "BLOOM"})
    (advice,) = advise(HEALTHY, bloom, random)
    assert advice.setting == "hoodie.index.type=SIMPLE" and "not ordered" in advice.finding
    assert "over 8 sampled files" in advice.evidence
    (global_advice,) = advise(HEALTHY, Resolved.of({"hoodie.index.type": "GLOBAL_BLOOM"}), random)
    assert global_advice.setting == "hoodie.index.type=GLOBAL_SIMPLE"
    # Time-ordered keys give disjoint ranges; an index without range pruning has nothing to gain.
    ordered = {"a": [(f"2026-11-{d:02d}-0", f"2026-11-{d:02d}-9") for d in range(1, 9)]}
    assert key_range_overlap(ordered) == (0.0, 8)
    assert advise(HEALTHY, bloom, ordered) == ()
    assert advise(HEALTHY, Resolved.of({}), random) == ()  # the simple index (Apache Hudi's Spark default)


def test_small_files_call_for_a_clustering_or_for_the_small_file_limit_when_it_is_off() -> None:
    small = _report(partitions=(_partition("a", [2 * MB] * 12 + [120 * MB] * 3),))
    (clustering,) = advise(small, Resolved.of({}))
    assert clustering.setting == "CALL run_clustering(table => 't')"
    assert "12 of 15 base files" in clustering.evidence
    assert "about 1 files" in clustering.expected_effect  # 24 MB fit one file of the 1 GiB target
    (limit,) = advise(small, Resolved.of({"hoodie.parquet.small.file.limit": "0"}))
    assert limit.setting == "hoodie.parquet.small.file.limit=104857600"
    few = _report(partitions=(_partition("a", [2 * MB] * 3 + [120 * MB] * 30),))
    assert advise(few, Resolved.of({}), declared_metadata_partitions=("files", "column_stats")) == ()


def test_update_heavy_copy_on_write_commits_point_to_merge_on_read() -> None:
    heavy = _report(commits=tuple(_commit(f"00{i}", inserted=5, updated=95, amplification=400.0) for i in range(4)))
    (advice,) = advise(heavy, Resolved.of({}))
    assert "MERGE_ON_READ" in advice.setting and "median write amplification 400.0" in advice.evidence
    inserts = _report(commits=tuple(_commit(f"00{i}", inserted=95, updated=5, amplification=400.0) for i in range(4)))
    assert advise(inserts, Resolved.of({})) == ()
    assert advise(replace(heavy, table_type="MERGE_ON_READ"), Resolved.of({})) == ()


def test_a_compaction_backlog_calls_for_inline_compaction_or_running_the_scheduled_one() -> None:
    slices = (SliceStats("a", "f1", "001", 10 * MB, 6, 8 * MB), SliceStats("a", "f2", "001", 10 * MB, 0, 0))
    mor = _report(table_type="MERGE_ON_READ", slices=slices, delta_commits_since_compaction=6)
    (advice,) = advise(mor, Resolved.of({}))
    assert advice.setting.startswith("CALL run_compaction(op => 'scheduleAndExecute'")
    assert "hoodie.compact.inline=true" in advice.setting
    assert "8388608 log bytes over 10485760 base bytes" in advice.evidence
    from hudi_sql.report.collect import PendingPlan

    scheduled = replace(mor, pending_compactions=(PendingPlan("007", "compaction", "REQUESTED", 1),))
    (run,) = advise(scheduled, Resolved.of({}))
    assert run.setting == "CALL run_compaction(op => 'execute', table => 't')"
    light = replace(mor, slices=(SliceStats("a", "f1", "001", 10 * MB, 1, MB),), delta_commits_since_compaction=2)
    assert advise(light, Resolved.of({})) == ()


def test_many_files_without_column_statistics_point_to_the_column_stats_index() -> None:
    many = _report(partitions=tuple(_partition(f"p{i}", [120 * MB] * 3) for i in range(8)))
    (advice,) = advise(many, Resolved.of({}), declared_metadata_partitions=("files",))
    assert advice.setting.startswith("hoodie.metadata.index.column.stats.enable=true")
    assert advise(many, Resolved.of({}), declared_metadata_partitions=("files", "column_stats")) == ()
    (off,) = advise(many, Resolved.of({"hoodie.metadata.enable": "false"}))
    assert off.setting.startswith("hoodie.metadata.enable=true")


def test_a_filter_column_without_statistics_or_with_overlapping_ranges_is_named_with_its_remedy() -> None:
    from hudi_sql.report.advise import FilterColumn

    (unindexed,) = advise(HEALTHY, Resolved.of({}), filters=(FilterColumn("city", indexed=False),))
    assert unindexed.setting.startswith("hoodie.metadata.index.column.stats.enable=true")
    listed = Resolved.of({"hoodie.metadata.index.column.stats.enable": "true",
                          "hoodie.metadata.index.column.stats.column.list": "ts"})
    (extend,) = advise(HEALTHY, listed, filters=(FilterColumn("city", indexed=False),))
    assert extend.setting.startswith("hoodie.metadata.index.column.stats.column.list=ts,city")
    spread = FilterColumn("fare", indexed=True, overlap=key_range_overlap(
        {"a": [(0, 100), (1, 99), (2, 98), (3, 97)]}))
    (cluster,) = advise(HEALTHY, Resolved.of({}), filters=(spread,))
    assert cluster.setting == "CALL run_clustering(table => 't', order => 'fare')"
    assert "overlaps 100%" in cluster.evidence
    sorted_files = FilterColumn("fare", indexed=True, overlap=key_range_overlap(
        {"a": [(0, 9), (10, 19), (20, 29), (30, 39)]}))
    assert advise(HEALTHY, Resolved.of({}), filters=(sorted_files,)) == ()


def test_ordered_keys_in_files_written_unsorted_call_for_a_clustering_sorted_by_the_key() -> None:
    """Time-ordered keys under day partitions: the partitions' ranges are apart, each file of a
    day spans the whole day (a bulk insert without sorting): sort the files, keep the bloom index."""
    unsorted = {f"2024-01-0{d}": [(f"2024010{d}0000_D{f}", f"2024010{d}2359_D{f}") for f in range(3)]
                for d in range(1, 4)}
    report = replace(HEALTHY, record_key_fields=("record_key",))
    (advice,) = advise(report, Resolved.of({"hoodie.index.type": "BLOOM"}), unsorted)
    assert advice.setting == "CALL run_clustering(table => 't', order => 'record_key')"
    assert "overlaps 100%" in advice.evidence and "overlap 0% of each other's" in advice.evidence


def test_small_files_expect_one_clustered_file_set_per_partition() -> None:
    small = _report(partitions=tuple(_partition(f"p{i}", [2 * MB] * 5) for i in range(3)))
    (clustering,) = advise(small, Resolved.of({}), declared_metadata_partitions=("files", "column_stats"))
    assert "about 3 files" in clustering.expected_effect  # a clustering group never spans partitions
    one_each = _report(partitions=tuple(_partition(f"p{i}", [60 * MB]) for i in range(12)))
    assert advise(one_each, Resolved.of({}), declared_metadata_partitions=("files", "column_stats")) == ()


def test_a_merge_on_read_table_at_its_compaction_trigger_with_nothing_compacting_is_behind() -> None:
    slices = (SliceStats("a", "f1", "001", 100 * MB, 1, MB),)
    due = _report(table_type="MERGE_ON_READ", slices=slices, delta_commits_since_compaction=5)
    (advice,) = advise(due, Resolved.of({}))
    assert advice.setting == ("CALL run_compaction(op => 'scheduleAndExecute', table => 't'), and "
                              "hoodie.compact.inline=true (with hoodie.compact.inline.max.delta.commits=5)")
    assert advise(due, Resolved.of({"hoodie.compact.inline": "true"})) == ()
