"""``spark.read.format("hudi")``: DataFrames over a planned read.

Base files of slices without logs go to Spark's native Parquet reader with the table schema
given explicitly (older files lacking evolved columns read as null). Slices with logs (MOR
snapshot) are merged in Python tasks by :mod:`hudi_sql.read.merge_exec`. Incremental queries
filter rows by ``_hoodie_commit_time``.
"""

from __future__ import annotations

__all__ = ["read_table"]

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hudi_sql.config import HudiConfigs, QueryType
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.errors import HudiConfigError
from hudi_sql.model.schema import COMMIT_TIME_FIELD
from hudi_sql.read.bootstrap_read import read_bootstrap_slices
from hudi_sql.read.cdc_exec import read_cdc
from hudi_sql.read.cdc_plan import plan_cdc
from hudi_sql.read.glob import has_glob, resolve_glob
from hudi_sql.read.merge_exec import read_merged_slices
from hudi_sql.read.plan import ReadPlan, plan_read
from hudi_sql.read.skipping import ColumnPredicate
from hudi_sql.spark.hadoop_fs import spark_reads_path
from hudi_sql.spark.schema import table_struct, to_arrow_schema
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def read_table(spark: SparkSession, path: str | None, options: Mapping[str, Any] | None = None, *,
               partition_filter: Callable[[str], bool] | None = None,
               data_filters: Sequence[ColumnPredicate] = ()) -> DataFrame:
    """Query the Hudi table at *path* with Apache Hudi's read options.

    Args:
        spark: the session to build the DataFrame in.
        path: the table's base path, or a glob below it (``base/*/*``: the partitions it reaches).
        options: ``hoodie.datasource.query.type`` (snapshot, read_optimized, incremental),
            ``hoodie.datasource.read.begin.instanttime`` / ``.end.instanttime``, ``as.of.instant``;
            ``hoodie.datasource.query.incremental.format=cdc`` makes an incremental query return
            changes (:mod:`hudi_sql.read.cdc_plan`).
        partition_filter: keeps a partition path when it returns True (partition pruning).
        data_filters: the query's filters on data columns: with ``hoodie.enable.data.skipping``
            the files the metadata table's column statistics rule out are not read.
    """
    if not path:
        raise HudiConfigError("A Hudi read needs the table's base path: spark.read.format('hudi').load(path).")
    configs = HudiConfigs.of({k: v for k, v in (options or {}).items() if k != "path"})
    storage = Storage.for_session(spark, options, path)
    if has_glob(path):  # older guides' load(base_path + "/*/*"): the partitions the glob reaches
        glob = resolve_glob(path)
        path, reached = glob.base_path, glob.partition_filter
        wanted = partition_filter
        partition_filter = reached if wanted is None else (lambda p: reached(p) and wanted(p))
    meta = TableMetaClient.load(path, storage=storage)
    read = ReadConfig.of(configs)
    if read.wants_changes:

        plan = plan_cdc(meta, read)
        return read_cdc(spark, meta, plan, to_arrow_schema(table_struct(plan.schema_json)))
    return dataframe_for_plan(spark, meta, plan_read(meta, read, partition_filter=partition_filter,
                                                     data_filters=data_filters))


def dataframe_for_plan(spark: SparkSession, meta: TableMetaClient, plan: ReadPlan) -> DataFrame:
    from pyspark.sql import functions as F

    struct = table_struct(plan.schema_json)
    frames = []
    native = plan.native_files if spark_reads_path(spark, meta.base_path) else ()
    if native:
        frames.append(spark.read.schema(struct).parquet(*native))
    if plan.merge_slices or len(native) < len(plan.native_files):
        frames.append(read_merged_slices(spark, meta, plan, struct,
                                         base_files=plan.native_files if not native else ()))
    if plan.bootstrap_slices:
        frames.append(read_bootstrap_slices(spark, plan.bootstrap_slices, struct, meta.storage))
    if not frames:
        return spark.createDataFrame([], struct)
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    if plan.query_type is QueryType.INCREMENTAL and plan.begin is not None and plan.end is not None:
        result = result.where((F.col(COMMIT_TIME_FIELD) > F.lit(plan.begin))
                              & (F.col(COMMIT_TIME_FIELD) <= F.lit(plan.end)))
    return result
