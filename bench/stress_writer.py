"""One writer process of :mod:`bench.stress` (and the concurrency tests): upserts into a shared table.

Usage: python -m bench.stress_writer <table> <state dir> <spec json>

The spec: {"writer": name, "rounds": n, "partitions": [...], "ids": [...], "options": {...},
"start_file": path (wait for it to exist, so writers start together), "hold_ms": pause
between the inflight file and the commit (a wide window for the others), "hold_lock_ms": pause
holding the file-system lock of the commit's completion, "clustering_waits": how many times a
round rejected because its file group is under pending clustering is tried again, half a
second apart, as a scheduled job would rerun once the clustering completes}. Each round upserts
every id of the spec, in its partition, with value "<writer>-<round>", and prints one JSON line:
{"writer", "round", "status": "committed" | "conflict" | "refused", "instant", "error"}.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    table, state, spec_text = sys.argv[1:4]
    spec = json.loads(spec_text)
    import hudi_sql
    from hudi_sql.commit import transaction as txn_module
    from hudi_sql.errors import CommitConflictError, ConcurrentWriterError
    from hudi_sql.services.pending_clustering import ClusteringUpdateConflictError

    hold = spec.get("hold_ms", 0) / 1000.0
    if hold:
        original = txn_module.Transaction.start

        def start_then_hold(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            original(self, *args, **kwargs)
            print(json.dumps({"writer": spec["writer"], "inflight": self.instant_time}), flush=True)
            time.sleep(hold)

        txn_module.Transaction.start = start_then_hold  # type: ignore[method-assign]

    hold_lock = spec.get("hold_lock_ms", 0) / 1000.0
    if hold_lock:  # hold the table lock while completing, so that a test can kill the holder
        from hudi_sql.commit import locks

        original_lock = locks.FileSystemLockProvider.try_lock

        def lock_then_hold(self, timeout, purpose):  # type: ignore[no-untyped-def]
            taken = original_lock(self, timeout, purpose)
            if taken and purpose.startswith("complete"):
                print(json.dumps({"writer": spec["writer"], "locked": purpose}), flush=True)
                time.sleep(hold_lock)
            return taken

        locks.FileSystemLockProvider.try_lock = lock_then_hold  # type: ignore[method-assign]

    spark = hudi_sql.spark_session(master="local[1]", state_dir=state)
    spark.sparkContext.setLogLevel("ERROR")
    start_file = spec.get("start_file")
    print(json.dumps({"writer": spec["writer"], "ready": True}), flush=True)
    while start_file and not os.path.exists(start_file):
        time.sleep(0.05)
    def write_waiting_for_clustering(df, waits):  # type: ignore[no-untyped-def]
        """Apache Hudi's reject strategy refuses the write before it starts; nothing to undo."""
        for attempt in range(waits + 1):
            try:
                return hudi_sql.write(df, table, spec["options"])
            except ClusteringUpdateConflictError as exc:
                if attempt == waits:
                    raise
                print(json.dumps({"writer": spec["writer"], "blocked": str(exc)}), flush=True)
                time.sleep(0.5)
        raise AssertionError("unreachable")

    for round_ in range(spec["rounds"]):
        value = f"{spec['writer']}-{round_}"
        rows = [(i, value, round_, spec["partition_of"][str(i)]) for i in spec["ids"]]
        df = spark.createDataFrame(rows, "id int, v string, ts int, p string")
        out = {"writer": spec["writer"], "round": round_, "value": value}
        try:
            result = write_waiting_for_clustering(df, spec["clustering_waits"])
            out.update(status="committed", instant=result.instant_time)
        except ConcurrentWriterError as exc:
            out.update(status="refused", error=str(exc))
        except CommitConflictError as exc:
            out.update(status="conflict", error=str(exc))
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
