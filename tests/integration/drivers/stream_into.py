"""Driver program for the streaming process tests: streaming queries, each run until no input is left.

Usage: python stream_into.py <master> <state dir> <source dir> <table> <checkpoint> <table type>

Streams the JSON files of the source folder into the Hudi table, one file per micro-batch, and
prints ``DONE`` at the end. :func:`read` (the table's commits streamed into Parquet files) serves
the standalone-cluster driver, ``cluster_write.py``.
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
    master, state, *args = sys.argv[1:]
    import hudi_sql

    spark = hudi_sql.spark_session(master=master, state_dir=state,
                                   conf={"spark.executor.cores": "2", "spark.cores.max": "2",
                                         "spark.sql.shuffle.partitions": "2"})
    write(spark, *args)
    print("DONE", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
