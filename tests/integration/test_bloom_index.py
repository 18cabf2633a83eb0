"""BLOOM and GLOBAL_BLOOM index: upserts tag the right records, checked against our and the Rust reader.

Each write's result carries its index's :class:`~hudi_sql.index.bloom.BloomIndexStats`
(``WriteResult.index_stats``): how many footers, key ranges and bloom filters the lookup opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import hudi_sql
from hudi_sql.index.bloom import BloomIndexStats

pytestmark = pytest.mark.spark

SCHEMA = "id string, p string, ts long, v string"


def _options(**extra: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "p",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.index.type": "BLOOM",
        "hoodie.parquet.small.file.limit": "0",
        **extra,
    }


def _lookup(result: hudi_sql.WriteResult) -> BloomIndexStats:
    """The bloom index's counts of the lookup *result*'s write made."""
    stats = result.index_stats
    assert isinstance(stats, BloomIndexStats), stats
    return stats


def _write(spark: Any, path: Path, rows: list[tuple[Any, ...]], options: dict[str, str]) -> hudi_sql.WriteResult:
    return hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), options)


def _rows(spark: Any, path: Path) -> dict[str, tuple[str, int, str]]:
    """key -> (partition, ts, v) from our snapshot, asserting keys are unique and the Rust reader agrees."""
    from hudi import HudiTableBuilder

    ours = hudi_sql.read(spark, str(path)).select("_hoodie_record_key", "_hoodie_partition_path", "ts", "v").collect()
    keys = [r[0] for r in ours]
    assert len(keys) == len(set(keys)), "duplicate record keys in the snapshot"
    rust = pa.Table.from_batches(HudiTableBuilder.from_base_uri(str(path)).build().read())
    rust_rows = sorted(zip(*(rust.column(c).to_pylist() for c in ("_hoodie_record_key", "_hoodie_partition_path",
                                                                  "ts", "v"))))
    assert sorted(tuple(r) for r in ours) == rust_rows, "the Rust reader disagrees with our snapshot"
    return {r[0]: (r[1], r[2], r[3]) for r in ours}


def _file_ids(result: hudi_sql.WriteResult) -> set[str]:
    return {s.file_id for s in result.write_stats}


def test_bloom_upsert_tags_updates_and_inserts(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i:03d}", "a" if i % 2 else "b", 1, "old") for i in range(40)], _options())

    changes = [(f"k{i:03d}", "a" if i % 2 else "b", 2, "new") for i in range(0, 40, 8)]
    inserts = [(f"k{i:03d}", "a", 2, "ins") for i in range(40, 43)]
    result = _write(spark, path, changes + inserts, _options())

    assert (result.num_updated, result.num_inserted) == (5, 3)
    stats = _lookup(result)
    assert stats.candidate_files == stats.footers_read >= 2
    assert stats.keys_confirmed == 5
    rows = _rows(spark, path)
    assert len(rows) == 43
    assert {k for k, (_, _, v) in rows.items() if v == "new"} == {c[0] for c in changes}
    assert all(rows[c[0]][0] == c[1] for c in changes)


@pytest.mark.parametrize("reader", ["driver", "spark tasks"])
def test_key_ranges_read_by_the_driver_or_by_spark_tasks_tag_alike(spark: Any, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   reader: str) -> None:
    from hudi_sql.index import bloom

    monkeypatch.setattr(bloom, "_KEY_RANGES", {})  # nothing remembered from other tests' tables
    if reader == "spark tasks":
        monkeypatch.setattr(bloom, "DRIVER_FOOTER_READS", 0)
    options = _options(**{"hoodie.copyonwrite.insert.auto.split": "false",
                          "hoodie.copyonwrite.insert.split.size": "10"})
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i:03d}", "a", 1, "old") for i in range(40)], options)

    first = _write(spark, path, [(f"k{i:03d}", "a", 2, "new") for i in range(0, 40, 4)], options)
    first_stats = _lookup(first)
    second = _write(spark, path, [(f"k{i:03d}", "a", 3, "newer") for i in range(1, 40, 4)], options)
    second_stats = _lookup(second)

    assert first_stats.candidate_files == first_stats.footers_read >= 4
    # The second lookup reads only the footers of the files the first write replaced.
    assert 0 < second_stats.footers_read == len(_file_ids(first)) < second_stats.candidate_files
    assert (first.num_updated, second.num_updated) == (10, 10)
    rows = _rows(spark, path)
    assert sorted(v for _, _, v in rows.values()) == ["new"] * 10 + ["newer"] * 10 + ["old"] * 20


def test_bloom_false_positives_become_inserts(spark: Any, tmp_path: Path) -> None:
    # A 2-bit filter says "maybe" to every key: only the confirmation step keeps new keys inserts.
    tiny = _options(**{"hoodie.bloom.index.filter.type": "SIMPLE", "hoodie.index.bloom.num_entries": "1",
                       "hoodie.index.bloom.fpp": "0.5"})
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i:03d}", "a", 1, "old") for i in range(0, 40, 2)], tiny)

    updates = [(f"k{i:03d}", "a", 2, "new") for i in range(0, 10, 2)]
    new_in_range = [(f"k{i:03d}", "a", 2, "ins") for i in range(1, 39, 2)]
    result = _write(spark, path, updates + new_in_range, tiny)

    stats = _lookup(result)
    assert stats.bloom_filters_loaded >= 1
    assert stats.bloom_positives == len(updates) + len(new_in_range) > stats.keys_confirmed == len(updates)
    assert (result.num_updated, result.num_inserted) == (len(updates), len(new_in_range))
    assert len(_rows(spark, path)) == 20 + len(new_in_range)


def _minute_keys(hour: int, devices: int = 3) -> list[str]:
    return [f"20240101{hour:02d}{minute:02d}_dev{d}" for minute in range(0, 60, 2) for d in range(devices)]


def test_bloom_monotonic_keys_skip_old_files(spark: Any, tmp_path: Path) -> None:
    # Each commit adds one hour of yyyyMMddHHmm_device keys, split into files of 30 records.
    options = _options(**{"hoodie.copyonwrite.insert.auto.split": "false",
                          "hoodie.copyonwrite.insert.split.size": "30",
                          "hoodie.parquet.max.file.size": str(1024 * 1024)})
    path = tmp_path / "t"
    for hour in range(4):
        result = _write(spark, path, [(k, "2024-01-01", hour, "v0") for k in _minute_keys(hour)], options)
        assert len(_file_ids(result)) == 3
    old_files = 12

    # New keys only: every old file's range lies below them, so no bloom filter is opened. The
    # footers of the three files the previous write added are read; the older ones' ranges are
    # remembered from the lookups before.
    result = _write(spark, path, [(k, "2024-01-01", 4, "v0") for k in _minute_keys(4)], options)
    stats = _lookup(result)
    assert (stats.candidate_files, stats.footers_read) == (old_files, 3)
    assert (stats.files_range_matched, stats.bloom_filters_loaded, stats.keys_checked) == (0, 0, 0)
    assert (result.num_updated, result.num_inserted) == (0, 90)
    newest = _file_ids(result)

    # Late updates of the newest hour plus a new hour: only the newest files' filters are opened.
    late = [(k, "2024-01-01", 5, "late") for k in _minute_keys(4)[:12]]
    fresh = [(k, "2024-01-01", 5, "v0") for k in _minute_keys(5, devices=1)]
    result = _write(spark, path, late + fresh, options)
    stats = _lookup(result)
    assert stats.candidate_files == old_files + len(newest)
    assert 0 < stats.bloom_filters_loaded <= len(newest)
    assert stats.loaded_file_ids <= newest
    assert stats.keys_confirmed == len(late)
    assert (result.num_updated, result.num_inserted) == (len(late), len(fresh))

    rows = _rows(spark, path)
    assert len(rows) == 5 * 90 + len(fresh)
    assert sum(1 for _, _, v in rows.values() if v == "late") == len(late)


def test_bloom_without_range_pruning_checks_every_file(spark: Any, tmp_path: Path) -> None:
    options = _options(**{"hoodie.bloom.index.prune.by.ranges": "false"})
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i:03d}", "a", 1, "old") for i in range(10)], options)
    _write(spark, path, [(f"z{i:03d}", "a", 1, "old") for i in range(10)], options)

    result = _write(spark, path, [("k001", "a", 2, "new"), ("zz", "a", 2, "ins")], options)
    stats = _lookup(result)
    assert stats.footers_read == 0
    assert stats.files_range_matched == stats.bloom_filters_loaded == stats.candidate_files == 2
    assert (result.num_updated, result.num_inserted) == (1, 1)
    assert len(_rows(spark, path)) == 21


def test_bloom_delete_removes_found_keys(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i:03d}", "a" if i % 2 else "b", 1, "old") for i in range(10)], _options())

    gone = [(f"k{i:03d}", "a" if i % 2 else "b", 2, "x") for i in (1, 2, 3)] + [("nope", "a", 2, "x")]
    result = _write(spark, path, gone, _options(**{"hoodie.datasource.write.operation": "delete"}))

    assert result.num_deleted == 3
    assert sorted(_rows(spark, path)) == [f"k{i:03d}" for i in range(10) if i not in (1, 2, 3)]


@pytest.mark.parametrize("move", [True, False], ids=["move", "keep"])
def test_global_bloom_key_changing_partition(spark: Any, tmp_path: Path, move: bool) -> None:
    options = _options(**{"hoodie.index.type": "GLOBAL_BLOOM",
                          "hoodie.bloom.index.update.partition.path": str(move).lower()})
    path = tmp_path / "t"
    _write(spark, path, [("k1", "a", 1, "old"), ("k2", "a", 1, "old"), ("k3", "b", 1, "old")], options)

    result = _write(spark, path, [("k1", "b", 2, "new"), ("k4", "b", 2, "ins")], options)

    stats = _lookup(result)
    assert stats.candidate_files == 2  # every partition, not only the batch's
    assert stats.keys_confirmed == 1
    rows = _rows(spark, path)
    assert set(rows) == {"k1", "k2", "k3", "k4"}
    assert rows["k1"] == ("b" if move else "a", 2, "new")
    assert rows["k4"] == ("b", 2, "ins")
    if move:
        assert (result.num_deleted, result.num_inserted, result.num_updated) == (1, 2, 0)
    else:
        assert (result.num_deleted, result.num_inserted, result.num_updated) == (0, 1, 1)


def test_bloom_without_meta_fields_falls_back_to_simple(spark: Any, tmp_path: Path) -> None:
    options = _options(**{"hoodie.populate.meta.fields": "false"})
    path = tmp_path / "t"
    _write(spark, path, [(f"k{i}", "a", 1, "old") for i in range(5)], options)

    result = _write(spark, path, [("k1", "a", 2, "new"), ("k9", "a", 2, "ins")], options)

    assert _lookup(result).candidate_files == 0
    assert (result.num_updated, result.num_inserted) == (1, 1)
    data = {r["id"]: r["v"] for r in hudi_sql.read(spark, str(path)).select("id", "v").collect()}
    assert data == {"k0": "old", "k1": "new", "k2": "old", "k3": "old", "k4": "old", "k9": "ins"}
