"""Driver program for the streaming process tests: streaming queries, each run until no input is left.

Usage: python stream_into.py <master> <state dir> write <source dir> <table> <checkpoint> <table type>
       python stream_into.py <master> <state dir> read <table> <output dir> <checkpoint>
       python stream_into.py <master> <state dir> write-then-read <source dir> <table> <checkpoint> \
           <table type> <output dir> <read checkpoint>

``write`` streams the JSON files of the source folder into the Hudi table, one file per
micro-batch; ``read`` streams the table's commits into Parquet files; ``write-then-read`` runs
the one and then the other in the same application (one driver and one set of executors on a
cluster, rather than two). Prints ``DONE`` at the end.
"""

import sys
from typing import Any


def write(spark: Any, source: str, table: str, checkpoint: str, table_type: str) -> None:
    options = {"hoodie.table.name": "events", "hoodie.datasource.write.table.type": table_type,
               "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.precombine.field": "ts",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.parquet.small.file.limit": "0",
               "hoodie.compact.inline.max.delta.commits": "2",
               # a killed run's instant is rolled back once its heartbeat is two intervals old
               "hoodie.client.heartbeat.interval_in_ms": "1000"}
    (spark.readStream.schema("id long, v string, ts long, p string").option("maxFilesPerTrigger", 1)
     .json(source).writeStream.format("hudi").options(**options)
     .option("checkpointLocation", checkpoint).trigger(availableNow=True).start(table)).awaitTermination()


def read(spark: Any, table: str, output: str, checkpoint: str) -> None:
    (spark.readStream.format("hudi").load(table).writeStream.format("parquet")
     .option("path", output).option("checkpointLocation", checkpoint).trigger(availableNow=True).start()
     ).awaitTermination()


def main() -> None:
    master, state, mode, *args = sys.argv[1:]
    import hudi_sql

    spark = hudi_sql.spark_session(master=master, state_dir=state,
                                   conf={"spark.executor.cores": "2", "spark.cores.max": "2",
                                         "spark.sql.shuffle.partitions": "2"})
    if mode == "write":
        write(spark, *args)
    elif mode == "read":
        read(spark, *args)
    else:
        source, table, checkpoint, table_type, output, read_checkpoint = args
        write(spark, source, table, checkpoint, table_type)
        read(spark, table, output, read_checkpoint)
    print("DONE", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
