"""The ``hudi`` Python data source: path reads in any Spark 4 session, and the provider name of
``USING hudi`` catalog tables.

Spark 4 registers a Python data source by itself from every installed top-level module named
``pyspark_*`` that defines ``DefaultSource`` (``pyspark/sql/worker/lookup_data_sources.py``);
:mod:`pyspark_hudi` is that module, and this class is its ``DefaultSource``. So in a session
hudi-sql did not set up (plain ``pyspark``, ``spark-submit``, Spark's own Thrift server),
``spark.read.format("hudi").load(path)`` works with Apache Hudi's read options: snapshot,
read_optimized, incremental and time travel (``as.of.instant``); so does
``spark.readStream.format("hudi").load(path)``, in every session (:mod:`hudi_sql.streaming.source`).

How a read runs. Spark calls :meth:`HudiDataSource.schema` and :meth:`HudiDataSource.reader`
in Python workers started by the driver, so the plan (:func:`~hudi_sql.read.plan.plan_read`)
is made there, over the table's timeline and listings. Spark pickles the reader (for the read
tasks) *before* it asks for :meth:`HudiDataSourceReader.partitions`, so the reader keeps only
what every task needs (:class:`SliceReadContext`) and the planned slices stay behind
(``__getstate__``); each input partition then carries one file slice, read by
:func:`~hudi_sql.read.file_group_reader.read_file_slice` as Arrow record batches. Unlike
:mod:`hudi_sql.engine.format_hook` (the sessions hudi-sql sets up), base files are read in
Python here too: the data source API has no way to hand them to Spark's Parquet reader.

What it refuses, with a :class:`~hudi_sql.errors.HudiError` naming the alternative:

* writes (``df.write.format("hudi")`` outside hudi-sql's sessions): a Hudi write controls its
  own shuffle and commit, which the data source API does not allow (streaming writes go
  through ``foreachBatch`` instead, :mod:`hudi_sql.streaming.sink`);
* reads of a catalog table ``USING hudi`` that hudi-sql did not register: Spark 4 hands a
  Python data source no options at all for such a table (not its location, not its
  properties; checked on Spark 4.3), only its schema, so the source finds the table only
  through the marker hudi-sql puts in the schemas it registers (:mod:`.table_marker`).

Workers need pyarrow and hudi-sql: ``PYSPARK_PYTHON`` must be the Python hudi-sql is installed
in (see ``docs/engines.md``).
"""

from __future__ import annotations

__all__ = [
    "USE_INSTEAD",
    "WRITE_INSTEAD",
    "HudiDataSource",
    "HudiDataSourceReader",
    "register_datasource",
]

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceWriter,
    Filter,
    InputPartition,
)

from hudi_sql.config import HudiConfigs, HudiReadConfig, QueryType
from hudi_sql.config.registry import canonical_key
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.errors import HudiConfigError, HudiError, UnsupportedFeatureError
from hudi_sql.read.glob import has_glob, resolve_glob
from hudi_sql.read.plan import plan_read
from hudi_sql.read.skipping import ColumnPredicate
from hudi_sql.spark.schema import table_struct
from hudi_sql.spark.slice_read import SliceInputPartition, read_slice, slice_read
from hudi_sql.spark.table_marker import marked, marker_of, unmarked
from hudi_sql.storage.fs import Storage
from hudi_sql.streaming.source import HudiStreamReader
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

    from hudi_sql.read.file_group_reader import FileSliceSpec
    from hudi_sql.read.plan import ReadPlan

USE_INSTEAD = (
    "read it by path: spark.read.format('hudi').load('/table/path') (the table's LOCATION); or query it "
    "through hudi-sql: hudi_sql.connect(spark).sql('SELECT ... FROM t') or the hudi-sql shell "
    "(docs/engines.md lists what each engine reads)"
)
WRITE_INSTEAD = (
    "write with hudi_sql.write(df, path, options), df.write.format('hudi') in a session made by "
    "hudi_sql.spark_session(), or SQL in the hudi-sql shell"
)

#: Spark's own options of a path read (the path, and ignoreCorruptFiles); not Hudi read options.
_SPARK_OPTIONS = frozenset({"path", "paths", "ignorecorruptfiles"})


