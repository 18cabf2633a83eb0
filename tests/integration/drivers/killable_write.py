"""Driver program for the crash test: one small commit, then a large write to be SIGKILLed.

Usage: python killable_write.py <table path> <state dir>
Prints "FIRST <instant>" after the first commit, then starts the second write.
"""

import sys


def main() -> None:
    path, state = sys.argv[1:3]
    import hudi_sql

    spark = hudi_sql.spark_session(master="local[2]", state_dir=state)
    options = {"hoodie.table.name": "crash_t", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
               "hoodie.parquet.small.file.limit": "0"}
    first = spark.createDataFrame([(i, "v1", 1, f"p{i % 3}") for i in range(30)], "id int, v string, ts int, p string")
    result = hudi_sql.write(first, path, options)
    print(f"FIRST {result.instant_time}", flush=True)
    big = spark.createDataFrame([(i, "v2", 2, f"p{i % 300}") for i in range(30000)], "id int, v string, ts int, p string")
    hudi_sql.write(big, path, options)
    print("SECOND DONE", flush=True)


if __name__ == "__main__":
    main()
