"""A writer killed (SIGKILL) between the data table's commit and its metadata table's.

The write stops at one of the points where the two timelines differ: the metadata deltacommit
written but not completed, completed while the data instant is not, or the metadata table's own
compaction half done (``tests/integration/drivers/killable_metadata.py``). Then:

* both readers (ours, and Apache Hudi's through the metadata table) see the table as its last
  completed commit left it, and our listing of the metadata table holds no file of the killed write;
* the next write (ours) rolls the killed one back and finishes or removes what the metadata
  table was left with: Apache Hudi's validation finds the metadata table in step with storage,
  Apache Hudi writes on, and both engines still read the same rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from process_helpers import kill_tree
from test_apache_reads_ours import apache_metadata_table_disagreements

pytestmark = [pytest.mark.oracle, pytest.mark.processes, pytest.mark.spark]

DRIVER = Path(__file__).resolve().parents[1] / "integration" / "drivers" / "killable_metadata.py"
SCHEMA = "id int, v string, ts int, p string"
OPTIONS = {"hoodie.table.name": "crash_mdt", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
           "hoodie.metadata.compact.max.delta.commits": "3"}


def _kill_at(path: Path, state: Path, point: str) -> str:
    """Run the killable write until *point*, SIGKILL it and everything it started; its instant."""
    from hudi_sql.engine.session import child_process_env

    proc = subprocess.Popen([sys.executable, str(DRIVER), str(path), str(state), point, json.dumps(OPTIONS)],
                            env=child_process_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PAUSED "), f"the write never reached {point}: {line!r}"
    finally:
        kill_tree(proc.pid)
        proc.wait(timeout=30)
    return line.split()[1]


def _same_rows(spark: Any, oracle: Oracle, path: Path, what: str) -> set[tuple[int, str]]:
    mine = ours(spark.read.format("hudi").load(str(path)))
    assert_same_rows(mine, oracle.read(path), what=what)
    index = mine["columns"]
    return {(row[index.index("id")], row[index.index("v")]) for row in mine["rows"]}


@pytest.mark.parametrize("point", ["metadata_log", "metadata_commit", "metadata_compaction"])
def test_writer_killed_in_the_metadata_commit_leaves_both_readers_consistent(
        spark: Any, oracle: Oracle, tmp_path: Path, point: str) -> None:
    import hudi_sql
    from hudi_sql.config.concurrency import HudiConcurrencyConfig
    from hudi_sql.metadata.reader import read_metadata_files

    path = tmp_path / "table"
    for version in (1, 2):  # with the metadata table's initialisation: three deltacommits, compaction due
        rows = [(i, f"v{version}", version, f"p{i % 3}") for i in range(version * 10)]
        hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), OPTIONS)
    before = _same_rows(spark, oracle, path, f"{point}: before")

    killed = _kill_at(path, tmp_path / "state", point)
    assert _same_rows(spark, oracle, path, f"{point}: after the kill") == before
    listing = read_metadata_files(str(path))
    assert listing is not None
    listed = [name for p in listing.partitions for name in listing.files(p)]
    assert not [name for name in listed if killed in name], f"the killed write's files are listed: {listed}"

    short = {**OPTIONS, HudiConcurrencyConfig.HEARTBEAT_INTERVAL_MS.key: "500"}
    time.sleep(1.2)  # the killed writer's heartbeat expires
    rows = [(i, "v3", 10, f"p{i % 3}") for i in range(3)]
    hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(path), short)
    assert apache_metadata_table_disagreements(oracle, path) == []
    after = _same_rows(spark, oracle, path, f"{point}: after our next write")
    assert {v for _, v in after} <= {"v2", "v3"} and (0, "v3") in after
    oracle.run([{"write": {"path": str(path), "schema": SCHEMA,
                           "mode": "append", "rows": [[1, "v4", 11, "p1"]],
                           "options": {**OPTIONS, "hoodie.datasource.write.operation": "upsert"}}}])
    assert apache_metadata_table_disagreements(oracle, path) == []
    assert (1, "v4") in _same_rows(spark, oracle, path, f"{point}: after Apache Hudi's write")
