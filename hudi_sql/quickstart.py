"""The quickstart job: ``python -m hudi_sql.quickstart`` on the embedded defaults.

Creates a Copy-On-Write and a Merge-On-Read trips table under the state folder
(``$HUDI_SQL_HOME``, default ``~/.hudi-sql``), inserts, upserts and deletes, queries the
snapshot, an incremental range and a time-travel instant, compacts the MOR table, and prints
each result. It is the end-to-end smoke test a new user runs first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import hudi_sql
from hudi_sql.config import HudiReadConfig, HudiTableConfig, HudiWriteConfig
from hudi_sql.engine.session import default_state_dir
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.uri import join, qualify

TRIPS = [
    (1695159649087, "334e26e9-8355-45cc-97c6-c31daf0df330", "rider-A", "driver-K", 19.10, "san_francisco"),
    (1695091554788, "e96c4396-3fad-413a-a942-4cb36106d721", "rider-C", "driver-M", 27.70, "san_francisco"),
    (1695046462179, "9909a8b1-2d15-4d3d-8ec9-efc48c536a00", "rider-D", "driver-L", 33.90, "san_francisco"),
    (1695332066204, "1dced545-862b-4ceb-8b43-d2a568f6616b", "rider-E", "driver-O", 93.50, "san_francisco"),
    (1695516137016, "e3cf430c-889d-4015-bc98-59bdce1e530c", "rider-F", "driver-P", 34.15, "sao_paulo"),
    (1695376420876, "7a84095f-737f-40bc-b62f-6b69664712d2", "rider-G", "driver-Q", 43.40, "sao_paulo"),
    (1695173887231, "3eeb61f7-c2b0-4636-99bd-5d7a5a1d2c04", "rider-I", "driver-S", 41.06, "chennai"),
    (1695115999911, "c8abbe79-8d89-47ea-b4ce-4d224bae5bfa", "rider-J", "driver-T", 17.85, "chennai"),
]
SCHEMA = "ts long, uuid string, rider string, driver string, fare double, city string"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hudi_sql.quickstart", description=__doc__)
    parser.add_argument("--state-dir", help="state folder (default $HUDI_SQL_HOME or ~/.hudi-sql)")
    parser.add_argument("--tables", help="where the two tables go: a folder or an object-store URI such as "
                                         "s3a://bucket/quickstart (default <state folder>/quickstart)")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting, e.g. spark.hadoop.fs.s3a.endpoint=http://127.0.0.1:8333 (repeatable)")
    args = parser.parse_args(argv)

    state = Path(args.state_dir).resolve() if args.state_dir else default_state_dir()
    conf = dict(item.split("=", 1) for item in args.conf if "=" in item)
    spark = hudi_sql.spark_session(state_dir=state, conf=conf)
    tables = args.tables or str(state / "quickstart")
    storage = Storage.for_session(spark, None, tables)
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ"):
        path = join(qualify(tables), f"trips_{table_type.lower()}")
        storage.delete_dir(path)
        options = {
            HudiTableConfig.NAME.key: f"trips_{table_type.lower()}",
            HudiWriteConfig.TABLE_TYPE.key: table_type,
            HudiWriteConfig.RECORD_KEY_FIELDS.key: "uuid",
            HudiWriteConfig.PARTITION_PATH_FIELDS.key: "city",
            HudiWriteConfig.PRECOMBINE_FIELD.key: "ts",
            HudiWriteConfig.HIVE_STYLE_PARTITIONING.key: "true",
        }
        first = hudi_sql.write(spark.createDataFrame(TRIPS, SCHEMA), str(path), options)
        print(f"\n== {table_type}: inserted {first.num_inserted} trips at {first.instant_time}")
        update = spark.createDataFrame([(1695046462180, TRIPS[2][1], "rider-D", "driver-L", 25.0, "san_francisco")],
                                       SCHEMA)
        second = hudi_sql.write(update, str(path), options)
        print(f"updated {second.num_updated} trip at {second.instant_time}")
        delete = spark.createDataFrame([(TRIPS[0][1], "san_francisco")], "uuid string, city string")
        third = hudi_sql.write(delete, str(path), {**options, HudiWriteConfig.OPERATION.key: "delete"})
        print(f"deleted {third.num_deleted} trip at {third.instant_time}")
        spark.read.format("hudi").load(str(path)).select("_hoodie_commit_time", "rider", "fare", "city") \
            .orderBy("rider").show(truncate=False)
        print("changes after the first commit (incremental):")
        spark.read.format("hudi").option(HudiReadConfig.QUERY_TYPE.key, "incremental") \
            .option(HudiReadConfig.BEGIN_INSTANT.key, first.instant_time).load(str(path)) \
            .select("rider", "fare").show()
        print(f"time travel to {first.instant_time}:")
        spark.read.format("hudi").option(HudiReadConfig.AS_OF_INSTANT.key, first.instant_time).load(str(path)) \
            .where("rider = 'rider-D'").select("rider", "fare").show()
        if table_type == "MERGE_ON_READ":
            instant = hudi_sql.compact(spark, str(path))
            print(f"compacted at {instant}; read-optimized view now:")
            spark.read.format("hudi").option(HudiReadConfig.QUERY_TYPE.key, "read_optimized").load(str(path)) \
                .select("rider", "fare").orderBy("rider").show()
    spark.stop()
    print(f"Tables are in {tables}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
