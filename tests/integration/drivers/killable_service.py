"""Driver program for the service crash tests: a rollback or a clean that stops mid-way.

Usage: python killable_service.py <table path> rollback|clean [options as JSON]

Runs without Spark (both services delete files from the driver). After the service deleted its
first data file it prints "PAUSED <path>" and waits to be killed, so the test kills it at a
known step (the rollback's or clean's instant is inflight, its deletes half done) without
guessing at timing.
"""

import json
import os
import sys
import time


def main() -> None:
    path, service = sys.argv[1:3]
    options = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    real_unlink = os.unlink

    def unlink_then_pause(target, *args, **kwargs):
        real_unlink(target, *args, **kwargs)
        name = os.path.basename(os.fspath(target))
        if name.endswith(".parquet") or ".log." in name:
            print(f"PAUSED {target}", flush=True)
            while True:
                time.sleep(60)

    os.unlink = unlink_then_pause
    from hudi_sql.table.meta_client import TableMetaClient

    meta = TableMetaClient.load(path)
    if service == "rollback":
        from hudi_sql.commit.rollback import rollback_failed_writes
        from hudi_sql.config.resolve import Resolved

        rollback_failed_writes(meta, Resolved.of(options))
    else:
        from hudi_sql.services.clean import clean

        clean(meta, options)
    print("DONE without deleting a data file", flush=True)


if __name__ == "__main__":
    main()
