"""Auto-generated record keys: tables created without a record key (Apache Hudi 0.14+).

When neither the write nor the table names record key fields, Hudi 0.15 wraps the partition
key generator in ``AutoRecordGenWrapperKeyGenerator``: the partition path is the wrapped key
generator's, the record key is ``HoodieRecord.generateSequenceId``::

    <instantTime>_<sparkPartitionId>_<rowId>

``sparkPartitionId`` is the Spark partition of the input row and ``rowId`` its index within that
partition (from 0), so keys are unique within the batch and, through the instant time, across
the table. ``hoodie.properties`` records the key generator class but no
``hoodie.table.recordkey.fields``.

Here the two parts are computed in the Spark tasks that read the input
(:func:`auto_key_suffix`: ``spark_partition_id()`` and the row index that
``monotonically_increasing_id()`` keeps in its lower 33 bits), before the instant exists; the
write task that writes the record prefixes the instant time (:func:`complete_auto_keys`). A
record that already has a key (UPDATE, DELETE and MERGE carry the stored
``_hoodie_record_key``) keeps it: :data:`AUTO_KEY_COLUMN` marks the records whose key is still
only the suffix. Nothing is collected on the driver.
"""

from __future__ import annotations

__all__ = ["AUTO_KEY_COLUMN", "auto_key_suffix", "complete_auto_keys"]

from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.model.schema import RECORD_KEY_FIELD

if TYPE_CHECKING:
    from pyspark.sql import Column

AUTO_KEY_COLUMN = "_hoodie_auto_key"
"""True for a record whose ``_hoodie_record_key`` is ``<partitionId>_<rowId>`` (no instant yet)."""

_ROW_INDEX_BITS = 33  # monotonically_increasing_id(): partition id << 33 | row index within the partition


def auto_key_suffix() -> Column:
    """``<sparkPartitionId>_<rowId>`` of each input row, evaluated in the task that reads it."""
    from pyspark.sql import functions as F

    row_index = F.monotonically_increasing_id().bitwiseAND(F.lit((1 << _ROW_INDEX_BITS) - 1))
    return F.concat_ws("_", F.spark_partition_id().cast("string"), row_index.cast("string"))


def complete_auto_keys(records: pa.Table, instant_time: str) -> pa.Table:
    """*records* with the instant time put before every key still marked as a suffix, and the
    marker column dropped; records without the marker column are returned unchanged."""
    if AUTO_KEY_COLUMN not in records.column_names:
        return records
    pending = records.column(AUTO_KEY_COLUMN).combine_chunks().fill_null(False)
    keys = records.column(RECORD_KEY_FIELD).combine_chunks().cast(pa.string())
    prefixed = pc.binary_join_element_wise(pa.scalar(instant_time), keys, "_")
    completed = pc.if_else(pending, prefixed, keys)
    index = records.column_names.index(RECORD_KEY_FIELD)
    return records.set_column(index, RECORD_KEY_FIELD, completed).drop_columns([AUTO_KEY_COLUMN])
