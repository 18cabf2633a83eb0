"""SIMPLE and GLOBAL_SIMPLE index: tag incoming records with their file group by a Spark join.

The keys of the latest base files of the touched partitions (every partition for the global
variant) are read by Spark's Parquet reader, only the key columns, and joined with the
incoming keys. A match is an update of that file group; no match is an insert.

Global index and a changed partition (``hoodie.simple.index.update.partition.path``): with the
option on (default), the record moves: a delete goes to the old file group and an insert to the
new partition — unless it loses to the stored record on the ordering field, which then stays
(:mod:`hudi_sql.index.partition_moves`); with it off, the update is applied in the old partition.
"""

from __future__ import annotations

__all__ = ["FILE_ID_COLUMN", "SimpleIndex", "batch_partitions", "existing_keys", "latest_base_files", "tag_location"]


from collections.abc import Sequence
from typing import TYPE_CHECKING

from hudi_sql.config import IndexType
from hudi_sql.index.base import FILE_ID_COLUMN, Index, IndexContext, register_index
from hudi_sql.index.partition_moves import StoredOrdering, stored_ordering
from hudi_sql.model.schema import FILE_NAME_FIELD, PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.spark.hadoop_fs import read_parquet_files
from hudi_sql.write.handles import IS_DELETE_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

    from hudi_sql.storage.fs import Storage


#: What the index reads of a base file with meta fields: its records' keys, partitions and file name.
_KEY_META_FIELDS = f"{RECORD_KEY_FIELD} string, {PARTITION_PATH_FIELD} string, {FILE_NAME_FIELD} string"


def batch_partitions(records: DataFrame) -> set[str]:
    """The partition paths the batch writes to (one small distinct over the partition column)."""
    return {r[0] for r in records.select(PARTITION_PATH_FIELD).distinct().collect()}


def latest_base_files(context: IndexContext, records: DataFrame) -> list[tuple[str, str]]:
    """(partition, path) of the latest base files an index must consult for *records*.

    Non-global indexes look only at the partitions the batch touches (one small distinct
    over the partition column); global ones at every partition.
    """
    view = context.view
    if view.is_empty:
        return []
    if context.index_type.is_global:
        partitions = view.partition_paths()
    else:
        wanted = batch_partitions(records)
        partitions = [p for p in view.partition_paths() if p in wanted]
    return [(s.partition_path, s.base_file.path) for s in view.latest_file_slices(partitions)
            if s.base_file is not None]


def update_partition_path(context: IndexContext) -> bool:
    return context.config.update_partition_path(context.index_type)


@register_index(IndexType.SIMPLE, IndexType.GLOBAL_SIMPLE)
class SimpleIndex(Index):
    """Join with every key of the consulted base files (read by Spark's Parquet reader)."""

    def tag_location(self, records: DataFrame) -> DataFrame:
        from pyspark.sql import functions as F

        base_files = latest_base_files(self.context, records)
        if not base_files:
            return records.withColumn(FILE_ID_COLUMN, F.lit(None).cast("string"))
        keygen = self.context.keygen
        existing = existing_keys(records.sparkSession, base_files, self.context.meta_client.storage,
                                 populate_meta_fields=self.context.meta_client.populate_meta_fields,
                                 record_key=keygen.record_key(), partition_path=keygen.partition_path())
        return tag_location(records, existing, global_index=self.context.index_type.is_global,
                            update_partition_path=update_partition_path(self.context),
                            stored=stored_ordering(self.context), ordering_field=self.context.ordering_field)


