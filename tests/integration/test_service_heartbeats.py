"""A compaction or clustering being executed beats a heartbeat, like a write.

Executing a service instant starts by deleting what an earlier attempt of it left (the files
its markers name). So a second run of the same instant (another async compactor, a second
``CALL run_compaction``) is refused while the first one's heartbeat is alive, naming it, and
deletes nothing; once that heartbeat expired (its run was killed) the instant is executed
again from its plan. In the slow group (``-m concurrency``) with the other multi-writer tests.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from table_helpers import our_table

import hudi_sql
from hudi_sql.commit.heartbeat import Heartbeat, heartbeat_path
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import ConcurrentWriterError
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.services.clustering import cluster
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = [pytest.mark.spark, pytest.mark.concurrency]

OPTIONS = {"hoodie.table.name": "service_beats", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
           "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.parquet.small.file.limit": "0"}
#: Heartbeats every 0.3 s, expired after 0.6 s: a killed run's instant is free again at once.
BEATS = {"hoodie.client.heartbeat.interval_in_ms": "300", "hoodie.client.heartbeat.tolerable.misses": "2"}
SCHEMA = "id int, v string, ts int, p string"


def _table(spark: Any, path: Path) -> dict[int, str]:
    for version in range(3):  # a base file and two log files per file group; each write a new group
        rows = [(i, f"v{version}", version, "a") for i in range(6)]
        hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), OPTIONS)
    return {i: "v2" for i in range(6)}


def _start_elsewhere(path: Path, instant: Instant) -> tuple[Heartbeat, Path]:
    """What another run executing *instant* leaves: the inflight file, a data file named by its
    marker, and its live heartbeat."""
    meta = TableMetaClient.load(str(path))
    with TimelineWriter(meta, Resolved()).transaction("the other run") as writer:
        writer.start(instant, None, overwrite=True)
        writer.create_marker_dir(instant.instant_time)
    written = path / "a" / f"00000000-0000-0000-0000-000000000000-0_0-1-1_{instant.instant_time}.parquet"
    written.write_bytes(b"being written")
    marker_dir = path / ".hoodie" / ".temp" / instant.instant_time / "a"
    marker_dir.mkdir(parents=True, exist_ok=True)
    (marker_dir / f"{written.name}.marker.CREATE").touch()
    return Heartbeat(meta.storage, meta.layout, instant.instant_time, 300).start(), written


@pytest.mark.parametrize("service", ["compaction", "clustering"])
def test_second_run_of_a_live_service_instant_refused_then_resumed_after_its_heartbeat_expired(
        spark: Any, tmp_path: Path, service: str) -> None:
    path = tmp_path / service
    expected = _table(spark, path)
    options = {**OPTIONS, **BEATS}
    if service == "compaction":
        instant_time = hudi_sql.compact(spark, str(path), options, execute=False)
        inflight = Instant(instant_time, Action.COMPACTION, State.INFLIGHT)

        def run() -> str | None:
            return hudi_sql.compact(spark, str(path), options, schedule=False, instant_time=instant_time)
    else:
        instant_time = cluster(spark, str(path), options, execute=False)
        inflight = Instant(instant_time, Action.REPLACE_COMMIT, State.INFLIGHT)

        def run() -> str | None:
            return cluster(spark, str(path), options, schedule=False, instant_time=instant_time)
    assert instant_time is not None
    beat, written = _start_elsewhere(path, inflight)
    try:
        with pytest.raises(ConcurrentWriterError, match=f"{instant_time} .* being executed by another run .*process"):
            run()
        assert written.read_bytes() == b"being written", "the refused run deleted the live run's file"
        assert TableMetaClient.load(str(path)).timeline.find(instant_time, inflight.action, State.INFLIGHT)
    finally:
        beat.stop(delete=False)  # the other run is killed: its heartbeat file stays, and ages
    time.sleep(1.0)
    assert run() == instant_time
    assert not written.exists(), "the dead run's leftover was not removed"
    assert not Path(heartbeat_path(TableMetaClient.load(str(path)).layout, instant_time)).exists()
    meta = TableMetaClient.load(str(path))
    assert not meta.timeline.pending().instants
    assert {r["id"]: r["v"] for r in our_table(spark, str(path)).to_pylist()} == expected
