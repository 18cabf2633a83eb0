"""``spark.read.format("hudi")`` and ``df.write.format("hudi")`` routed to hudi-sql.

Why a hook and not a Python data source: a Python ``DataSource`` reads rows in Python
workers, but base files must be read by Spark's native Parquet reader wherever no merge is
needed, and a write must control its own shuffle (index join, one task per file group) and
commit. Neither fits the data source API. So in the sessions hudi-sql registers, the
``hudi`` format of ``DataFrameReader.load`` and ``DataFrameWriter.save`` is handled by
:func:`hudi_sql.engine.read.read_table` and :func:`hudi_sql.engine.write.write`, and
``DataFrameWriter.saveAsTable`` by the SQL session (it creates or resolves a catalog table);
and ``DataStreamWriter.start`` by the streaming sink (:mod:`hudi_sql.streaming.sink`); every
other format goes to Spark unchanged. Streaming reads are served by the ``hudi`` Python data
source in every session; the hook only hands it the session's object-store keys.
"""

from __future__ import annotations

__all__ = ["HUDI_FORMAT_NAMES", "install"]

import functools
from typing import TYPE_CHECKING, Any

from hudi_sql.engine.read import read_table
from hudi_sql.engine.write import write
from hudi_sql.storage.settings import StorageSettings
from hudi_sql.storage.uri import is_local
from hudi_sql.streaming.sink import StreamingSink, start_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

HUDI_FORMAT_NAMES = frozenset({"hudi", "org.apache.hudi"})

_installed = False


def install(spark: SparkSession) -> None:
    """Install the hook once per process (idempotent); *spark* is only checked to be live."""
    global _installed
    _ = spark.version
    if _installed:
        return
    from pyspark.sql.readwriter import DataFrameReader, DataFrameWriter
    from pyspark.sql.streaming.readwriter import DataStreamReader, DataStreamWriter

    for cls in (DataFrameReader, DataFrameWriter, DataStreamReader, DataStreamWriter):
        _wrap_option_methods(cls)
    _wrap_stream_start(DataStreamWriter)
    _wrap_stream_load(DataStreamReader)
    original_load = DataFrameReader.load
    original_save = DataFrameWriter.save
    original_mode = DataFrameWriter.mode
    original_save_as_table = DataFrameWriter.saveAsTable

    @functools.wraps(original_load)
    def load(self: DataFrameReader, path: Any = None, format: str | None = None, schema: Any = None,
             **options: Any) -> DataFrame:
        if _is_hudi(self, format):
            merged = _merged_options(self, options)
            base = path or merged.pop("path", None)
            return read_table(self._spark, base, merged)
        return original_load(self, path, format, schema, **options)

    @functools.wraps(original_mode)
    def mode(self: DataFrameWriter, save_mode: str | None) -> DataFrameWriter:
        self._hudi_mode = save_mode  # type: ignore[attr-defined]
        return original_mode(self, save_mode)

    @functools.wraps(original_save)
    def save(self: DataFrameWriter, path: str | None = None, format: str | None = None, mode: str | None = None,
             partitionBy: Any = None, **options: Any) -> None:
        if _is_hudi(self, format):
            merged = _merged_options(self, options)
            base = path or merged.pop("path", None)
            write(self._df, base, merged, mode=mode or getattr(self, "_hudi_mode", None) or "append")
            return None
        return original_save(self, path, format, mode, partitionBy, **options)

    @functools.wraps(original_save_as_table)
    def save_as_table(self: DataFrameWriter, name: str, format: str | None = None, mode: str | None = None,
                      partitionBy: Any = None, **options: Any) -> None:
        if _is_hudi(self, format):
            # Imported here: the root package imports this module (through spark.session) while
            # it initialises, and its connect() is what saveAsTable runs through.
            from hudi_sql import connect

            if partitionBy is not None:
                self.partitionBy(partitionBy)
            merged = _merged_options(self, options)
            connect(self._spark).save_as_table(
                self._df, name, mode=mode or getattr(self, "_hudi_mode", None), options=merged,
                partition_by=getattr(self, "_hudi_partition_by", None),
            )
            return None
        return original_save_as_table(self, name, format, mode, partitionBy, **options)

    DataFrameReader.load = load  # type: ignore[method-assign]
    for cls in (DataFrameWriter, DataStreamWriter):
        _wrap_partition_by(cls)
    DataFrameWriter.saveAsTable = save_as_table  # type: ignore[method-assign]
    DataFrameWriter.mode = mode  # type: ignore[method-assign]
    DataFrameWriter.save = save  # type: ignore[method-assign]
    _installed = True


