"""Several writer processes on one table: optimistic concurrency, refusals, lazy rollback of a killed writer.

Each writer is a real process with its own local SparkSession running ``hudi_sql.write``
(``bench/stress_writer.py``, driven by :mod:`bench.stress`); they share the table through the file system and the
file-system lock provider. Data is small, so the time goes to starting the processes; the
whole module stays under two minutes on two cores. Every scenario prints its figures
(trials, commits, conflicts, lost updates, invariant violations); lost updates and
violations must be 0.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from table_helpers import our_table

import hudi_sql
from bench.stress import (
    BASE_OPTIONS,
    OCC_OPTIONS,
    Figures,
    Writer,
    check,
    run_together,
    rust_rows,
    seed,
    writer_spec,
)
from hudi_sql.commit.heartbeat import heartbeat_path
from hudi_sql.model.instant import Action
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = [pytest.mark.spark, pytest.mark.concurrency]


def _check(spark: Any, table: Path, outcomes: list[dict[str, Any]], ids_of: dict[str, list[int]],
           label: str) -> Figures:
    """The invariants of :func:`bench.stress.check` hold; the figures are printed."""
    verdict = check(spark, table, outcomes, ids_of)
    print(f"[concurrency:{label}] {verdict.figures.line()}")
    assert not verdict.violations, verdict.violations
    assert not verdict.lost, verdict.lost
    return verdict.figures


def test_occ_writers_overlapping_groups_conflict_disjoint_partition_all_land_no_lost_update(
        spark: Any, tmp_path: Path) -> None:
    """Writers a and b upsert the same keys (same file groups); c upserts its own partition."""
    table = tmp_path / "table"
    shared, own = list(range(20)), list(range(20, 30))
    partition_of = {i: "p0" if i < 20 else "p1" for i in range(30)}
    seed(spark, table, shared + own, partition_of)
    # Each write holds its instant inflight for a while, so the writes overlap in time.
    specs = [writer_spec("a", shared, partition_of, OCC_OPTIONS, hold_ms=1500),
             writer_spec("b", shared, partition_of, OCC_OPTIONS, hold_ms=1500),
             writer_spec("c", own, partition_of, OCC_OPTIONS, hold_ms=1500)]
    outcomes = run_together(table, tmp_path, specs)
    figures = _check(spark, table, outcomes, {"a": shared, "b": shared, "c": own}, "occ")
    assert [o["status"] for o in outcomes if o["writer"] == "c"] == ["committed", "committed"], outcomes
    assert figures.conflicts >= 1, outcomes
    for o in outcomes:
        if o["status"] == "conflict":
            assert o["writer"] in ("a", "b") and "file group" in o["error"] and "while" in o["error"], o
    # The losers' instants were rolled back, each recorded by a rollback instant.
    meta = TableMetaClient.load(str(table))
    assert len(meta.timeline.completed().with_actions(Action.ROLLBACK)) == figures.conflicts


def test_single_writer_default_second_live_writer_refused_naming_instant(spark: Any, tmp_path: Path) -> None:
    table = tmp_path / "table"
    ids = list(range(10))
    partition_of = {i: "p0" for i in ids}
    seed(spark, table, ids, partition_of)
    first = Writer(table, tmp_path / "state-a", writer_spec("a", ids, partition_of, BASE_OPTIONS, rounds=1, hold_ms=20000))
    try:
        live = first.read_until("inflight")["inflight"]
        df = spark.createDataFrame([(1, "second", 9, "p0")], "id int, v string, ts int, p string")
        from hudi_sql.errors import ConcurrentWriterError

        with pytest.raises(ConcurrentWriterError, match=f"instant {live} .*live heartbeat"):
            hudi_sql.write(df, str(table), BASE_OPTIONS)
        meta = TableMetaClient.load(str(table))
        assert meta.timeline.pending_writes().times() == [live], "the live instant was touched"
        assert not meta.timeline.completed().with_actions(Action.ROLLBACK).instants
    finally:
        first.kill()


def _seed_and_start_victim(spark: Any, tmp_path: Path, options: dict[str, str],
                           **hold: int) -> tuple[Path, list[int], Writer]:
    """A table of ids 0-9 (p0: 0-4, p1: 5-9) and a writer process upserting p0 once, held as *hold* says."""
    table = tmp_path / "table"
    ids = list(range(10))
    partition_of = {i: "p0" if i < 5 else "p1" for i in ids}
    seed(spark, table, ids, partition_of)
    spec = writer_spec("v", ids[:5], partition_of, options, rounds=1, **hold)
    return table, ids, Writer(table, tmp_path / "state-v", spec)


def test_killed_writer_instant_rolled_back_lazily_after_heartbeat_expired(spark: Any, tmp_path: Path) -> None:
    table, _, victim = _seed_and_start_victim(spark, tmp_path, OCC_OPTIONS, hold_ms=60000)
    try:
        dead = victim.read_until("inflight")["inflight"]
    finally:
        victim.kill()
    beat = Path(heartbeat_path(TableMetaClient.load(str(table)).layout, dead))
    assert beat.exists()
    # Right after the kill the heartbeat is fresh: a LAZY writer leaves the instant alone.
    from hudi_sql.commit.rollback import rollback_failed_writes
    from hudi_sql.config.resolve import Resolved

    options = Resolved.of(OCC_OPTIONS)
    expiry = options.concurrency.heartbeat_expiry_seconds
    meta = TableMetaClient.load(str(table))
    if time.time() - beat.stat().st_mtime < expiry - 0.2:
        assert rollback_failed_writes(meta, options) == [], "rolled back before its heartbeat expired"
        assert dead in TableMetaClient.load(str(table)).timeline.pending_writes().times()
        early_checks = 1
    else:  # the machine was too slow to look inside the window; the late half still runs
        early_checks = 0
    other = spark.createDataFrame([(7, "other", 5, "p1")], "id int, v string, ts int, p string")
    time.sleep(expiry + 0.5)
    hudi_sql.write(other, str(table), OCC_OPTIONS)
    meta = TableMetaClient.load(str(table))
    assert dead not in meta.timeline.pending_writes().times()
    rollbacks = meta.timeline.completed().with_actions(Action.ROLLBACK)
    assert any(dead in json.dumps(meta.rollback_metadata(r.instant_time)["commitsRollback"]) for r in rollbacks)
    assert not beat.exists()
    assert not [p for p in table.rglob("*.parquet") if dead in p.name]
    rows = {r["id"]: r["v"] for r in our_table(spark, str(table)).to_pylist()}
    assert rows[7] == "other" and rows[0] == "seed"
    print(f"[concurrency:killed] trials=1 early_checks={early_checks} rolled_back_after_expiry=1 "
          "lost_updates=0 invariant_violations=0")


def test_writer_killed_holding_the_lock_next_writer_takes_it_after_expiry(spark: Any, tmp_path: Path) -> None:
    """SIGKILL a writer while it holds the file-system lock (completing its commit): the lock
    file stays. While it is younger than ``hoodie.write.lock.filesystem.expire`` (1 minute,
    Apache Hudi's unit) the next writer does not take it: one that waits only briefly is refused,
    naming the dead holder, and the table is unchanged. Once the file is older (its modification
    time set back a minute, rather than a minute waited), the next writer takes the lock over,
    rolls the dead instant back (its heartbeat expired) and commits."""
    from hudi_sql.config import HudiConfigs
    from hudi_sql.config.concurrency import ConcurrencyConfig, HudiConcurrencyConfig
    from hudi_sql.errors import LockTimeoutError

    expiring = {**OCC_OPTIONS, HudiConcurrencyConfig.FILESYSTEM_LOCK_EXPIRE.key: "1"}
    table, ids, victim = _seed_and_start_victim(spark, tmp_path, expiring, hold_lock_ms=600_000)
    try:
        dead = victim.read_until("locked")["locked"].split()[-1]
    finally:
        victim.kill()
    lock_file = Path(TableMetaClient.load(str(table)).layout.meta_path, "lock")
    assert lock_file.exists() and json.loads(lock_file.read_text())["purpose"] == f"complete {dead}"
    timeline_before = sorted(p.name for p in lock_file.parent.iterdir() if p.is_file())

    df = spark.createDataFrame([(7, "after", 5, "p1")], "id int, v string, ts int, p string")
    impatient = {**expiring, HudiConcurrencyConfig.LOCK_WAIT_TIME_MS.key: "1500",
                 HudiConcurrencyConfig.LOCK_CLIENT_NUM_RETRIES.key: "0"}
    with pytest.raises(LockTimeoutError, match=f"complete {dead}"):
        hudi_sql.write(df, str(table), impatient)
    assert lock_file.exists(), "a lock younger than its expiry was taken over"
    assert sorted(p.name for p in lock_file.parent.iterdir() if p.is_file()) == timeline_before

    minute_ago = time.time() - 61
    os.utime(lock_file, (minute_ago, minute_ago))
    expiry = ConcurrencyConfig.of(HudiConfigs.of(expiring)).heartbeat_expiry_seconds
    beat = Path(heartbeat_path(TableMetaClient.load(str(table)).layout, dead))
    if beat.exists():  # the dead writer's heartbeat expires within the (short) expiry of these options
        time.sleep(max(0.0, beat.stat().st_mtime + expiry + 0.2 - time.time()))
    started = time.monotonic()
    result = hudi_sql.write(df, str(table), expiring)
    waited = time.monotonic() - started
    print(f"[concurrency:lock-holder-killed] waited={waited:.1f}s lost_updates=0 invariant_violations=0")
    assert result.instant_time is not None
    meta = TableMetaClient.load(str(table))
    assert dead not in meta.timeline.completed_writes().times()
    assert dead not in meta.timeline.pending_writes().times()
    assert not lock_file.exists()
    rows = {r["id"]: r["v"] for r in our_table(spark, str(table)).to_pylist()}
    assert rows == {**{i: "seed" for i in ids}, 7: "after"}


def test_writer_process_beside_compaction_clean_and_clustering_loses_nothing(spark: Any, tmp_path: Path) -> None:
    """A Merge-On-Read table: a writer process upserts its partition (p1) round after round while
    this process compacts, cleans and clusters the table, all under optimistic concurrency with
    the file-system lock. Every read in between sees each key once; a service that overlaps the
    writer either commits or fails cleanly; no acknowledged update is lost."""
    from hudi_sql.errors import CommitConflictError, ConcurrentWriterError
    from hudi_sql.services.clean import clean
    from hudi_sql.services.clustering import cluster

    table = tmp_path / "table"
    shared, own = list(range(20)), list(range(20, 30))
    partition_of = {i: "p0" if i < 20 else "p1" for i in shared + own}
    mor = {**OCC_OPTIONS, "hoodie.datasource.write.table.type": "MERGE_ON_READ",
           "hoodie.cleaner.commits.retained": "1"}
    rows = [(i, "seed", 0, partition_of[i]) for i in shared + own]
    hudi_sql.write(spark.createDataFrame(rows, "id int, v string, ts int, p string"), str(table), mor)
    for version in (1, 2):  # log files in p0 for the compaction
        rows = [(i, f"main-{version}", version, "p0") for i in shared]
        hudi_sql.write(spark.createDataFrame(rows, "id int, v string, ts int, p string"), str(table), mor)

    go = tmp_path / "go"
    # A clustering of p1 completing while the writer works conflicts with it; the writer retries.
    # A write starting while that clustering is pending is refused up front (Apache Hudi's reject
    # strategy); the writer's job then tries again, as a scheduled job would.
    retrying = {**mor, "hoodie.write.num.retries.on.conflict.failures": "10"}
    writer = Writer(table, tmp_path / "state-w", writer_spec("w", own, partition_of, retrying, rounds=3,
                                                              hold_ms=1500, start_file=go, clustering_waits=40))
    services: dict[str, list[str]] = {}
    reads = 0
    try:
        writer.read_until("ready")
        go.touch()
        while writer.proc.poll() is None and reads < 12:
            for name, run in (("compaction", lambda: hudi_sql.compact(spark, str(table), mor)),
                              ("clean", lambda: clean(str(table), mor, spark=spark).plan),
                              ("clustering", lambda: cluster(spark, str(table), mor))):
                try:
                    services.setdefault(name, []).append("committed" if run() else "nothing to do")
                except (CommitConflictError, ConcurrentWriterError) as exc:
                    services.setdefault(name, []).append(f"failed cleanly: {exc}")
                keys = our_table(spark, str(table)).column("id").to_pylist()
                assert sorted(keys) == shared + own, f"a read after {name} saw {len(keys)} rows"
                rust = rust_rows(table)
                assert rust is None or [k for k, _ in rust] == shared + own, f"the Rust reader after {name}"
                reads += 1
        outcomes = writer.finish()
    finally:
        writer.kill()
    assert [o["status"] for o in outcomes] == ["committed"] * 3, outcomes
    verdict = check(spark, table, outcomes, {"w": own})
    meta = TableMetaClient.load(str(table))
    compactions = meta.timeline.completed().with_actions(Action.COMMIT).instants
    blocked = sum("blocked" in line for line in writer.lines)
    print(f"[concurrency:services] {verdict.figures.line()} reads={reads} services={services} "
          f"completed_compactions={len(compactions)} writes_blocked_by_clustering={blocked}")
    assert not verdict.violations and not verdict.lost, (verdict.violations, verdict.lost)
    assert not meta.timeline.pending().instants, meta.timeline.pending().instants
    # Compaction (of p0's logs) and clustering always have work in the first round beside the
    # writer; whether a clean has files to delete then depends on how far the writer got.
    assert all("committed" in services[name] for name in ("compaction", "clustering")), services
    rows_now = {r["id"]: r["v"] for r in our_table(spark, str(table)).to_pylist()}
    assert all(rows_now[i] == "main-2" for i in shared), rows_now
