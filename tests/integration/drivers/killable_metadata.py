"""Driver program for the metadata table crash tests: a write that stops at one step of its
metadata commit and waits to be killed.

Usage: python killable_metadata.py <table path> <state dir> <point> [write options as JSON]

Points (each where the commit protocol leaves the two timelines different):

* ``metadata_log``: the metadata deltacommit of the write has written its log file, not completed;
* ``metadata_commit``: the metadata deltacommit completed, the data instant did not;
* ``metadata_compaction``: the metadata table's compaction (due when the write starts) has
  written its base file, not completed.

The write upserts ids 0-4 with version "killed" through hudi_sql (local Spark). At the point the
driver prints "PAUSED <instant>" and sleeps, so the test kills it at a known step.
"""

import json
import os
import sys
import time


def main() -> None:
    path, state, point = sys.argv[1:4]
    options = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from hudi_sql.commit.instant_files import InstantFileWriter
    from hudi_sql.metadata.layout import is_metadata_table
    from hudi_sql.model.instant import WRITE_ACTIONS, Action

    real_complete = InstantFileWriter.complete

    def complete_then_pause(self, instant, payload, **kwargs):  # type: ignore[no-untyped-def]
        metadata = is_metadata_table(self.meta_client.base_path)
        pause = {
            "metadata_log": metadata and instant.action is Action.DELTA_COMMIT and len(instant.instant_time) == 17,
            "metadata_commit": not metadata and instant.action in WRITE_ACTIONS,
            "metadata_compaction": metadata and instant.action is Action.COMMIT,
        }[point]
        if pause:
            print(f"PAUSED {instant.instant_time}", flush=True)
            while True:
                time.sleep(60)
        return real_complete(self, instant, payload, **kwargs)

    InstantFileWriter.complete = complete_then_pause  # type: ignore[method-assign]
    import hudi_sql

    spark = hudi_sql.spark_session(master="local[1]", state_dir=state)
    rows = [(i, "killed", 9, f"p{i % 3}") for i in range(5)]
    df = spark.createDataFrame(rows, "id int, v string, ts int, p string")
    hudi_sql.write(df, path, options)
    print("DONE without pausing", flush=True)


if __name__ == "__main__":
    main()