def _refuse_write() -> HudiError:
    return HudiError(
        "Spark's data source API cannot write Hudi tables: a Hudi write runs its own index join, shuffle "
        "and commit.", help=WRITE_INSTEAD)


def _no_path_error() -> HudiError:
    return HudiError(
        "Spark read a Hudi table through its data source API without a path: either load() was called "
        "without one, or a catalog table (CREATE TABLE ... USING hudi) was queried, and Spark 4 passes a "
        "Python data source no options for a catalog table, not even its LOCATION, so the table cannot be "
        "found.", help=USE_INSTEAD)


def _table_path(options: Mapping[str, str]) -> str:
    path = options.get("path")
    if not path:
        if options.get("paths"):
            raise HudiConfigError("A Hudi read takes one table path; load() was given several.",
                                  help="read each table with its own load(path), then union the frames")
        raise _no_path_error()
    return str(path)


def _with_marker(options: Mapping[str, str], schema: StructType) -> Mapping[str, str]:
    """The options of a read, with the path (and query type) of a catalog table found in its
    schema's marker when Spark passed none (see :mod:`.table_marker`)."""
    marker = marker_of(schema)
    if options.get("path") or marker is None:
        return options
    path, read_optimized = marker
    merged = {**options, "path": path}
    if read_optimized and not any(str(k).lower() == HudiReadConfig.QUERY_TYPE.key for k in options):
        merged[HudiReadConfig.QUERY_TYPE.key] = "read_optimized"
    return merged


def _read_options(options: Mapping[str, str]) -> dict[str, str]:
    """The Hudi options of a read, spelled as the registry spells them (Spark lower-cases them)."""
    return {canonical_key(str(k)): str(v) for k, v in options.items() if str(k).lower() not in _SPARK_OPTIONS}


def _plan(path: str, options: Mapping[str, str]) -> tuple[TableMetaClient, ReadPlan]:
    read = ReadConfig.of(HudiConfigs.of(_read_options(options)))
    if read.wants_changes:
        # Rather than the latest state under a CDC request: hudi-sql's reader returns the changes.
        raise UnsupportedFeatureError(
            f"CDC queries ({HudiReadConfig.INCREMENTAL_FORMAT.key}=cdc) of '{path}' run in hudi-sql's reader.",
            help="use a session from hudi_sql.spark_session() (or hudi_sql.read), or SQL hudi_table_changes")
    partition_filter = None
    if has_glob(path):  # older guides' load(base + "/*/*"): the partitions the glob reaches
        glob = resolve_glob(path)
        path, partition_filter = glob.base_path, glob.partition_filter
    meta = TableMetaClient.load(path, storage=Storage.for_options(options))
    return meta, plan_read(meta, read, partition_filter=partition_filter)


class HudiDataSource(DataSource):
    """``format("hudi")``: reads a Hudi table by path; refuses writes and path-less catalog reads."""

    @classmethod
    def name(cls) -> str:
        return "hudi"

    def schema(self) -> StructType | str:
        """The table's columns, marked with its base path (:mod:`.table_marker`): when Spark asks
        while creating a catalog table (``CREATE TABLE t USING hudi LOCATION '...'`` in any
        session), the marker is stored with them, and later reads of ``t`` find the table."""
        meta, plan = _plan(_table_path(self.options), self.options)
        return marked(table_struct(plan.schema_json), meta.layout.base_path,
                      read_optimized=plan.query_type is QueryType.READ_OPTIMIZED)

    def reader(self, schema: StructType) -> DataSourceReader:
        options = _with_marker(self.options, schema)
        schema = unmarked(schema)
        meta, plan = _plan(_table_path(options), options)
        ignore = next((str(v) for k, v in options.items() if str(k).lower() == "ignorecorruptfiles"), "false")
        # Only a read that asks for data skipping takes Spark's pushed filters: Spark refuses a
        # reader with pushFilters in sessions without `spark.sql.python.filterPushdown.enabled`
        # (its default), which would fail every plain session's filtered read.
        skipping = ReadConfig.of(HudiConfigs.of(_read_options(options))).data_skipping
        reader_class = SkippingHudiDataSourceReader if skipping else HudiDataSourceReader
        return reader_class(meta, plan, schema, skip_undecodable_blocks=ignore.strip().lower() == "true",
                            options=options)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        """``spark.readStream.format("hudi").load(path)``: the records of each newly completed
        commit (:mod:`hudi_sql.streaming.source`)."""
        options = _with_marker(self.options, schema)
        return HudiStreamReader(_table_path(options), _read_options(options), unmarked(schema))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        raise _refuse_write()


