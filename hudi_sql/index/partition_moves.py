"""A record that changes partition under a global index, merged with the stored record first.

With ``hoodie.*.index.update.partition.path`` on, Apache Hudi (0.14 and later, every table
version) does not move a record merely because the incoming one names another partition: it
merges the incoming record with the stored one by the payload, and the *merged* record decides.
Under an ordering payload (``DefaultHoodieRecordPayload``, ``EventTimeAvroPayload``, the
version 8 merge mode ``EVENT_TIME_ORDERING``) an incoming record whose ordering value is lower
than the stored one's loses: the merged record is the stored one, in its own partition, and
nothing moves. :func:`stored_ordering` reads those stored values — the latest file slices of the
file groups the batch would move records out of, merged with their logs as a snapshot reads
them — so :func:`~hudi_sql.index.simple.tag_location` keeps a late record where its key is.
The driver learns only which file groups those are (ids, not rows).
"""

from __future__ import annotations

__all__ = ["StoredOrdering", "stored_ordering"]

from collections.abc import Callable
from typing import TYPE_CHECKING

from hudi_sql.config import QueryType
from hudi_sql.index.base import IndexContext
from hudi_sql.model.schema import RECORD_KEY_FIELD
from hudi_sql.read.merge_exec import read_merged_slices
from hudi_sql.read.plan import ReadPlan
from hudi_sql.spark.schema import table_struct

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: ``(moving) -> stored``: for rows ``(_ek, _ep, _ef)`` leaving a file group, each key's stored
#: ordering value as ``(_sk, _so)``, or ``None`` when no row moves.
StoredOrdering = Callable[["DataFrame"], "DataFrame | None"]


def stored_ordering(context: IndexContext) -> StoredOrdering | None:
    """How to look up stored ordering values for *context*'s write, or ``None`` when a partition
    move never depends on them (no ordering field, or a payload where the incoming record wins)."""
    ordering = context.ordering_field
    if not ordering or not context.ordered_merge:
        return None

    def lookup(moving: DataFrame) -> DataFrame | None:
        from pyspark.sql import functions as F

        groups = {(r[0], r[1]) for r in moving.select("_ep", "_ef").distinct().collect()}
        if not groups:
            return None
        meta = context.meta_client
        partitions = sorted({p for p, _ in groups})
        slices = tuple(s for s in context.view.latest_file_slices(partitions)
                       if (s.partition_path, s.file_id) in groups)
        schema = meta.latest_schema()
        struct = table_struct(schema)
        if ordering not in struct.fieldNames():
            return None
        completed = meta.timeline.completed_writes()
        latest = completed.last.instant_time if completed.last else None
        plan = ReadPlan(QueryType.SNAPSHOT, latest, schema, merge_slices=slices,
                        completed_instants=tuple(completed.times()))
        rows = read_merged_slices(moving.sparkSession, meta, plan, struct)
        key = F.col(RECORD_KEY_FIELD) if meta.populate_meta_fields else context.keygen.record_key()
        return rows.select(key.alias("_sk"), F.col(ordering).alias("_so"))

    return lookup
