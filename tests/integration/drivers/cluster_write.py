"""Driver program for the standalone-cluster test: writes a table, reports who wrote the files,
then (given the streaming arguments) streams into a second table and out of it in the same
application, so the cluster starts one driver and one executor for both.

Usage: python cluster_write.py <master url> <table path> <state dir> \
           [<source dir> <stream table> <checkpoint> <output dir> <read checkpoint>]
Prints one JSON line: driver pid, the pids of the processes that wrote data files, and for each
of those the chain of parent process names (read from /proc while the executors are alive);
then ``DONE`` once the streams have ended.
"""

import json
import os
import sys


def ancestry(pid: int) -> list[str]:
    chain = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            break
        chain.append(f"{pid}:{cmd}")
        pid = int(fields[1])
    return chain


def main() -> None:
    master, path, state, *streaming = sys.argv[1:]
    import hudi_sql

    spark = hudi_sql.spark_session(master=master, state_dir=state,
                                   conf={"spark.executor.cores": "2", "spark.cores.max": "2",
                                         "spark.sql.shuffle.partitions": "4"})
    df = spark.createDataFrame([(i, f"name-{i}", i % 3, f"p{i % 4}") for i in range(200)],
                               "id int, name string, ts int, p string")
    options = {"hoodie.table.name": "cluster_t", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}
    first = hudi_sql.write(df, path, options)
    second = hudi_sql.write(df.where("id < 50").selectExpr("id", "upper(name) as name", "ts + 10 as ts", "p"), path,
                            options)
    pids = sorted(first.writer_pids | second.writer_pids)
    print(json.dumps({"driver_pid": os.getpid(), "writer_pids": pids,
                      "ancestry": {str(p): ancestry(p) for p in pids},
                      "instants": [first.instant_time, second.instant_time]}), flush=True)
    if streaming:
        from stream_into import read, write  # the streaming driver beside this one

        source, table, checkpoint, output, read_checkpoint = streaming
        write(spark, source, table, checkpoint, "MERGE_ON_READ")
        read(spark, table, output, read_checkpoint)
        print("DONE", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
