"""Whether Spark's own readers reach a path: its Hadoop configuration must have a file system for the scheme.

Spark's Parquet reader is the fast way to read a table's plain base files, but it goes through
Hadoop's ``FileSystem``: ``s3a://`` needs the ``hadoop-aws`` jars on the classpath, ``gs://`` the
GCS connector, and so on. hudi-sql's own backends (pyarrow) reach those stores without them, so
where Spark cannot read a scheme the files are read by hudi-sql's tasks instead: slower for wide
scans, never wrong, and no jar for the user to find.
"""

from __future__ import annotations

__all__ = ["read_parquet_files", "spark_reads_path"]

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from hudi_sql.spark.local_frame import task_frame
from hudi_sql.storage.uri import is_local, scheme_of

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from hudi_sql.storage.fs import Storage

_ANSWERS: dict[tuple[int, str], bool] = {}


def spark_reads_path(spark: SparkSession, path: str) -> bool:
    """True when Spark's Hadoop configuration names a file system class for *path*'s scheme."""
    if is_local(path):
        return True
    scheme = scheme_of(path)
    key = (id(spark.sparkContext), scheme)
    if key not in _ANSWERS:
        try:
            jvm = spark.sparkContext._jvm  # type: ignore[attr-defined]
            conf = spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[union-attr]
            jvm.org.apache.hadoop.fs.FileSystem.getFileSystemClass(scheme, conf)
            _ANSWERS[key] = True
        except Exception:  # noqa: BLE001 - py4j wraps UnsupportedFileSystemException / ClassNotFoundException
            _ANSWERS[key] = False
    return _ANSWERS[key]


def read_parquet_files(spark: SparkSession, paths: list[str], storage: Storage, *,
                       schema: str | None = None) -> DataFrame:
    """The rows of the Parquet files at *paths*: by Spark's reader where it reaches them, else by
    tasks reading through *storage* (the schema from the first file's footer, read here). A
    *schema* (DDL) reads those columns only, without Spark's job that infers one from the files."""
    if not paths or spark_reads_path(spark, paths[0]):
        return (spark.read.schema(schema) if schema else spark.read).parquet(*paths)
    from pyspark.sql.pandas.types import from_arrow_schema

    arrow_schema = storage.parquet_metadata(paths[0]).schema.to_arrow_schema().remove_metadata()
    struct = from_arrow_schema(arrow_schema)
    frame = task_frame(spark, [(p,) for p in paths], "path string")
    return frame.mapInArrow(_file_reader(storage, arrow_schema), struct)


def _file_reader(storage: Storage, schema: pa.Schema) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for path in batch.column(0).to_pylist():
                yield from storage.read_parquet(path, schema=schema).to_batches()

    return run
