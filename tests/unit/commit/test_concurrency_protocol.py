"""The multi-writer commit protocol on a real table folder, driven without Spark.

Each test plays two writers against one table with the real :class:`Transaction`, locks and
heartbeats; data files are irrelevant to the decisions under test (conflicts, refusals,
lazy rollback), so the write stats name file groups without writing them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from hudi_sql.commit.heartbeat import Heartbeat, heartbeat_path, is_heartbeat_expired
from hudi_sql.commit.locks import FileSystemLockProvider, TableLock
from hudi_sql.commit.rollback import rollback_failed_writes, rollback_own_failed_write
from hudi_sql.commit.transaction import PlanSnapshot, Transaction, write_scope
from hudi_sql.config import HudiConfigs, HudiTableConfig
from hudi_sql.config.concurrency import (
    FILE_SYSTEM_LOCK_PROVIDER,
    ConcurrencyConfig,
    FailedWritesPolicy,
    HudiConcurrencyConfig,
    WriteConcurrencyMode,
)
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import CommitConflictError, ConcurrentWriterError, HudiConfigError, LockTimeoutError
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.instant import Action, State
from hudi_sql.table.meta_client import TableMetaClient, init_table

ROOT = Path(__file__).resolve().parents[3]
FAST = ConcurrencyConfig(heartbeat_interval_ms=100, heartbeat_tolerable_misses=2)
OCC = ConcurrencyConfig(mode=WriteConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL,
                        failed_writes=FailedWritesPolicy.LAZY, heartbeat_interval_ms=100, heartbeat_tolerable_misses=2)
FAST_OPTIONS = Resolved().given(concurrency=FAST)
OCC_OPTIONS = Resolved().given(concurrency=OCC)


@pytest.fixture
def meta(tmp_path: Path) -> TableMetaClient:
    return init_table(str(tmp_path / "t"), {HudiTableConfig.NAME.key: "t"})


def _metadata(*groups: tuple[str, str]) -> CommitMetadata:
    stats: dict[str, list[WriteStat]] = {}
    for partition, file_id in groups:
        stats.setdefault(partition, []).append(WriteStat(
            file_id=file_id, path=f"{partition}/{file_id}_0-0-0_x.parquet", partition_path=partition, num_writes=1))
    return CommitMetadata({p: tuple(s) for p, s in stats.items()}, "upsert")


def _commit(meta: TableMetaClient, options: Resolved, *groups: tuple[str, str], snapshot: PlanSnapshot | None = None,
            bucket_index: bool = False) -> str:
    txn = Transaction.begin(meta, Action.COMMIT, options, snapshot=snapshot, bucket_index=bucket_index)
    txn.start(_metadata())
    txn.complete(_metadata(*groups))
    return txn.instant_time


# -- configuration ---------------------------------------------------------------------------

def test_concurrency_config_occ_defaults_to_lazy_and_refuses_eager() -> None:
    occ = {HudiConcurrencyConfig.CONCURRENCY_MODE.key: "OPTIMISTIC_CONCURRENCY_CONTROL"}
    assert ConcurrencyConfig.of(HudiConfigs.of(occ)).failed_writes is FailedWritesPolicy.LAZY
    assert ConcurrencyConfig.of(HudiConfigs.of({})).failed_writes is FailedWritesPolicy.EAGER
    from hudi_sql.config import HudiWriteConfig

    with pytest.raises(HudiConfigError, match="LAZY"):
        ConcurrencyConfig.of(HudiConfigs.of({**occ, HudiWriteConfig.FAILED_WRITES_CLEANER_POLICY.key: "EAGER"}))


def test_hive_metastore_lock_provider_needs_the_database_and_table_it_locks() -> None:
    from hudi_sql.config.concurrency import HIVE_METASTORE_LOCK_PROVIDER

    c = HudiConcurrencyConfig
    chosen = {c.LOCK_PROVIDER.key: HIVE_METASTORE_LOCK_PROVIDER, c.HIVE_METASTORE_DATABASE.key: "db"}
    with pytest.raises(HudiConfigError, match="hoodie.write.lock.hivemetastore.table"):
        ConcurrencyConfig.of(HudiConfigs.of(chosen))
    config = ConcurrencyConfig.of(HudiConfigs.of({**chosen, c.HIVE_METASTORE_TABLE.key: "trips"}))
    assert (config.hive_metastore_database, config.hive_metastore_table) == ("db", "trips")


def test_storage_based_lock_lease_must_outlast_ten_renewals_and_needs_a_store_with_conditional_writes(
        meta: TableMetaClient) -> None:
    """Apache Hudi's checks: validity at least 10 x the renew interval (its deprecated name
    ``heartbeat.poll.secs`` still read) and at least 10 s; a local table is refused, naming the
    providers that do work there, before any instant is written."""
    from hudi_sql.config.concurrency import STORAGE_LOCK_PROVIDER
    from hudi_sql.errors import UnsupportedFeatureError

    c = HudiConcurrencyConfig
    chosen = {c.LOCK_PROVIDER.key: STORAGE_LOCK_PROVIDER}
    config = ConcurrencyConfig.of(HudiConfigs.of(chosen))
    assert (config.storage_lock_validity_secs, config.storage_lock_renew_secs) == (300, 30)
    with pytest.raises(HudiConfigError, match="at least ten times"):
        ConcurrencyConfig.of(HudiConfigs.of({**chosen, "hoodie.write.lock.storage.heartbeat.poll.secs": "31"}))
    with pytest.raises(HudiConfigError, match="must be at least 10"):
        ConcurrencyConfig.of(HudiConfigs.of({**chosen, c.STORAGE_LOCK_VALIDITY_SECS.key: "5"}))

    before = sorted(os.listdir(meta.layout.meta_path))
    with pytest.raises(UnsupportedFeatureError, match="FileSystemBasedLockProvider"):
        Transaction.begin(meta, Action.COMMIT, Resolved().given(concurrency=config))
    assert sorted(os.listdir(meta.layout.meta_path)) == before


# -- conflict detection ----------------------------------------------------------------------

def test_transaction_commit_after_plan_snapshot_overlapping_group_conflicts(meta: TableMetaClient) -> None:
    """The issue's lost update: B plans, A commits f1, B reserves its instant, B writes f1."""
    _commit(meta, OCC_OPTIONS, ("p", "f0"))
    meta.reload_timeline()
    b_snapshot = PlanSnapshot.of(meta)          # B's plan is built on this timeline
    a_time = _commit(meta, OCC_OPTIONS, ("p", "f1"))         # A commits before B begins
    b = Transaction.begin(meta, Action.COMMIT, OCC_OPTIONS, snapshot=b_snapshot)
    b.start(_metadata())
    with pytest.raises(CommitConflictError, match=f"Instant {a_time} committed to file group f1"):
        b.complete(_metadata(("p", "f1")))


