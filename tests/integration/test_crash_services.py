"""A rollback or a clean killed mid-way (SIGKILL), and the next write that finishes it.

The service runs in a driver process (``drivers/killable_service.py``) that stops right after
its first data-file deletion and waits to be killed: the kill lands at a known step, with the
service's instant inflight and its deletes half done. Readers must see the last completed
instant meanwhile; the next write must complete the pending instant itself (same instant time,
same plan, as Apache Hudi re-executes a pending rollback or clean) and leave no pending
rollback or clean behind (issue 15, item 2 and the acceptance's crash test).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from table_helpers import data_rows, our_table, rows_of, rust_table

import hudi_sql
from hudi_sql.model.avro_metadata import AvroMetadataKind, deserialize
from hudi_sql.model.instant import Action, State
from hudi_sql.storage.fs import to_local_path
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

DRIVER = Path(__file__).parent / "drivers" / "killable_service.py"
ROOT = Path(__file__).resolve().parents[2]
OPTIONS = {"hoodie.table.name": "crash_services", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
           "hoodie.parquet.small.file.limit": "0"}
SCHEMA = "id int, v string, ts int, p string"


def _write(spark: Any, path: Path, version: int, ids: range, **extra: str) -> str:
    rows = [(i, f"v{version}", version, f"p{i % 3}") for i in ids]
    result = hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), {**OPTIONS, **extra})
    assert result.instant_time is not None
    return result.instant_time


def _kill_service_midway(path: Path, service: str, options: dict[str, str] | None = None) -> str:
    """Run *service* in the driver until it deleted one data file, then SIGKILL it; the deleted path."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, str(DRIVER), str(path), service, json.dumps(options or {})],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PAUSED "), f"the {service} did not reach its deletes: {line!r} {proc.stderr}"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    return line.split(" ", 1)[1].strip()


def _instant_files(path: Path, action: str) -> list[str]:
    return sorted(p.name for p in (path / ".hoodie").iterdir() if p.is_file() and f".{action}" in p.name)


def _check_readers(spark: Any, path: Path) -> list[dict[str, Any]]:
    ours = our_table(spark, str(path))
    assert rows_of(ours) == rows_of(rust_table(str(path)))
    return data_rows(ours, "id")


def test_rollback_killed_midway_next_write_finishes_it_as_the_same_instant(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "table"
    _write(spark, path, 1, range(30))
    failed = _write(spark, path, 2, range(0, 30, 2))  # new base file versions in all three partitions
    (path / ".hoodie" / f"{failed}.commit").unlink()  # its writer died before completing it
    failed_files = sorted(p for p in path.rglob("*.parquet") if failed in p.name)
    assert len(failed_files) == 3
    expected_before = _check_readers(spark, path)

    deleted = _kill_service_midway(path, "rollback")

    (rollback,) = {name.split(".")[0] for name in _instant_files(path, "rollback")}
    assert _instant_files(path, "rollback") == [f"{rollback}.rollback.inflight", f"{rollback}.rollback.requested"]
    assert Path(deleted) in failed_files and not Path(deleted).exists()
    assert [p for p in failed_files if p.exists()], "the kill left some of the failed write's files"
    assert TableMetaClient.load(str(path)).timeline.find(failed, state=State.INFLIGHT) is not None
    assert _check_readers(spark, path) == expected_before  # readers: the last completed commit only

    last = _write(spark, path, 3, range(30, 33))

    meta = TableMetaClient.load(str(path))
    assert _instant_files(path, "rollback") == [f"{rollback}.rollback", f"{rollback}.rollback.inflight",
                                                f"{rollback}.rollback.requested"]
    assert not meta.timeline.pending().instants
    assert meta.timeline.completed_writes().times()[-1] == last
    assert not [p for p in failed_files if p.exists()]
    record = deserialize((path / ".hoodie" / f"{rollback}.rollback").read_bytes(), AvroMetadataKind.ROLLBACK_METADATA)
    assert record["commitsRollback"] == [failed]
    rows = _check_readers(spark, path)
    assert {r["v"] for r in rows if r["id"] < 30} == {"v1"} and len(rows) == 33


def test_clean_killed_midway_next_write_finishes_it(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "table"
    no_clean = {"hoodie.clean.automatic": "false"}
    for version in (1, 2, 3):
        _write(spark, path, version, range(30), **no_clean)
    expected_before = _check_readers(spark, path)

    deleted = _kill_service_midway(path, "clean", {"hoodie.cleaner.commits.retained": "1"})

    (clean,) = {name.split(".")[0] for name in _instant_files(path, "clean")}
    assert _instant_files(path, "clean") == [f"{clean}.clean.inflight", f"{clean}.clean.requested"]
    meta = TableMetaClient.load(str(path))
    planned = [to_local_path(p) for p in meta.clean_plan(clean).all_files()]
    assert deleted in planned and [p for p in planned if os.path.exists(p)], "the kill left planned files"
    assert _check_readers(spark, path) == expected_before

    _write(spark, path, 4, range(30, 33), **{"hoodie.cleaner.commits.retained": "1"})

    meta = TableMetaClient.load(str(path))
    assert meta.timeline.find(clean, Action.CLEAN, State.COMPLETED) is not None
    assert not meta.timeline.pending().instants
    assert not [p for p in planned if os.path.exists(p)]
    rows = _check_readers(spark, path)
    assert {r["v"] for r in rows if r["id"] < 30} == {"v3"} and len(rows) == 33
