"""Smoke test of the benchmark harness (``bench/``): a reduced small scale, correctness only.

It runs ``python -m bench.run`` as CI would (each system in its own process, two at a time, so the shared
test SparkSession is not used), once per session for these tests and the oracle's benchmark-peer
test together (``small_bench_run`` in ``tests/conftest.py``), and asserts that every final table
holds the expected rows; ``python -m bench.metadata_table`` likewise.
No timing is asserted. The runs start processes of their own (a JVM per system, over three minutes
in all), so they are in the ``processes`` group; the generator checks stay in the default suite. delta-rs runs only when the optional ``deltalake`` package is there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from bench_runs import BASELINES, HAS_DELTALAKE, REPO, not_run, result_of, run_bench

from bench.checksum import checksum_batches
from bench.generate import batch_rows, day_rows
from bench.workload import Scale

TINY = Scale("tiny", rows_per_day=500, days=2, batches=2)


def test_generator_same_seed_same_rows() -> None:
    assert day_rows(TINY, 1).equals(day_rows(TINY, 1))
    assert batch_rows(TINY, 2).equals(batch_rows(TINY, 2))


def test_generator_batch_updates_previous_day_with_later_event_ts() -> None:
    batch = batch_rows(TINY, 1)
    previous = day_rows(TINY, TINY.days - 1)
    updates = batch.slice(0, round(TINY.rows_per_day * TINY.update_fraction))
    original = dict(zip(previous["record_key"].to_pylist(), previous["event_ts"].to_pylist(), strict=True))
    later = zip(updates["record_key"].to_pylist(), updates["event_ts"].to_pylist(), strict=True)
    assert all(ts > original[key] for key, ts in later)
    assert batch.num_rows == TINY.rows_per_day + updates.num_rows
    keys = day_rows(TINY, 0)["record_key"].to_pylist()
    assert keys == sorted(keys)  # monotonically increasing keys


def test_update_heavy_batches_update_a_fifth_of_every_day_later_than_the_batch_before() -> None:
    heavy = TINY.with_workload("update_heavy")
    first, second = batch_rows(heavy, 1), batch_rows(heavy, 2)
    original = {key: ts for day in range(heavy.days)
                for key, ts in zip(day_rows(heavy, day)["record_key"].to_pylist(),
                                   day_rows(heavy, day)["event_ts"].to_pylist(), strict=True)}

    assert first.num_rows == second.num_rows == heavy.days * round(heavy.rows_per_day * 0.2)
    assert set(first["record_key"].to_pylist()) <= set(original), "updates only: no new keys"
    assert set(first["day"].to_pylist()) == {day_rows(heavy, d)["day"][0].as_py() for d in range(heavy.days)}
    assert all(ts > original[key] for key, ts in zip(first["record_key"].to_pylist(),
                                                      first["event_ts"].to_pylist(), strict=True))
    first_ts = dict(zip(first["record_key"].to_pylist(), first["event_ts"].to_pylist(), strict=True))
    assert all(ts > first_ts[key] for key, ts in zip(second["record_key"].to_pylist(),
                                                      second["event_ts"].to_pylist(), strict=True)
               if key in first_ts), "a later batch wins over an earlier one"
    assert heavy.rows_final == heavy.rows_per_day * heavy.days


def test_checksum_row_order_does_not_matter() -> None:
    rows = day_rows(TINY, 0)
    reversed_rows = rows.take(pa.array(range(rows.num_rows - 1, -1, -1)))
    assert checksum_batches([rows]) == checksum_batches(reversed_rows.to_batches(max_chunksize=7))
    assert checksum_batches([rows]) != checksum_batches([rows.slice(1)])


@pytest.mark.spark
@pytest.mark.processes
def test_bench_small_every_table_has_the_expected_rows(small_bench_run: dict[str, Any]) -> None:
    correctness = small_bench_run["correctness"]
    failures = not_run(small_bench_run)
    assert not failures, f"systems did not run: {failures}\n{small_bench_run['stderr'][-4000:]}"
    assert correctness["ok"], correctness["detail"]
    assert small_bench_run["exit_code"] == 0
    expected = correctness["expected"]["base"]
    assert expected["count"] == 5000 * (2 + 2)
    for system in BASELINES:
        result = result_of(small_bench_run, system)
        assert result["final"] == expected, system
        assert [b["rows_after"] for b in result["batches"]] == [15000, 20000], system
    assert "| system |" in small_bench_run["stdout"]


@pytest.mark.spark
@pytest.mark.processes
def test_bench_small_deltars_agrees(small_bench_run: dict[str, Any]) -> None:
    if not HAS_DELTALAKE:
        pytest.skip(
            "delta-rs peer not run: the optional 'deltalake' package is not installed "
            "(pip install 'hudi-sql[bench]')"
        )
    result = result_of(small_bench_run, "deltars")
    assert result["status"] == "ok", result.get("message")
    assert result["final"] == small_bench_run["correctness"]["expected"]["base"]


@pytest.mark.spark
@pytest.mark.processes
def test_bench_update_heavy_workload_ends_with_the_expected_rows(tmp_path: Path) -> None:
    systems = ["hudi_mor", "hudi_sql_merge_partial"]
    run = run_bench(tmp_path, systems, "--workload", "update_heavy", batches=1)  # a batch updates every day

    failures = not_run(run)
    assert not failures, f"systems did not run: {failures}\n{run['stderr'][-4000:]}"
    assert run["correctness"]["ok"], run["correctness"]["detail"]
    expected = run["correctness"]["expected"]["base"]
    assert expected["count"] == 5000 * 2  # updates only
    for system in systems:
        result = result_of(run, system)
        assert result["final"] == expected, system
        assert [b["rows_after"] for b in result["batches"]] == [10000], system


@pytest.mark.spark
@pytest.mark.processes
def test_bench_metadata_table_reads_fewer_files_with_data_skipping_and_both_indexes_agree(tmp_path: Path) -> None:
    out = tmp_path / "results-metadata.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bench.metadata_table", "--scale", "small", "--rows-per-day", "5000",
         "--days", "3", "--batches", "2", "--work-dir", str(tmp_path), "--out", str(out)],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = json.loads(out.read_text())

    footers, metadata = (run["variants"][v]["batches"][1:] for v in ("footers", "metadata"))
    assert [b["footers_read"] > 0 for b in footers] == [True, True]
    assert [b["footers_read"] for b in metadata] == [0, 0]
    assert [(b["updated"], b["inserted"]) for b in footers] == [(b["updated"], b["inserted"]) for b in metadata]
    assert run["expected"]["count"] == 5000 * 5  # three days loaded, two batches each adding a day
    query = run["query"]
    assert query["with"]["rows"] == query["without"]["rows"]
    assert query["with"]["files_read"] < query["without"]["files_read"]


@pytest.mark.spark
@pytest.mark.processes
def test_bench_object_store_upserts_in_the_bucket_list_no_partition_and_end_with_the_local_tables_rows(
        tmp_path: Path) -> None:
    from tools.s3.seaweedfs import unavailable_reason

    if unavailable_reason():
        pytest.skip(str(unavailable_reason()))
    out = tmp_path / "results-s3.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bench.object_store", "--scale", "small", "--rows-per-day", "2000", "--days", "2",
         "--batches", "1", "--work-dir", str(tmp_path), "--out", str(out)],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    stores = json.loads(out.read_text())["stores"]
    assert stores["s3"]["rows"] == stores["local"]["rows"] == 2000 * 3
    upsert = stores["s3"]["commits"][-1]
    assert upsert["operation"] == "upsert" and upsert["partition_listings"] == []
    assert upsert["requests"]["PUT"] > 0 and upsert["requests"]["LIST"] > 0, upsert
    assert "| 1 upsert |" in proc.stdout