def _wrap_stream_start(cls: Any) -> None:
    """``writeStream.format("hudi").start(path)``: the Hudi streaming sink, through Spark's
    ``foreachBatch`` (:mod:`hudi_sql.streaming.sink` says why)."""
    original_start = cls.start

    @functools.wraps(original_start)
    def start(self: Any, path: str | None = None, format: str | None = None, outputMode: str | None = None,
              partitionBy: Any = None, queryName: str | None = None, **options: Any) -> Any:
        if not _is_hudi(self, format):
            return original_start(self, path, format, outputMode, partitionBy, queryName, **options)

        merged = _merged_options(self, options)
        base = path or merged.pop("path", None)
        sink = StreamingSink(base or "", start_options(merged, partitionBy or getattr(self, "_hudi_partition_by", None)))
        self.foreachBatch(sink)
        return original_start(self, None, None, outputMode, None, queryName)

    cls.start = start


def _wrap_stream_load(cls: Any) -> None:
    """``readStream.format("hudi").load(path)`` of a table in a bucket: the ``hudi`` Python data
    source plans in a Python worker, which has no Spark configuration to find the store's keys in,
    so the session's (``spark.hadoop.fs.s3a.*`` …) travel with the options; keys the options set
    themselves win."""
    original_load = cls.load

    @functools.wraps(original_load)
    def load(self: Any, path: str | None = None, format: str | None = None, schema: Any = None,
             **options: Any) -> Any:
        if _is_hudi(self, format):
            merged = _merged_options(self, options)
            base = path or merged.get("path")
            if base and not is_local(str(base)):
                session = StorageSettings.from_spark(self._spark, merged)
                options = {**{f"spark.hadoop.{k}": v for k, v in session.hadoop}, **options}
        return original_load(self, path, format, schema, **options)

    cls.load = load


def _wrap_partition_by(cls: Any) -> None:
    """Keep a Python copy of ``partitionBy``'s columns (batch and stream writers alike)."""
    original_partition_by = cls.partitionBy

    @functools.wraps(original_partition_by)
    def partition_by(self: Any, *cols: Any) -> Any:
        names = cols[0] if len(cols) == 1 and isinstance(cols[0], (list, tuple)) else cols
        self._hudi_partition_by = [str(c) for c in names]
        return original_partition_by(self, *cols)

    cls.partitionBy = partition_by


def _is_hudi(obj: Any, format: str | None) -> bool:
    if format is not None:
        return format.lower() in HUDI_FORMAT_NAMES
    return bool(getattr(obj, "_hudi_format", False))


def _wrap_option_methods(cls: Any) -> None:
    """Keep a Python copy of format and options: the JVM side holds them privately."""
    original_format = cls.format
    original_option = cls.option
    original_options = cls.options

    @functools.wraps(original_format)
    def format(self: Any, source: str) -> Any:
        self._hudi_format = source.lower() in HUDI_FORMAT_NAMES
        return original_format(self, source)

    @functools.wraps(original_option)
    def option(self: Any, key: str, value: Any) -> Any:
        _options(self)[key] = _option_string(value)
        return original_option(self, key, value)

    @functools.wraps(original_options)
    def options(self: Any, **opts: Any) -> Any:
        _options(self).update({k: _option_string(v) for k, v in opts.items()})
        return original_options(self, **opts)

    cls.format, cls.option, cls.options = format, option, options


def _merged_options(obj: Any, options: dict[str, Any]) -> dict[str, str]:
    """The options set on the reader or writer, then those passed to the call itself."""
    return {**getattr(obj, "_hudi_options", {}), **{k: _option_string(v) for k, v in options.items()}}


def _options(obj: Any) -> dict[str, str]:
    if not hasattr(obj, "_hudi_options"):
        obj._hudi_options = {}
    return obj._hudi_options  # type: ignore[no-any-return]


def _option_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
