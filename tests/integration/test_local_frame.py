"""Driver-side task tables (plans, file lists, statement results) stay in Spark's plan."""

from __future__ import annotations

from typing import Any

import pytest

from hudi_sql.spark.local_frame import local_frame

pytestmark = pytest.mark.spark


def _jobs(spark: Any) -> int:
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(None))


def test_rows_keep_their_values_nulls_and_types_and_an_empty_table_its_schema(spark: Any) -> None:
    rows = [("p1", 3, None, True), (None, 2**40, 1.5, None)]
    frame = local_frame(spark, rows, "p string, n long, d double, b boolean")
    assert [tuple(r) for r in frame.collect()] == rows
    assert frame.schema.simpleString() == "struct<p:string,n:bigint,d:double,b:boolean>"
    empty = local_frame(spark, [], "path string")
    assert empty.collect() == [] and empty.columns == ["path"]


def test_collecting_it_runs_no_spark_job_and_it_joins_as_a_broadcast_side(spark: Any) -> None:
    from pyspark.sql import functions as F

    routes = local_frame(spark, [("p1", "f1", 0), ("p2", "f2", 1)], "_up string, _uf string, _ub int")
    before = _jobs(spark)
    assert [tuple(r) for r in routes.collect()] == [("p1", "f1", 0), ("p2", "f2", 1)]
    assert _jobs(spark) == before, "a statement's result is shown without a Spark job"
    records = spark.createDataFrame([("p1", "f1"), ("p2", None)], "p string, f string")
    joined = records.join(F.broadcast(routes), (F.col("p") == F.col("_up")) & (F.col("f") == F.col("_uf")), "left")
    assert sorted((r["p"], r["_ub"]) for r in joined.collect()) == [("p1", 0), ("p2", None)]


def test_timestamp_columns_are_refused(spark: Any) -> None:
    with pytest.raises(ValueError, match="timestamp"):
        local_frame(spark, [], "t timestamp")
