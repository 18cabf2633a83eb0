"""The Hive metastore lock provider against a real metastore (from the PySpark wheel's jars).

Writers name ``HiveMetastoreBasedLockProvider`` with a database and table; the metastore's
table lock then orders their timeline transitions, whichever process or host they run in, and
whoever else (an Apache Hudi writer naming the same pair) takes that lock.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from process_helpers import start_hive_metastore, stop_process_group, wait_for_port
from table_helpers import our_table

import hudi_sql
from bench.stress import BASE_OPTIONS, OCC_OPTIONS, check, run_together, seed, writer_spec
from hudi_sql.commit.hive_metastore_lock import HiveMetastoreLockProvider
from hudi_sql.config import HudiConfigs
from hudi_sql.config.concurrency import HIVE_METASTORE_LOCK_PROVIDER, ConcurrencyConfig, HudiConcurrencyConfig
from hudi_sql.errors import LockTimeoutError
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = [pytest.mark.spark, pytest.mark.concurrency]
_C = HudiConcurrencyConfig


@pytest.fixture(scope="module")
def metastore_uris(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("hms-locks")
    port, proc, log = start_hive_metastore(work, dict(os.environ), locks=True)
    try:
        wait_for_port(port, proc, log, 180)
        yield f"thrift://127.0.0.1:{port}"
    finally:
        stop_process_group(proc)


def _lock_options(uris: str, table: str, **extra: str) -> dict[str, str]:
    return {**OCC_OPTIONS, _C.LOCK_PROVIDER.key: HIVE_METASTORE_LOCK_PROVIDER,
            _C.HIVE_METASTORE_DATABASE.key: "default", _C.HIVE_METASTORE_TABLE.key: table,
            _C.HIVE_METASTORE_URIS.key: uris, **extra}


def _locks_on(spark: Any, uris: str, table: str) -> list[Any]:
    """The metastore's locks on default.<table>, as ``SHOW LOCKS`` lists them."""
    jvm = spark.sparkContext._jvm
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    conf.set("hive.metastore.uris", uris)
    client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
    try:
        request = jvm.org.apache.hadoop.hive.metastore.api.ShowLocksRequest()
        request.setDbname("default")
        request.setTablename(table)
        return list(client.showLocks(request).getLocks())
    finally:
        client.close()


def test_write_waits_for_the_metastore_lock_and_times_out_naming_its_holder(
        spark: Any, tmp_path: Path, metastore_uris: str) -> None:
    table = tmp_path / "t"
    seed(spark, table, [1, 2], {1: "p0", 2: "p0"})
    before = TableMetaClient.load(str(table)).timeline.instants
    options = _lock_options(metastore_uris, "trips_a", **{
        _C.LOCK_WAIT_TIME_MS.key: "1000", _C.LOCK_CLIENT_NUM_RETRIES.key: "1",
        _C.LOCK_CLIENT_RETRY_WAIT_MS.key: "200", _C.LOCK_RETRY_WAIT_MS.key: "100"})
    other = HiveMetastoreLockProvider(ConcurrencyConfig.of(HudiConfigs.of(options)))  # another writer
    assert other.try_lock(5, "other writer commit")
    df = spark.createDataFrame([(1, "new", 5, "p0")], "id int, v string, ts int, p string")
    try:
        with pytest.raises(LockTimeoutError, match=r"held by Hive metastore lock \d+ of .*other writer commit"):
            hudi_sql.write(df, str(table), options)
        assert TableMetaClient.load(str(table)).timeline.instants == before, "the refused write touched the timeline"
        # The refused writer withdrew its queued requests: only the holder's lock is left.
        assert [str(lock.getState()) for lock in _locks_on(spark, metastore_uris, "trips_a")] == ["ACQUIRED"]
    finally:
        other.unlock()
    hudi_sql.write(df, str(table), options)
    assert {r["id"]: r["v"] for r in our_table(spark, str(table)).to_pylist()} == {1: "new", 2: "seed"}
    assert _locks_on(spark, metastore_uris, "trips_a") == [], "a lock was left behind"


def test_held_metastore_lock_is_renewed_until_released(spark: Any, metastore_uris: str) -> None:
    options = _lock_options(metastore_uris, "trips_b", **{_C.LOCK_HEARTBEAT_INTERVAL_MS.key: "200"})
    provider = HiveMetastoreLockProvider(ConcurrencyConfig.of(HudiConfigs.of(options)))
    assert provider.try_lock(5, "long commit")
    try:
        time.sleep(1.0)
        (held,) = _locks_on(spark, metastore_uris, "trips_b")
        assert held.getLastheartbeat() - held.getAcquiredat() >= 400, "the lock was not renewed"
    finally:
        provider.unlock()
    assert _locks_on(spark, metastore_uris, "trips_b") == []


def test_writer_processes_sharing_the_metastore_lock_conflict_cleanly_and_lose_no_update(
        spark: Any, tmp_path: Path, metastore_uris: str) -> None:
    """Writers a and b (separate processes) upsert the same keys, held inflight so that they
    overlap, with the metastore as their only lock: the later of each conflicting pair fails,
    nothing acknowledged is lost."""
    table = tmp_path / "table"
    shared = list(range(20))
    partition_of = {i: "p0" for i in shared}
    seed(spark, table, shared, partition_of)
    options = _lock_options(metastore_uris, "trips_c")
    specs = [writer_spec(w, shared, partition_of, options, hold_ms=1500) for w in ("a", "b")]
    outcomes = run_together(table, tmp_path, specs)
    verdict = check(spark, table, outcomes, {"a": shared, "b": shared})
    print(f"[concurrency:hms-lock] {verdict.figures.line()}")
    assert not verdict.violations and not verdict.lost, (verdict.violations, verdict.lost)
    assert verdict.figures.commits >= 1 and verdict.figures.conflicts >= 1, outcomes
    assert _locks_on(spark, metastore_uris, "trips_c") == []
    assert BASE_OPTIONS.items() <= options.items()
