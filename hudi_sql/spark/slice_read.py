"""Read tasks of the ``hudi`` Python data source, batch and streaming: one file slice each.

Spark pickles a data source reader for its read tasks, so what a task needs is split in two:
:class:`SliceReadContext`, the same for every slice of one read (schema, instants, merge rules,
incremental range), and :class:`SliceInputPartition`, one file slice. A batch read ships the
context with its reader; a streaming read plans every micro-batch anew, so each of its
partitions carries the micro-batch's context along with its slice.
"""

from __future__ import annotations

__all__ = ["SliceInputPartition", "SliceReadContext", "read_slice", "slice_read"]

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import InputPartition

from hudi_sql.config import QueryType
from hudi_sql.model.schema import COMMIT_TIME_FIELD, META_FIELDS
from hudi_sql.read.bootstrap_read import BootstrapSlice, read_bootstrap_slice
from hudi_sql.read.file_group_reader import FileSliceSpec, read_file_slice
from hudi_sql.read.merge_exec import slice_specs
from hudi_sql.spark.schema import add_meta_fields, to_arrow_schema
from hudi_sql.storage.fs import Storage

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.types import StructType

    from hudi_sql.keygen.record_key import RecordKeySpec
    from hudi_sql.model.payload import Payload
    from hudi_sql.read.plan import ReadPlan
    from hudi_sql.table.meta_client import TableMetaClient


@dataclass(frozen=True)
class SliceReadContext:
    """What every read task needs besides its slice (picklable; made from one :class:`ReadPlan`).

    Attributes:
        target_schema_json: the Spark schema of the rows, as JSON (Arrow schemas are built from it).
        completed_instants: instants whose log blocks count (the plan's).
        max_instant: the query instant (log blocks after it are ignored).
        timeline_start: the first write instant of the active timeline.
        ordering_field, payload: how log records merge with base rows.
        begin, end: incremental queries keep rows with ``_hoodie_commit_time`` in (begin, end].
        skip_undecodable_blocks: the read option ``ignoreCorruptFiles`` (Spark's name): a log
            block that does not decode is skipped with a warning instead of failing the read.
        output_columns: the columns Spark asked for, when the read needs more (a catalog table's
            schema without the meta columns: merging and incremental filtering use them).
        key_spec: a table without meta fields: how its record keys are computed from its rows.
    """

    target_schema_json: str
    completed_instants: tuple[str, ...]
    max_instant: str | None
    timeline_start: str | None
    ordering_field: str | None
    payload: Payload
    begin: str | None = None
    end: str | None = None
    skip_undecodable_blocks: bool = False
    output_columns: tuple[str, ...] | None = None
    storage: Storage = field(default_factory=Storage)  # the table's store, with the driver's credentials
    key_spec: RecordKeySpec | None = None


class SliceInputPartition(InputPartition):
    """One input partition of a read: one file slice (base file and/or log files), with the
    context of its read when the reader does not carry it (streaming micro-batches)."""

    def __init__(self, spec: FileSliceSpec | BootstrapSlice, context: SliceReadContext | None = None) -> None:
        super().__init__(spec)
        self.spec = spec
        self.context = context


def slice_read(meta: TableMetaClient, plan: ReadPlan, schema: StructType, *,
               skip_undecodable_blocks: bool = False) -> tuple[SliceReadContext, list[FileSliceSpec | BootstrapSlice]]:
    """The context and the slices of *plan*, read as *schema* (every planned file becomes a
    slice: base files alone, file groups whose logs merge, and bootstrap skeletons with their
    source files)."""
    ordering_field, payload = meta.record_payload()  # payload class (v6) or merge mode (v8)
    first = meta.timeline.write_timeline().first
    incremental = plan.query_type is QueryType.INCREMENTAL
    names = schema.fieldNames()
    complete = all(name in names for name in META_FIELDS)
    context = SliceReadContext(
        (schema if complete else add_meta_fields(schema)).json(), plan.completed_instants, plan.as_of,
        first.instant_time if first else None, ordering_field, payload,
        plan.begin if incremental else None, plan.end if incremental else None,
        skip_undecodable_blocks, None if complete else tuple(names), meta.storage, meta.recomputed_key_spec())
    base_only: list[FileSliceSpec | BootstrapSlice] = [FileSliceSpec("", "", path, ()) for path in plan.native_files]
    return context, [*base_only, *slice_specs(plan), *plan.bootstrap_slices]


def read_slice(context: SliceReadContext, spec: FileSliceSpec | BootstrapSlice) -> pa.Table:
    """The rows of one slice in a read task: merged (or stitched), then filtered to the
    incremental range."""
    import pyarrow.compute as pc
    from pyspark.sql.types import StructType

    target = to_arrow_schema(StructType.fromJson(_json(context.target_schema_json)))
    if isinstance(spec, BootstrapSlice):
        table = read_bootstrap_slice(spec, target, context.storage)
    else:
        table = read_file_slice(spec, target, completed_instants=context.completed_instants,
                                max_instant=context.max_instant, timeline_start=context.timeline_start,
                                ordering_field=context.ordering_field, payload=context.payload,
                                storage=context.storage, skip_undecodable_blocks=context.skip_undecodable_blocks,
                                key_spec=context.key_spec)
    if context.begin is not None and context.end is not None:
        times = table.column(COMMIT_TIME_FIELD)
        table = table.filter(pc.and_(pc.greater(times, context.begin), pc.less_equal(times, context.end)))
    return table.select(list(context.output_columns)) if context.output_columns is not None else table


def _json(text: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(text)
    return value
