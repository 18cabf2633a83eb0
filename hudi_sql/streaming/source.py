"""``spark.readStream.format("hudi").load(path)``: a table's commits as a stream.

An offset is one instant of the table, ``{"instant": "<time>"}``; a micro-batch from offset
*a* to offset *b* emits what an incremental query over ``(a, b]`` returns: the records the
completed writes in that range left, each once, the latest value of a key written twice in it.
Spark keeps the offsets in the query's checkpoint, so a restarted query resumes after the last
instant it emitted, whatever ``hoodie.datasource.streaming.startOffset`` says.

Which instant a micro-batch may reach. On a table of version 6 an instant is named by its
start time, and writers may complete out of that order: a commit started before another may
complete after it. A range that passed a still-pending write would never emit that write's
records once it completed, so the latest offset stops before the earliest pending write (a
pending clustering rewrites records without changing them and does not hold the stream back).
Version 8 tables order completed instants by completion time, which only grows: there the
offset is a completion time and nothing is held back.

History that is gone. A range that starts before the active timeline, once archival moved older
instants out of it, or that needs files the cleaner already removed, cannot be read commit by
commit: the micro-batch fails with an error naming
``hoodie.datasource.read.incr.fallback.fulltablescan.enable``; with it set, the micro-batch
reads the table's snapshot at the range's end, filtered to records last written inside the
range (Apache Hudi's fallback). A query starting at ``earliest`` reads that way from the start:
the table's records as they stand, then each later commit.
"""

from __future__ import annotations

__all__ = ["HudiStreamReader", "latest_offset_instant", "plan_range"]

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition

from hudi_sql.config import HudiConfigs, HudiReadConfig, IncrementalFormat, QueryType
from hudi_sql.config.scoped import ReadConfig, StreamingConfig
from hudi_sql.errors import HudiTimelineError, UnsupportedFeatureError
from hudi_sql.read.plan import EARLIEST, ReadPlan, plan_read
from hudi_sql.services.archive import has_archived_instants
from hudi_sql.spark.slice_read import SliceInputPartition, read_slice, slice_read
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.streaming.datasource import ReadLimit
    from pyspark.sql.types import StructType

_INSTANT = "instant"


def latest_offset_instant(meta: TableMetaClient) -> str:
    """The last instant a micro-batch may reach now (see the module notes), ``000`` before any."""
    timeline = meta.timeline
    completed = timeline.completed_writes()
    if timeline.has_completion_times:
        times = [i.completion_time for i in completed if i.completion_time]
        return max(times) if times else EARLIEST
    pending = [i.instant_time for i in timeline.pending_writes() if not meta.is_clustering_instant(i)]
    horizon = min(pending) if pending else None
    reachable = [i.instant_time for i in completed if horizon is None or i.instant_time < horizon]
    return max(reachable) if reachable else EARLIEST


def plan_range(meta: TableMetaClient, read: ReadConfig, begin: str, end: str) -> ReadPlan:
    """The read of one micro-batch: the records written in ``(begin, end]`` (see the module
    notes for ranges whose history is gone)."""
    archived = not meta.timeline.has_completion_times and (
        begin == EARLIEST or meta.timeline.is_before_start(begin)) and has_archived_instants(meta)
    if archived:
        if begin != EARLIEST and not read.incremental_fallback_full_scan:
            first = meta.timeline.first
            raise HudiTimelineError(
                f"The stream from '{meta.base_path}' resumes after instant {begin}, but archival already "
                f"removed the commits after it from the active timeline (it starts at "
                f"{first.instant_time if first else 'nothing'}), so their records cannot be read commit by commit.",
                help=f"set {HudiReadConfig.INCR_FALLBACK_FULL_SCAN.key}=true to read the table's latest records "
                     "instead, or start a new query (new checkpointLocation)")
        snapshot = plan_read(meta, read.as_of(end))
        return replace(snapshot, query_type=QueryType.INCREMENTAL, begin=begin, end=end)
    return plan_read(meta, read.incremental(begin, end))


class HudiStreamReader(DataSourceStreamReader):
    """Plans each micro-batch as an incremental query over the table at *path*."""

    def __init__(self, path: str, options: Mapping[str, str], schema: StructType) -> None:
        self.path = path
        self.options = dict(options)
        self.schema = schema
        configs = HudiConfigs.of(self.options)  # bad options fail the query's start
        self.read_config = ReadConfig.of(configs)
        self.streaming = StreamingConfig.of(configs)
        self.storage = Storage.for_options(self.options)  # a Python worker: no session to ask
        if self.read_config.incremental_format is IncrementalFormat.CDC:
            raise UnsupportedFeatureError(
                f"A stream from '{path}' emits each changed record's latest state; "
                f"{HudiReadConfig.INCREMENTAL_FORMAT.key}=cdc is for batch reads only.",
                help="read the changes in batches: hudi_table_changes(t, 'cdc', begin, end), or drop the option")

    def initialOffset(self) -> dict[str, Any]:
        start = self.streaming.start_offset
        if start == "earliest":
            return {_INSTANT: EARLIEST}
        if start == "latest":
            return {_INSTANT: latest_offset_instant(TableMetaClient.load(self.path, storage=self.storage))}
        return {_INSTANT: start}

    def latestOffset(self, start: dict[str, Any] | None = None, limit: ReadLimit | None = None) -> dict[str, Any]:
        latest = latest_offset_instant(TableMetaClient.load(self.path, storage=self.storage))
        if start is not None and str(start.get(_INSTANT, EARLIEST)) >= latest:
            return dict(start)  # nothing new (or the start was given past the table's end)
        return {_INSTANT: latest}

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[InputPartition]:
        begin, until = str(start[_INSTANT]), str(end[_INSTANT])
        if until <= begin:
            return []
        meta = TableMetaClient.load(self.path, storage=self.storage)
        context, specs = slice_read(meta, plan_range(meta, self.read_config, begin, until), self.schema)
        return [SliceInputPartition(spec, context) for spec in specs]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, SliceInputPartition) and partition.context is not None
        return iter(read_slice(partition.context, partition.spec).to_batches())

    def commit(self, end: dict[str, Any]) -> None:
        """Nothing to release: the table is only read."""