def test_inserts_into_a_partition_rewritten_by_a_clustering_since_the_snapshot_conflict(
        meta: TableMetaClient) -> None:
    """The index took B's keys for new against p's groups as B saw them; a clustering of p that
    completed meanwhile may have moved those keys, so B's inserts conflict. B's inserts into q,
    which nothing rewrote, do not."""
    def inserts(*groups: tuple[str, str]) -> CommitMetadata:
        return CommitMetadata({p: (WriteStat(file_id=f, path=f"{p}/{f}_0-0-0_x.parquet", partition_path=p,
                                             num_writes=1, num_inserts=1),) for p, f in groups}, "upsert")

    _commit(meta, OCC_OPTIONS, ("p", "f0"), ("q", "g0"))
    meta.reload_timeline()
    snapshot = PlanSnapshot.of(meta)
    clustering = Transaction.begin(meta, Action.REPLACE_COMMIT, OCC_OPTIONS)
    clustering.start(_metadata())
    clustering.complete(CommitMetadata({"p": (WriteStat(file_id="f1", path="p/f1_0-0-0_x.parquet",
                                                        partition_path="p", num_writes=1),)},
                                       "cluster", partition_to_replace_file_ids={"p": ("f0",)}))
    into_q = Transaction.begin(meta, Action.COMMIT, OCC_OPTIONS, snapshot=snapshot)
    into_q.start(_metadata())
    into_q.complete(inserts(("q", "g1")))
    into_p = Transaction.begin(meta, Action.COMMIT, OCC_OPTIONS, snapshot=snapshot)
    into_p.start(_metadata())
    with pytest.raises(CommitConflictError,
                       match=f"Instant {clustering.instant_time} rewrote the file groups of partition 'p'"):
        into_p.complete(inserts(("p", "f2")))


def test_transaction_commit_after_plan_snapshot_disjoint_groups_both_land(meta: TableMetaClient) -> None:
    meta.reload_timeline()
    snapshot = PlanSnapshot.of(meta)
    first = _commit(meta, OCC_OPTIONS, ("p", "f1"))
    second = _commit(meta, OCC_OPTIONS, ("p", "f2"), snapshot=snapshot)
    meta.reload_timeline()
    assert meta.timeline.completed_writes().times() == [first, second]


