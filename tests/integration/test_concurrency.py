"""Several writer processes on one table: optimistic concurrency, refusals, lazy rollback of a killed writer.

Each writer is a real process with its own local SparkSession running ``hudi_sql.write``
(``drivers/concurrent_writer.py``); they share the table through the file system and the
file-system lock provider. Data is small, so the time goes to starting the processes; the
whole module stays under two minutes on two cores. Every scenario prints its figures
(trials, commits, conflicts, lost updates, invariant violations); lost updates and
violations must be 0.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from table_helpers import our_table, rows_of, rust_table

import hudi_sql
from hudi_sql.commit.heartbeat import heartbeat_path
from hudi_sql.config import HudiTableConfig, HudiWriteConfig
from hudi_sql.config.concurrency import FILE_SYSTEM_LOCK_PROVIDER, HudiConcurrencyConfig
from hudi_sql.model.instant import Action
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = [pytest.mark.spark, pytest.mark.concurrency]

DRIVER = Path(__file__).parent / "drivers" / "concurrent_writer.py"
ROOT = Path(__file__).resolve().parents[2]
C = HudiConcurrencyConfig

BASE_OPTIONS = {
    HudiTableConfig.NAME.key: "conc_t",
    HudiWriteConfig.RECORD_KEY_FIELDS.key: "id",
    HudiWriteConfig.PARTITION_PATH_FIELDS.key: "p",
    HudiWriteConfig.PRECOMBINE_FIELD.key: "ts",
}
OCC_OPTIONS = {
    **BASE_OPTIONS,
    C.CONCURRENCY_MODE.key: "OPTIMISTIC_CONCURRENCY_CONTROL",
    C.LOCK_PROVIDER.key: FILE_SYSTEM_LOCK_PROVIDER,
    C.LOCK_WAIT_TIME_MS.key: "60000",
    C.LOCK_RETRY_WAIT_MS.key: "20",
    C.HEARTBEAT_INTERVAL_MS.key: "1000",
}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["PYSPARK_PYTHON"] = sys.executable
    return env


class Writer:
    """One writer process; its JSON lines are read as they come."""

    def __init__(self, table: Path, state: Path, spec: dict[str, Any]) -> None:
        self.name = spec["writer"]
        self.proc = subprocess.Popen(
            [sys.executable, str(DRIVER), str(table), str(state), json.dumps(spec)], env=_env(),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.lines: list[dict[str, Any]] = []

    def read_until(self, key: str, timeout: float = 90) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"writer {self.name} ended early: {self.proc.stderr.read()[-3000:]}")
            if line.startswith("{"):
                record = json.loads(line)
                self.lines.append(record)
                if key in record:
                    return record
        raise AssertionError(f"writer {self.name} printed no '{key}' in {timeout}s")

    def finish(self, timeout: float = 120) -> list[dict[str, Any]]:
        out, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, f"writer {self.name} failed: {err[-3000:]}"
        self.lines += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        return [r for r in self.lines if "status" in r]

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the writer and its JVM, at once
        self.proc.wait(timeout=30)


def _spec(writer: str, ids: list[int], partition_of: dict[int, str], options: dict[str, str], *,
          rounds: int = 2, start_file: Path | None = None, hold_ms: int = 0) -> dict[str, Any]:
    return {"writer": writer, "rounds": rounds, "ids": ids, "partition_of": {str(i): p for i, p in partition_of.items()},
            "options": options, "start_file": str(start_file) if start_file else None, "hold_ms": hold_ms}


def _run_together(table: Path, tmp: Path, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    go = tmp / "go"
    writers = [Writer(table, tmp / f"state-{s['writer']}", {**s, "start_file": str(go)}) for s in specs]
    try:
        for w in writers:
            w.read_until("ready")
        go.touch()
        return [r for w in writers for r in w.finish()]
    finally:
        for w in writers:
            w.kill()


def _seed(spark: Any, table: Path, ids: list[int], partition_of: dict[int, str]) -> str:
    df = spark.createDataFrame([(i, "seed", 0, partition_of[i]) for i in ids], "id int, v string, ts int, p string")
    result = hudi_sql.write(df, str(table), BASE_OPTIONS)
    assert result.instant_time
    return result.instant_time


def _check(spark: Any, table: Path, outcomes: list[dict[str, Any]], ids_of: dict[str, list[int]],
           label: str) -> dict[str, int]:
    """The invariants after a run, and the figures the run prints.

    * every acknowledged commit is a completed instant, and no failed one is;
    * no lost update: each key holds the value of the latest committed write of it (a later
      committed write saw every earlier one, else it would have conflicted);
    * both readers read the same complete snapshot, one row per key.
    """
    meta = TableMetaClient.load(str(table))
    completed = set(meta.timeline.completed_writes().times())
    committed = [o for o in outcomes if o["status"] == "committed"]
    violations = [f"acknowledged {o['instant']} not completed" for o in committed if o["instant"] not in completed]
    violations += [f"pending instant left: {i}" for i in meta.timeline.pending_writes().times()]
    latest: dict[int, tuple[str, str]] = {}
    for o in committed:
        for i in ids_of[o["writer"]]:
            if i not in latest or o["instant"] > latest[i][0]:
                latest[i] = (o["instant"], o["value"])
    ours = our_table(spark, str(table))
    rows = {r["id"]: r["v"] for r in ours.to_pylist()}
    if len(rows) != ours.num_rows:
        violations.append(f"duplicate keys: {ours.num_rows} rows for {len(rows)} keys")
    lost = [i for i, (_, value) in latest.items() if rows.get(i) != value]
    if rows_of(ours) != rows_of(rust_table(str(table))):
        violations.append("our reader and the Rust reader disagree")
    figures = {"trials": len(outcomes), "commits": len(committed),
               "conflicts": sum(o["status"] == "conflict" for o in outcomes),
               "refused": sum(o["status"] == "refused" for o in outcomes),
               "lost_updates": len(lost), "invariant_violations": len(violations)}
    print(f"[concurrency:{label}] " + " ".join(f"{k}={v}" for k, v in figures.items()))
    assert not violations, violations
    assert not lost, {i: (rows.get(i), latest[i]) for i in lost}
    return figures


def test_occ_writers_overlapping_groups_conflict_disjoint_partition_all_land_no_lost_update(
        spark: Any, tmp_path: Path) -> None:
    """Writers a and b upsert the same keys (same file groups); c upserts its own partition."""
    table = tmp_path / "table"
    shared, own = list(range(20)), list(range(20, 30))
    partition_of = {i: "p0" if i < 20 else "p1" for i in range(30)}
    _seed(spark, table, shared + own, partition_of)
    # Each write holds its instant inflight for a while, so the writes overlap in time.
    specs = [_spec("a", shared, partition_of, OCC_OPTIONS, hold_ms=1500),
             _spec("b", shared, partition_of, OCC_OPTIONS, hold_ms=1500),
             _spec("c", own, partition_of, OCC_OPTIONS, hold_ms=1500)]
    outcomes = _run_together(table, tmp_path, specs)
    figures = _check(spark, table, outcomes, {"a": shared, "b": shared, "c": own}, "occ")
    assert [o["status"] for o in outcomes if o["writer"] == "c"] == ["committed", "committed"], outcomes
    assert figures["conflicts"] >= 1, outcomes
    for o in outcomes:
        if o["status"] == "conflict":
            assert o["writer"] in ("a", "b") and "file group" in o["error"] and "while" in o["error"], o
    # The losers' instants were rolled back, each recorded by a rollback instant.
    meta = TableMetaClient.load(str(table))
    assert len(meta.timeline.completed().with_actions(Action.ROLLBACK)) == figures["conflicts"]


def test_single_writer_default_second_live_writer_refused_naming_instant(spark: Any, tmp_path: Path) -> None:
    table = tmp_path / "table"
    ids = list(range(10))
    partition_of = {i: "p0" for i in ids}
    _seed(spark, table, ids, partition_of)
    first = Writer(table, tmp_path / "state-a", _spec("a", ids, partition_of, BASE_OPTIONS, rounds=1, hold_ms=20000))
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


def test_killed_writer_instant_rolled_back_lazily_after_heartbeat_expired(spark: Any, tmp_path: Path) -> None:
    table = tmp_path / "table"
    ids = list(range(10))
    partition_of = {i: "p0" if i < 5 else "p1" for i in ids}
    _seed(spark, table, ids, partition_of)
    victim = Writer(table, tmp_path / "state-v", _spec("v", ids[:5], partition_of, OCC_OPTIONS, rounds=1,
                                                        hold_ms=60000))
    try:
        dead = victim.read_until("inflight")["inflight"]
    finally:
        victim.kill()
    beat = Path(heartbeat_path(TableMetaClient.load(str(table)).layout, dead))
    assert beat.exists()
    # Right after the kill the heartbeat is fresh: a LAZY writer leaves the instant alone.
    from hudi_sql.commit.rollback import rollback_failed_writes
    from hudi_sql.config import HudiConfigs
    from hudi_sql.config.concurrency import ConcurrencyConfig

    config = ConcurrencyConfig.of(HudiConfigs.of(OCC_OPTIONS))
    expiry = config.heartbeat_expiry_seconds
    meta = TableMetaClient.load(str(table))
    if time.time() - beat.stat().st_mtime < expiry - 0.2:
        assert rollback_failed_writes(meta, config) == [], "rolled back before its heartbeat expired"
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
