"""Precombine inside the write task: one record per key, the one with the highest ordering value.

Hudi deduplicates a batch before writing (``hoodie.combine.before.upsert`` / ``.insert``) with
the payload's ``preCombine``: the record with the greater ordering value wins, and among equal
ones the later arrival. A write task receives every record of its file group, and all records of
one key (in one partition) are routed to the same file group, so the task can combine them
itself: the batch is then never shuffled by key just to drop duplicates. Global indexes, whose
duplicates may sit in different partitions, still combine in Spark (:mod:`hudi_sql.write.prepare`).
"""

from __future__ import annotations

__all__ = ["ARRIVAL_COLUMN", "latest_per_key"]

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.model.schema import RECORD_KEY_FIELD

ARRIVAL_COLUMN = "_hoodie_arrival"  # input order of a record, so later arrivals win ties


def latest_per_key(records: pa.Table, ordering_field: str | None) -> pa.Table:
    """*records* without duplicate keys: per key the highest ordering value (nulls lowest: Arrow sorts them last), then
    the latest arrival. Rows keep no particular order. The arrival column is dropped."""
    keys = records.column(RECORD_KEY_FIELD)
    if records.num_rows > 1 and pc.count_distinct(keys).as_py() < records.num_rows:
        sort_keys = [(RECORD_KEY_FIELD, "ascending")]
        if ordering_field and ordering_field in records.column_names:
            sort_keys.append((ordering_field, "descending"))
        sort_keys.append((ARRIVAL_COLUMN, "descending"))
        ordered = records.take(pc.sort_indices(records, sort_keys=sort_keys))
        sorted_keys = ordered.column(RECORD_KEY_FIELD).combine_chunks()
        first = pc.not_equal(sorted_keys.slice(1), sorted_keys.slice(0, len(sorted_keys) - 1))
        records = ordered.filter(pa.concat_arrays([pa.array([True]), first.fill_null(True)]))
    if ARRIVAL_COLUMN in records.column_names:
        records = records.drop_columns([ARRIVAL_COLUMN])
    return records