def test_transaction_bucket_index_same_bucket_different_file_ids_conflicts(meta: TableMetaClient) -> None:
    meta.reload_timeline()
    snapshot = PlanSnapshot.of(meta)
    _commit(meta, OCC_OPTIONS, ("p", "00000003-aaaa-0"), bucket_index=True)
    with pytest.raises(CommitConflictError, match="bucket 00000003"):
        _commit(meta, OCC_OPTIONS, ("p", "00000003-bbbb-0"), snapshot=snapshot, bucket_index=True)
    _commit(meta, OCC_OPTIONS, ("p", "00000004-cccc-0"), snapshot=snapshot, bucket_index=True)


def test_transaction_lost_conflict_aborted_rolls_its_instant_back(meta: TableMetaClient) -> None:
    with write_scope():
        meta.reload_timeline()
        snapshot = PlanSnapshot.of(meta)
        _commit(meta, OCC_OPTIONS, ("p", "f1"))
        loser = Transaction.begin(meta, Action.COMMIT, OCC_OPTIONS, snapshot=snapshot)
        loser.start(_metadata())
        with pytest.raises(CommitConflictError) as caught:
            loser.complete(_metadata(("p", "f1")))
        loser.abort(caught.value)
    meta.reload_timeline()
    assert not meta.timeline.pending_writes().instants
    assert meta.timeline.completed().with_actions(Action.ROLLBACK).instants
    assert not os.path.exists(heartbeat_path(meta.layout, loser.instant_time))


# -- live writers, heartbeats and lazy rollback ----------------------------------------------

def test_rollback_failed_writes_single_writer_live_heartbeat_refuses_naming_instant(meta: TableMetaClient) -> None:
    live = Transaction.begin(meta, Action.COMMIT, FAST_OPTIONS)
    live.start(_metadata())
    try:
        with pytest.raises(ConcurrentWriterError, match=f"instant {live.instant_time}.*live heartbeat"):
            rollback_failed_writes(meta, FAST_OPTIONS)
        with pytest.raises(ConcurrentWriterError, match=live.instant_time):
            Transaction.begin(meta, Action.COMMIT, FAST_OPTIONS)
        time.sleep(0.5)  # several intervals: the thread keeps the heartbeat alive
        with pytest.raises(ConcurrentWriterError):
            rollback_failed_writes(meta, FAST_OPTIONS)
        live.complete(_metadata(("p", "f1")))   # the live writer's commit lands
    finally:
        live.abort(RuntimeError("test cleanup"))
    meta.reload_timeline()
    assert meta.timeline.completed_writes().times() == [live.instant_time]


def test_rollback_failed_writes_lazy_rolls_back_only_after_heartbeat_expired(meta: TableMetaClient) -> None:
    dead = Transaction.begin(meta, Action.COMMIT, OCC_OPTIONS)
    dead.start(_metadata())
    assert dead.heartbeat is not None
    dead.heartbeat.stop(delete=False)  # the writer "dies": its heartbeat file stays
    dead.heartbeat = None
    assert rollback_failed_writes(meta, OCC_OPTIONS) == []  # not expired yet: never earlier
    meta.reload_timeline()
    assert meta.timeline.pending_writes().times() == [dead.instant_time]
    time.sleep(OCC.heartbeat_expiry_seconds + 0.1)
    assert is_heartbeat_expired(meta.storage, meta.layout, dead.instant_time, OCC.heartbeat_expiry_seconds)
    results = rollback_failed_writes(meta, OCC_OPTIONS)
    assert [r.rolled_back.instant_time for r in results] == [dead.instant_time]
    with pytest.raises(CommitConflictError, match="rolled it back"):
        dead.complete(_metadata(("p", "f1")))
    assert not os.path.exists(heartbeat_path(meta.layout, dead.instant_time))


def test_rollback_own_failed_write_after_commit_landed_touches_nothing(meta: TableMetaClient) -> None:
    txn = Transaction.begin(meta, Action.COMMIT, OCC_OPTIONS)
    txn.start(_metadata())
    pending = txn.instant.to(State.INFLIGHT)
    txn.complete(_metadata(("p", "f1")))
    assert rollback_own_failed_write(meta, pending, OCC_OPTIONS) is None
    meta.reload_timeline()
    assert meta.timeline.completed_writes().times() == [txn.instant_time]
    assert not meta.timeline.completed().with_actions(Action.ROLLBACK).instants


