"""Executing a write plan: every record routed to its bucket, one write task per bucket.

An update goes to the bucket of the file group the index tagged it with; an insert to the
bucket whose insert range holds its slot (a hash of the key; under ``GLOBAL_SORT`` its rank
in key order; under the bucket index its bucket number). The routed records are shuffled by
bucket and each task writes whole files (:func:`hudi_sql.spark.tasks.bucket_writer`),
answering one ``WriteStatus`` row per file; with timeline-server markers the tasks send their
markers to a server this driver runs for the write.
"""

from __future__ import annotations

__all__ = ["Execution", "execute_plan"]

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pyspark.sql import Window
from pyspark.sql import functions as F

from hudi_sql.config import IndexType
from hudi_sql.config.scoped import IndexConfig
from hudi_sql.index.base import FILE_ID_COLUMN
from hudi_sql.index.bucket import BUCKET_ID_COLUMN, bucket_hash_fields, bucket_id_column, bucket_num
from hudi_sql.model.commit_metadata import WriteStat
from hudi_sql.model.schema import PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.spark.local_frame import local_frame
from hudi_sql.spark.tasks import WRITE_STATUS_DDL, bucket_writer
from hudi_sql.storage.layout import TableLayout
from hudi_sql.write.handles import BUCKET_COLUMN
from hudi_sql.write.marker_server import MarkerServer
from hudi_sql.write.plan import SLOTS, BucketType, WritePlan
from hudi_sql.write.result import to_write_stat

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class Execution:
    """What the write tasks answered: a stat per file written, the process ids of the Python
    workers that wrote them, and how many marker batches the marker server stored."""

    stats: list[WriteStat]
    writer_pids: frozenset[int]
    marker_batches: int


def execute_plan(tagged: DataFrame, plan: WritePlan, index: IndexConfig, index_type: IndexType) -> Execution:
    """Route records to buckets and run one write task per bucket."""
    spark = tagged.sparkSession
    update_ids = [(b.partition_path, b.file_id, b.bucket_id) for b in plan.buckets
                  if b.bucket_type is BucketType.UPDATE]
    routed = tagged
    if update_ids:
        updates = local_frame(spark, update_ids, "_up string, _uf string, _ub int")
        routed = routed.join(F.broadcast(updates), (F.col(PARTITION_PATH_FIELD) == F.col("_up")) & (
            F.col(FILE_ID_COLUMN) == F.col("_uf")), "left")
    else:
        routed = routed.withColumn("_ub", F.lit(None).cast("int"))
    if plan.insert_ranges:
        ranges = local_frame(spark, [(r.partition_path, r.lo, r.hi, r.bucket_id) for r in plan.insert_ranges],
                             "_ip string, _lo int, _hi int, _ib int")
        if index_type is IndexType.BUCKET:
            # A new bucket b takes the insert range [b, b + 1): route by the bucket number,
            # which the index left on the records (not on a table's first write).
            slot = F.col(BUCKET_ID_COLUMN) if BUCKET_ID_COLUMN in routed.columns else bucket_id_column(
                F.col(RECORD_KEY_FIELD), bucket_hash_fields(index, plan.handle_options.record_key_fields),
                bucket_num(index))
        elif plan.sort_mode == "GLOBAL_SORT":
            # Key order decides the file: each new file holds one contiguous key range.
            rank = F.percent_rank().over(Window.partitionBy(PARTITION_PATH_FIELD).orderBy(RECORD_KEY_FIELD))
            slot = F.least(F.floor(rank * SLOTS), F.lit(SLOTS - 1)).cast("int")
        else:
            slot = F.pmod(F.xxhash64(F.col(RECORD_KEY_FIELD)), F.lit(SLOTS))
        routed = routed.withColumn("_slot", slot).join(
            F.broadcast(ranges),
            F.col(FILE_ID_COLUMN).isNull() & (F.col(PARTITION_PATH_FIELD) == F.col("_ip"))
            & (F.col("_slot") >= F.col("_lo")) & (F.col("_slot") < F.col("_hi")), "left")
    else:
        routed = routed.withColumn("_ib", F.lit(None).cast("int"))
    routed = routed.withColumn(BUCKET_COLUMN, F.coalesce(F.col("_ub"), F.col("_ib"))).where(
        F.col(BUCKET_COLUMN).isNotNull())
    routing = ("_up", "_uf", "_ub", "_ip", "_lo", "_hi", "_ib", "_slot", BUCKET_ID_COLUMN)
    keep = [c for c in routed.columns if c not in routing]
    # About one task per bucket: each task writes whole files, so a few coalesced partitions
    # would serialise the writes. Spare slots make hash collisions rare; with many buckets
    # the collisions even out across tasks, and empty tasks would only cost scheduling.
    parallelism, buckets = spark.sparkContext.defaultParallelism, len(plan.buckets)
    slots = max(parallelism, min(2 * buckets, buckets + 4 * parallelism))
    partitioned = routed.select(*keep).repartition(slots, BUCKET_COLUMN)
    marker_batches = 0
    if plan.handle_options.marker_type == "TIMELINE_SERVER_BASED":
        host = spark.conf.get("spark.driver.host", "127.0.0.1") or "127.0.0.1"
        with MarkerServer(TableLayout.of(plan.handle_options.base_path), plan.handle_options.instant_time,
                          plan.handle_options.storage, host=host) as server:
            served = replace(plan, handle_options=replace(plan.handle_options, marker_server_url=server.url))
            statuses = partitioned.mapInArrow(bucket_writer(served), WRITE_STATUS_DDL).collect()
            marker_batches = server.batches_written
    else:
        statuses = partitioned.mapInArrow(bucket_writer(plan), WRITE_STATUS_DDL).collect()
    return Execution(stats=[to_write_stat(row.asDict()) for row in statuses],
                     writer_pids=frozenset(int(row["writer_pid"]) for row in statuses),
                     marker_batches=marker_batches)
