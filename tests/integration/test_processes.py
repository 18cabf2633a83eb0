"""Writes across processes: a Spark standalone cluster, and a writer killed in the middle of a commit.

Both run their driver in a subprocess (a process holds one SparkContext; the test session's
own is local). Every server or driver started here is stopped by process id.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from process_helpers import free_port, kill_tree
from table_helpers import data_rows, our_table, rows_of, rust_table

import hudi_sql
from hudi_sql.engine.session import child_process_env
from hudi_sql.model.instant import Action, State
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = [pytest.mark.spark, pytest.mark.processes]

DRIVERS = Path(__file__).parent / "drivers"
ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    # What a wheel install gives: hudi_sql and pyspark_hudi importable from sys.path, for the
    # driver and for the Python workers (which is where Spark looks for pyspark_* modules).
    return child_process_env()


def _wait_for_port(port: int, timeout: float) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def _wait_for_alive_worker(master_ui: int, timeout: float) -> None:
    """Return once the master's status page (``/json``) counts a worker registered and alive."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{master_ui}/json", timeout=2) as page:
                if json.loads(page.read()).get("aliveworkers", 0) > 0:
                    return
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    raise TimeoutError(f"no worker registered with the master after {timeout}s")


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        kill_tree(proc.pid)
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def standalone_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Spark master and one worker from the PySpark wheel, on loopback."""
    import pyspark

    spark_home = os.path.dirname(pyspark.__file__)
    spark_class = os.path.join(spark_home, "bin", "spark-class")
    env = _env()
    env["SPARK_HOME"] = spark_home
    work = tmp_path_factory.mktemp("spark-worker")
    port, ui, worker_ui = free_port(), free_port(), free_port()
    master = subprocess.Popen(
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
         "--webui-port", str(ui)], env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        _wait_for_port(port, 60)
        worker = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.worker.Worker", "--cores", "2", "--memory", "2g",
             "--webui-port", str(worker_ui), "--work-dir", str(work), f"spark://127.0.0.1:{port}"],
            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for_alive_worker(ui, 120)
        yield f"spark://127.0.0.1:{port}"
    finally:
        if worker is not None:
            _stop(worker)
        _stop(master)


def test_standalone_cluster_writes_in_executor_processes_and_streams_into_and_out_of_a_table(
        spark: Any, standalone_cluster: str, tmp_path: Path) -> None:
    """One application on the cluster (one driver and one executor to start): two batch writes,
    whose data files must come from executor processes, then a stream into a Merge-On-Read table
    and a stream out of it."""
    from streaming_helpers import expected_rows, write_input_files

    table, source, streamed, output = tmp_path / "table", tmp_path / "in", tmp_path / "t", tmp_path / "out"
    batches = write_input_files(source, files=3)
    driver = subprocess.run(
        [sys.executable, str(DRIVERS / "cluster_write.py"), standalone_cluster, str(table), str(tmp_path / "state"),
         str(source), str(streamed), str(tmp_path / "ck-in"), str(output), str(tmp_path / "ck-out")],
        env=_env(), capture_output=True, text=True, timeout=600, start_new_session=True, check=False)
    assert driver.returncode == 0 and "DONE" in driver.stdout, driver.stderr[-3000:]
    report = json.loads(next(line for line in driver.stdout.splitlines() if line.startswith("{")))
    assert report["writer_pids"], "no data file was written"
    assert report["driver_pid"] not in report["writer_pids"]
    for pid in report["writer_pids"]:
        chain = report["ancestry"][str(pid)]
        assert any("org.apache.spark.executor.CoarseGrainedExecutorBackend" in link for link in chain), \
            f"writer {pid} does not run under an executor JVM: {[link[:120] for link in chain]}"
        assert not any(link.startswith(f"{report['driver_pid']}:") for link in chain), \
            f"writer {pid} is a child of the driver"
    # The table the cluster wrote is a Hudi table both readers agree on.
    ours = our_table(spark, str(table))
    assert ours.num_rows == 200
    assert rows_of(ours) == rows_of(rust_table(str(table)))
    assert {r["name"] for r in ours.to_pylist() if r["id"] < 50} == {f"NAME-{i}" for i in range(50)}

    # The stream into the table applied every batch; the stream out of it emitted each commit's
    # records: the latest value of every key (each written once per commit, and a key's last
    # commit holds its final value).
    assert data_rows(rust_table(str(streamed)), "id") == expected_rows(batches)
    emitted = spark.read.parquet(str(output)).select("_hoodie_commit_time", "id", "v", "ts", "p").toArrow()
    last_per_key: dict[int, dict[str, Any]] = {}
    for row in sorted(emitted.to_pylist(), key=lambda r: r["_hoodie_commit_time"]):
        last_per_key[row["id"]] = {k: row[k] for k in ("id", "v", "ts", "p")}
    assert sorted(last_per_key.values(), key=lambda r: str(r["id"])) == expected_rows(batches)
    pairs = [(r["_hoodie_commit_time"], r["id"]) for r in emitted.to_pylist()]
    assert len(pairs) == len(set(pairs)), "a record was emitted twice"


def test_writer_killed_mid_commit_previous_snapshot_visible_and_next_write_rolls_back(
        spark: Any, tmp_path: Path) -> None:
    table = tmp_path / "table"
    proc = subprocess.Popen(
        [sys.executable, str(DRIVERS / "killable_write.py"), str(table), str(tmp_path / "state")],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        first_line = proc.stdout.readline()
        assert first_line.startswith("FIRST "), "the first commit did not complete"
        first_instant = first_line.split()[1]
        temp = table / ".hoodie" / ".temp"
        deadline = time.time() + 120
        while time.time() < deadline:
            markers = [p for p in temp.rglob("*.marker.*")] if temp.exists() else []
            if len(markers) >= 3:
                break
            time.sleep(0.02)
        else:
            pytest.fail("the second write never started writing files")
        kill_tree(proc.pid)  # the writer and every process it started, at once
    finally:
        _stop(proc)
    proc.wait(timeout=30)

    meta = TableMetaClient.load(str(table))
    pending = meta.timeline.pending_writes()
    assert len(pending) == 1, "the killed write must have left a pending instant"
    failed = pending.instants[0].instant_time
    assert meta.timeline.completed_writes().times() == [first_instant]
    stray = [p for p in table.rglob("*.parquet") if failed in p.name]
    assert stray, "the killed write had written data files"

    # Readers see the snapshot of the first commit only.
    ours = our_table(spark, str(table))
    assert {r["v"] for r in ours.to_pylist()} == {"v1"} and ours.num_rows == 30
    assert rows_of(ours) == rows_of(rust_table(str(table)))

    # The next write rolls the failed instant back once its heartbeat expired, never earlier: with
    # the default interval (60 s) the killed writer still counts as live and the write is refused.
    from hudi_sql.config.concurrency import HudiConcurrencyConfig
    from hudi_sql.errors import ConcurrentWriterError

    options = {"hoodie.table.name": "crash_t", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}
    batch = spark.createDataFrame([(1000, "v3", 3, "p0")], "id int, v string, ts int, p string")
    with pytest.raises(ConcurrentWriterError, match=failed):
        hudi_sql.write(batch, str(table), options)
    short = {**options, HudiConcurrencyConfig.HEARTBEAT_INTERVAL_MS.key: "500"}
    time.sleep(1.2)  # two 500 ms intervals without a beat: expired
    hudi_sql.write(batch, str(table), short)
    meta = TableMetaClient.load(str(table))
    assert not meta.timeline.pending_writes().instants
    rollbacks = meta.timeline.completed().with_actions(Action.ROLLBACK)
    assert len(rollbacks) == 1
    assert meta.timeline.find(failed, state=State.INFLIGHT) is None
    assert not [p for p in table.rglob("*.parquet") if failed in p.name]
    assert not (table / ".hoodie" / ".temp" / failed).exists()
    from hudi_sql.model.avro_metadata import AvroMetadataKind, deserialize

    record = deserialize((table / ".hoodie" / f"{rollbacks.instants[0].instant_time}.rollback").read_bytes(),
                         AvroMetadataKind.ROLLBACK_METADATA)
    assert record["commitsRollback"] == [failed]
    deleted_names = sorted(os.path.basename(f) for p in record["partitionMetadata"].values()
                           for f in p["successDeleteFiles"])
    assert deleted_names == sorted(p.name for p in stray)
    final = our_table(spark, str(table))
    assert final.num_rows == 31
    assert data_rows(final, "id") == data_rows(rust_table(str(table)), "id")


# -- streaming -----------------------------------------------------------------------------------


def _stream_driver(master: str, state: Path, *args: str) -> list[str]:
    return [sys.executable, str(DRIVERS / "stream_into.py"), master, str(state), *args]


# Merge-On-Read only (CI time): its kills leave log files as well as base files behind; a killed
# Copy-On-Write commit is rolled back in test_writer_killed_mid_commit_previous_snapshot_visible_....
@pytest.mark.parametrize("table_type", ["MERGE_ON_READ"])
def test_stream_killed_mid_batch_twice_resumes_and_applies_every_batch_once(
        spark: Any, tmp_path: Path, table_type: str) -> None:
    from streaming_helpers import committed_batches, expected_rows, write_input_files, writes_in_flight

    source, table, checkpoint = tmp_path / "in", tmp_path / "t", tmp_path / "ck"
    batches = write_input_files(source, files=4)
    command = _stream_driver("local[2]", tmp_path / "state", str(source), str(table), str(checkpoint), table_type)
    killed: set[str] = set()
    for _ in range(2):  # two kills: the second one hits a restarted stream
        proc = subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            deadline = time.time() + 180
            while time.time() < deadline and proc.poll() is None and not writes_in_flight(table) - killed:
                time.sleep(0.05)
            fresh = writes_in_flight(table) - killed
            assert fresh, "the stream ended (or stalled) before a micro-batch could be killed"
            kill_tree(proc.pid)  # SIGKILL: the driver, its JVM and its Python workers at once
            killed |= fresh
        finally:
            _stop(proc)
    final = subprocess.run(command, env=_env(), capture_output=True, text=True, timeout=600, check=False,
                           start_new_session=True)
    assert final.returncode == 0 and "DONE" in final.stdout, final.stderr[-3000:]

    assert data_rows(our_table(spark, str(table)), "id") == expected_rows(batches)
    assert data_rows(rust_table(str(table)), "id") == expected_rows(batches)
    assert sorted(committed_batches(str(table))) == list(range(4))  # no batch lost, none applied twice
    meta = TableMetaClient.load(str(table))
    assert not meta.timeline.pending_writes(), "a killed batch's instant was left behind"
    rolled_back = {t for i in meta.timeline.completed().with_actions(Action.ROLLBACK)
                   for t in meta.rollback_metadata(i.instant_time)["commitsRollback"]}
    assert killed <= rolled_back | set(meta.timeline.completed_writes().times())