def test_write_scope_failed_write_stops_its_heartbeat(meta: TableMetaClient) -> None:
    with pytest.raises(RuntimeError, match="boom"), write_scope():
        txn = Transaction.begin(meta, Action.COMMIT, FAST_OPTIONS)
        raise RuntimeError("boom")
    assert not txn.is_open
    assert is_heartbeat_expired(meta.storage, meta.layout, txn.instant_time, FAST.heartbeat_expiry_seconds)
    assert [r.rolled_back.instant_time for r in rollback_failed_writes(meta, FAST_OPTIONS)] == [txn.instant_time]


def test_heartbeat_refreshed_by_thread_then_expires_after_stop(meta: TableMetaClient) -> None:
    beat = Heartbeat(meta.storage, meta.layout, "20240101000000000", 50).start()
    path = heartbeat_path(meta.layout, "20240101000000000")
    first = os.stat(path).st_mtime
    time.sleep(0.3)
    assert os.stat(path).st_mtime > first
    assert not is_heartbeat_expired(meta.storage, meta.layout, "20240101000000000", 0.1)
    beat.stop(delete=False)
    time.sleep(0.25)
    assert is_heartbeat_expired(meta.storage, meta.layout, "20240101000000000", 0.1)
    assert not beat.running


# -- locks -----------------------------------------------------------------------------------

def test_table_lock_in_process_excludes_threads_and_is_reentrant(meta: TableMetaClient) -> None:
    inside, most = [0], [0]
    guard = threading.Lock()

    def work() -> None:
        lock = TableLock(meta.base_path, FAST)
        for _ in range(20):
            lock.lock("test")
            lock.lock("nested")  # re-entrant in one thread
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.001)
            with guard:
                inside[0] -= 1
            lock.unlock()
            lock.unlock()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1


def test_instant_times_from_threads_unique_and_increasing(meta: TableMetaClient) -> None:
    times: list[str] = []

    def work() -> None:
        with write_scope():
            for _ in range(5):
                txn = Transaction.begin(meta, Action.COMMIT, OCC_OPTIONS)
                times.append(txn.instant_time)
                txn.abort(RuntimeError("only the time was wanted"))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(times)) == 15
    meta.reload_timeline()
    assert sorted(i.instant_time for i in meta.timeline.instants) == sorted(times)


def _hold_fs_lock_in_subprocess(lock_dir: str, seconds: float) -> subprocess.Popen[str]:
    code = textwrap.dedent(f"""
        import sys, time
        from hudi_sql.commit.locks import FileSystemLockProvider
        lock = FileSystemLockProvider({lock_dir!r}, 0, 10)
        assert lock.try_lock(5, "held by the test's child")
        print("HELD", flush=True)
        time.sleep({seconds})
        lock.unlock()
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "HELD"
    return proc


def test_file_system_lock_other_process_holds_timeout_names_holder(meta: TableMetaClient) -> None:
    proc = _hold_fs_lock_in_subprocess(meta.layout.meta_path, 3)
    try:
        config = ConcurrencyConfig(lock_provider=FILE_SYSTEM_LOCK_PROVIDER, lock_wait_time_ms=200,
                                   lock_retry_wait_ms=20, lock_client_num_retries=2, lock_client_retry_wait_ms=50)
        with pytest.raises(LockTimeoutError, match=f"process {proc.pid} on .*held by the test's child"):
            TableLock(meta.base_path, config).lock("commit")
        # Once the holder releases, the lock is ours.
        patient = ConcurrencyConfig(lock_provider=FILE_SYSTEM_LOCK_PROVIDER, lock_wait_time_ms=10_000,
                                    lock_retry_wait_ms=20, lock_client_num_retries=0)
        lock = TableLock(meta.base_path, patient)
        lock.lock("commit")
        note = json.loads(Path(meta.layout.meta_path, "lock").read_text())
        assert note["pid"] == os.getpid()
        lock.unlock()
        assert not Path(meta.layout.meta_path, "lock").exists()
    finally:
        proc.kill()
        proc.wait()


def test_file_system_lock_abandoned_file_taken_over_only_after_expiry(meta: TableMetaClient) -> None:
    path = Path(meta.layout.meta_path, "lock")
    path.write_text(json.dumps({"token": "dead", "pid": 1, "host": "gone"}))
    never = FileSystemLockProvider(meta.layout.meta_path, 0, 10)
    assert not never.try_lock(0.05, "test")                 # no expiry: the file stays
    recent = FileSystemLockProvider(meta.layout.meta_path, 1, 10)
    assert not recent.try_lock(0.05, "test")                # younger than a minute
    old = time.time() - 120
    os.utime(path, (old, old))
    assert recent.try_lock(0.05, "test")                    # expired: taken over
    recent.unlock()
    assert not path.exists()