class HudiDataSourceReader(DataSourceReader):
    """Reads the slices of one :class:`ReadPlan`, one input partition per slice."""

    def __init__(self, meta: TableMetaClient, plan: ReadPlan, schema: StructType, *,
                 skip_undecodable_blocks: bool = False, options: Mapping[str, str] | None = None) -> None:
        self.context, specs = slice_read(meta, plan, schema, skip_undecodable_blocks=skip_undecodable_blocks)
        self._specs: list[FileSliceSpec] | None = specs
        self._replan = (meta, schema, skip_undecodable_blocks, dict(options or {}))

    def __getstate__(self) -> dict[str, Any]:
        # Spark ships the reader to every read task; the slices travel one per input partition.
        return {"context": self.context}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.context = state["context"]
        self._specs = None
        self._replan = None  # type: ignore[assignment]

    def partitions(self) -> list[InputPartition]:
        if self._specs is None:  # pragma: no cover - Spark plans with the reader it made
            raise HudiError("A Hudi reader shipped to a task cannot plan partitions.")
        return [SliceInputPartition(spec) for spec in self._specs]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, SliceInputPartition):  # an empty table: Spark's single empty partition
            return iter(())
        return iter(read_slice(self.context, partition.spec).to_batches())


class SkippingHudiDataSourceReader(HudiDataSourceReader):
    """The reader of a read with ``hoodie.enable.data.skipping``: it takes Spark's pushed filters
    (which needs ``spark.sql.python.filterPushdown.enabled``; hudi-sql's sessions set it, and
    Spark names it when another session lacks it)."""

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:
        """Plan away the slices the metadata table's column statistics rule out for the pushed
        filters. Every filter is handed back, for Spark to apply to the rows read."""
        meta, schema, skip_undecodable, options = self._replan
        predicates = [p for f in filters if (p := _predicate(f)) is not None]
        if predicates and self._specs is not None:
            plan = plan_read(meta, ReadConfig.of(HudiConfigs.of(_read_options(options))), data_filters=predicates)
            self.context, self._specs = slice_read(meta, plan, schema, skip_undecodable_blocks=skip_undecodable)
        return filters


def _predicate(pushed: Filter) -> ColumnPredicate | None:
    """A filter Spark pushed, as data skipping reads it (top-level columns only), else ``None``."""
    from pyspark.sql import datasource as ds

    negated = isinstance(pushed, ds.Not)
    inner: Any = pushed.child if negated else pushed
    attribute = getattr(inner, "attribute", ())
    if len(attribute) != 1:
        return None
    column = attribute[0]
    if negated:
        return ColumnPredicate(column, "!=", (inner.value,)) if isinstance(inner, ds.EqualTo) else None
    ops = {ds.EqualTo: "=", ds.GreaterThan: ">", ds.GreaterThanOrEqual: ">=", ds.LessThan: "<",
           ds.LessThanOrEqual: "<="}
    op = ops.get(type(inner))
    if op is not None:
        return ColumnPredicate(column, op, (inner.value,))
    if isinstance(inner, ds.In):
        return ColumnPredicate(column, "in", tuple(inner.value))
    if isinstance(inner, ds.IsNull):
        return ColumnPredicate(column, "is_null")
    if isinstance(inner, ds.IsNotNull):
        return ColumnPredicate(column, "is_not_null")
    return None


_registered: set[int] = set()


def register_datasource(spark: SparkSession) -> None:
    """Register :class:`HudiDataSource` on *spark* (once per session).

    Sessions where :mod:`pyspark_hudi` is importable by the workers have it already; hudi-sql's
    own sessions register it explicitly so ``CREATE TABLE ... USING hudi`` works whatever the
    workers' ``sys.path``.
    """
    key = id(spark._jsparkSession)
    if key in _registered:
        return
    spark.dataSource.register(HudiDataSource)
    _registered.add(key)
