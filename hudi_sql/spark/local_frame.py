"""Small driver-side tables (a write plan's routing, a read plan's file slices, a list of files,
a statement's result) as Spark local relations.

``SparkSession.createDataFrame(rows, ddl)`` of Python rows makes an RDD of pickled rows: every
job that touches the frame unpickles them again in its tasks (a collect of 20 such rows took
~120 ms on two cores). The same rows passed as an Arrow table stay in the plan as a
``LocalRelation``: collecting them runs no Spark job (3 ms), and the jobs that read them (a
broadcast, a task frame's scan) read them from the plan. Six Spark-heavy test modules ran 11 %
faster with the write, read and service frames built this way.
"""

from __future__ import annotations

__all__ = ["local_frame", "task_frame"]

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


def local_frame(spark: SparkSession, rows: Sequence[Sequence[Any]], ddl: str) -> DataFrame:
    """*rows* (tuples in the column order of *ddl*, e.g. ``"path string, size long"``) as a
    DataFrame that Spark keeps in its plan (meant for driver-side tables of up to thousands of
    rows; Spark turns one above ``spark.sql.execution.arrow.localRelationThreshold`` into an RDD)."""
    import pyarrow as pa

    struct, schema = _schemas(ddl)
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema]
    table = pa.Table.from_arrays([pa.array(list(values), type=field.type) for values, field in zip(
        columns, schema, strict=True)], schema=schema)
    return spark.createDataFrame(table, struct)


def task_frame(spark: SparkSession, rows: Sequence[Sequence[Any]], ddl: str, *,
               max_tasks: int | None = None) -> DataFrame:
    """*rows* as a :func:`local_frame` spread over one Spark task per row, up to *max_tasks* (twice the
    default parallelism unless given): the input of a ``mapInArrow`` whose tasks each do a piece of
    work the driver planned (a file slice to merge, a file to read, a group to cluster)."""
    cap = max_tasks if max_tasks is not None else 2 * spark.sparkContext.defaultParallelism
    return local_frame(spark, rows, ddl).repartition(max(1, min(len(rows), cap)))


# DDL text -> its Spark and Arrow schemas. The DDLs are constants of this package's modules, so
# this stays small; a parsed schema holds no reference to a session.
_SCHEMAS: dict[str, tuple[StructType, pa.Schema]] = {}


def _schemas(ddl: str) -> tuple[StructType, pa.Schema]:
    found = _SCHEMAS.get(ddl)
    if found is None:
        from pyspark.sql.pandas.types import to_arrow_schema
        from pyspark.sql.types import StructType, TimestampNTZType, TimestampType

        struct = StructType.fromDDL(ddl)
        if any(isinstance(f.dataType, (TimestampType, TimestampNTZType)) for f in struct.fields):
            # Arrow would read a naive datetime as UTC where createDataFrame reads it as local time.
            raise ValueError(f"local_frame takes no timestamp columns: {ddl}")
        found = _SCHEMAS[ddl] = (struct, to_arrow_schema(struct))
    return found
