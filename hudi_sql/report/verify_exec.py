"""The Spark tasks of ``verify_table``'s reader comparison: each reads its share of the latest
snapshot (rows from hudi-sql's read, or whole file slices through the Rust reader ``hudi``) and
returns, per partition, how many rows it saw and a digest of their record keys. The driver sums
the digests per partition and compares the two readers; no row reaches it.

The digest of a set of keys is the sum of their CRC-32s: it does not depend on the order rows
arrive in or on how they are split into tasks, and two readers agree on it only when they return
the same keys (a missing, extra or duplicated key changes it, with near certainty).
"""

from __future__ import annotations

__all__ = ["DIGEST_DDL", "digest_rows", "digest_slices"]

import json
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.model.schema import PARTITION_PATH_FIELD, RECORD_KEY_FIELD

DIGEST_DDL = "partition string, num_rows long, key_digest long"
_DIGEST_SCHEMA = pa.schema([("partition", pa.string()), ("num_rows", pa.int64()), ("key_digest", pa.int64())])


def _digests(rows: dict[str, list[int]]) -> pa.RecordBatch:
    partitions = sorted(rows)
    return pa.RecordBatch.from_arrays(
        [pa.array(partitions, pa.string()), pa.array([rows[p][0] for p in partitions], pa.int64()),
         pa.array([rows[p][1] for p in partitions], pa.int64())], schema=_DIGEST_SCHEMA)


def _add(totals: dict[str, list[int]], partition: str, keys: pa.Array) -> None:
    total = totals[partition]
    total[0] += len(keys)
    total[1] += sum(zlib.crc32(str(k).encode("utf-8")) for k in keys.to_pylist() if k is not None)


def digest_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The mapInArrow function over hudi-sql's snapshot (partition path and record key columns)."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for batch in batches:
        table = pa.Table.from_batches([batch])
        for partition in set(table.column(PARTITION_PATH_FIELD).to_pylist()):
            mask = pc.equal(table.column(PARTITION_PATH_FIELD), pa.scalar(partition, pa.string()))
            _add(totals, partition or "", table.filter(mask).column(RECORD_KEY_FIELD).combine_chunks())
    yield _digests(totals)


def digest_slices(base_uri: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function reading file slices (partition, base file, log files as JSON, paths
    relative to *base_uri*) through the Rust reader's file group reader."""

    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        # The Rust reader is optional (the verifier's second opinion): imported where the task runs.
        from hudi import HudiFileGroupReader

        reader = HudiFileGroupReader(base_uri)
        totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for batch in batches:
            for partition, base, logs in zip(*(batch.column(i).to_pylist() for i in range(3)), strict=True):
                records = reader.read_file_slice_from_paths(base, json.loads(logs))
                _add(totals, partition or "", records.column(records.schema.get_field_index(RECORD_KEY_FIELD)))
        yield _digests(totals)

    return read