def existing_keys(spark: SparkSession, base_files: Sequence[tuple[str, str]], storage: Storage, *,
                  populate_meta_fields: bool,
                  record_key: Column | None = None, partition_path: Column | None = None) -> DataFrame:
    """(record key, partition path, file id) of every row of *base_files* ((partition, path) pairs).

    With meta fields off the key and partition are recomputed from the data columns by the
    table's key generator expressions (*record_key*, *partition_path*).
    """
    from pyspark.sql import functions as F

    paths = [path for _, path in base_files]
    file_id = F.substring_index(F.col(FILE_NAME_FIELD), "_", 1)
    if populate_meta_fields:
        # The meta fields are strings in every file: naming them spares Spark the job that infers
        # a schema from the files' footers (a tenth of a small write).
        frame = read_parquet_files(spark, paths, storage, schema=_KEY_META_FIELDS)
        return frame.select(F.col(RECORD_KEY_FIELD).alias("_ek"), F.col(PARTITION_PATH_FIELD).alias("_ep"),
                            file_id.alias("_ef"))
    assert record_key is not None and partition_path is not None
    frame = read_parquet_files(spark, paths, storage)
    return frame.select(record_key.alias("_ek"), partition_path.alias("_ep"), file_id.alias("_ef"))


def tag_location(records: DataFrame, existing: DataFrame | None, *, global_index: bool,
                 update_partition_path: bool, stored: StoredOrdering | None = None,
                 ordering_field: str | None = None) -> DataFrame:
    """*records* with ``_hoodie_file_id`` set for keys found in *existing* (null for inserts).

    Under a global index that moves records, *stored* (with *ordering_field*) looks up the stored
    ordering values of the keys leaving a partition: a record that loses to its stored one stays.
    """
    from pyspark.sql import functions as F

    if existing is None:
        return records.withColumn(FILE_ID_COLUMN, F.lit(None).cast("string"))
    if not global_index:
        joined = records.join(
            existing,
            (records[RECORD_KEY_FIELD] == existing["_ek"]) & (records[PARTITION_PATH_FIELD] == existing["_ep"]),
            "left",
        )
        return joined.withColumn(FILE_ID_COLUMN, F.col("_ef")).drop("_ek", "_ep", "_ef")

    joined = records.join(existing, records[RECORD_KEY_FIELD] == existing["_ek"], "left")
    moved = F.col("_ef").isNotNull() & (F.col("_ep") != F.col(PARTITION_PATH_FIELD))
    same = joined.where(~moved).withColumn(FILE_ID_COLUMN, F.col("_ef"))
    def where_stored(rows: DataFrame) -> DataFrame:
        """*rows* tagged as updates of the stored record, in its partition and file group."""
        return rows.withColumn(PARTITION_PATH_FIELD, F.col("_ep")).withColumn(FILE_ID_COLUMN, F.col("_ef"))

    if not update_partition_path:
        # Keep the record where it is: the update lands in its current partition.
        return same.unionByName(where_stored(joined.where(moved))).drop("_ek", "_ep", "_ef")
    if stored is not None and ordering_field is not None:
        moving = joined.where(moved & ~F.col(IS_DELETE_COLUMN))
        found = stored(moving.select("_ek", "_ep", "_ef"))
        if found is not None:
            compared = joined.join(found, joined["_ek"] == found["_sk"], "left")
            late = (moved & ~F.col(IS_DELETE_COLUMN) & F.col("_so").isNotNull()
                    & F.col(ordering_field).isNotNull() & (F.col(ordering_field) < F.col("_so")))
            same = same.unionByName(where_stored(compared.where(late).drop("_sk", "_so")))  # it merges there
            joined = compared.where(~late).drop("_sk", "_so")
    delete_old = (joined.where(moved)
                  .withColumn(PARTITION_PATH_FIELD, F.col("_ep"))
                  .withColumn(FILE_ID_COLUMN, F.col("_ef"))
                  .withColumn(IS_DELETE_COLUMN, F.lit(True)))
    insert_new = joined.where(moved & ~F.col(IS_DELETE_COLUMN)).withColumn(FILE_ID_COLUMN,
                                                                          F.lit(None).cast("string"))
    return same.unionByName(delete_old).unionByName(insert_new).drop("_ek", "_ep", "_ef")
