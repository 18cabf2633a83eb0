"""Driver program for the streaming process tests: one streaming query, run until no input is left.

Usage: python stream_into.py <master> <state dir> write <source dir> <table> <checkpoint> <table type>
       python stream_into.py <master> <state dir> read <table> <output dir> <checkpoint>

``write`` streams the JSON files of the source folder into the Hudi table, one file per
micro-batch; ``read`` streams the table's commits into Parquet files. Prints ``DONE`` at the end.
"""

import sys


def main() -> None:
    master, state, mode, *args = sys.argv[1:]
    import hudi_sql

    spark = hudi_sql.spark_session(master=master, state_dir=state,
                                   conf={"spark.executor.cores": "2", "spark.cores.max": "2",
                                         "spark.sql.shuffle.partitions": "2"})
    if mode == "write":
        source, table, checkpoint, table_type = args
        options = {"hoodie.table.name": "events", "hoodie.datasource.write.table.type": table_type,
                   "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts",
                   "hoodie.datasource.write.partitionpath.field": "p", "hoodie.parquet.small.file.limit": "0",
                   "hoodie.compact.inline.max.delta.commits": "2",
                   # a killed run's instant is rolled back once its heartbeat is two intervals old
                   "hoodie.client.heartbeat.interval_in_ms": "1000"}
        query = (spark.readStream.schema("id long, v string, ts long, p string").option("maxFilesPerTrigger", 1)
                 .json(source).writeStream.format("hudi").options(**options)
                 .option("checkpointLocation", checkpoint).trigger(availableNow=True).start(table))
    else:
        table, output, checkpoint = args
        query = (spark.readStream.format("hudi").load(table).writeStream.format("parquet")
                 .option("path", output).option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()
    print("DONE", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
