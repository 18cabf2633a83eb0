"""An order-independent checksum of a table's rows: count plus a sum of row hashes mod 2**64.

A row's hash mixes the record key (its minute ``yyyyMMddHHmm`` and drone number, both parsed
as integers), ``event_ts`` in microseconds and the exact bits of ``latitude``. Two tables agree
when they hold the same keys with the same latest version of each row, whatever the order of
rows or files. The sum is additive, so partial checksums (Spark tasks, Arrow batches) combine
with :meth:`Checksum.__add__`.
"""

from __future__ import annotations

__all__ = ["COLUMNS", "Checksum", "checksum_batches", "spark_checksum"]

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from bench.workload import KEY, ORDERING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

COLUMNS = (KEY, ORDERING, "latitude")
_MASK = (1 << 64) - 1


@dataclass(frozen=True)
class Checksum:
    count: int = 0
    value: int = 0  # sum of row hashes mod 2**64

    def __add__(self, other: Checksum) -> Checksum:
        return Checksum(self.count + other.count, (self.value + other.value) & _MASK)

    @property
    def hex(self) -> str:
        return f"{self.value:016x}"

    def to_json(self) -> dict[str, object]:
        return {"count": self.count, "checksum": self.hex}


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser; uint64 arrays wrap on overflow, as intended."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _as_u64(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False)).astype(np.int64).view(np.uint64)


def row_hashes(
    key: pa.Array | pa.ChunkedArray,
    event_ts: pa.Array | pa.ChunkedArray,
    latitude: pa.Array | pa.ChunkedArray,
) -> np.ndarray:
    minute = _as_u64(pc.cast(pc.utf8_slice_codeunits(key, 0, 12), pa.int64()))
    drone = _as_u64(pc.cast(pc.utf8_slice_codeunits(key, 14), pa.int64()))  # after "_D"
    ts = _as_u64(pc.cast(event_ts, pa.int64()))
    lat = np.asarray(latitude.to_numpy(zero_copy_only=False), dtype=np.float64).view(np.uint64)
    h = _mix(minute)
    for part in (drone, ts, lat):
        h = _mix(h ^ part)
    return h


def _of_batch(batch: pa.RecordBatch | pa.Table) -> Checksum:
    if batch.num_rows == 0:
        return Checksum()
    h = row_hashes(batch.column(KEY), batch.column(ORDERING), batch.column("latitude"))
    return Checksum(batch.num_rows, int(np.sum(h, dtype=np.uint64)))


def checksum_batches(batches: Iterable[pa.RecordBatch | pa.Table]) -> Checksum:
    total = Checksum()
    for batch in batches:
        total = total + _of_batch(batch)
    return total


def _partial_checksums(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A Spark ``mapInArrow`` function: one (count, hash sum) row per task."""
    total = checksum_batches(batches)
    signed = total.value - (1 << 64) if total.value >= 1 << 63 else total.value
    yield pa.RecordBatch.from_pydict(
        {"n": [total.count], "h": [signed]}, schema=pa.schema([("n", pa.int64()), ("h", pa.int64())])
    )


def spark_checksum(df: DataFrame) -> Checksum:
    """The checksum of a Spark DataFrame, computed in its tasks; only one row per task is collected."""
    total = Checksum()
    for row in df.select(*COLUMNS).mapInArrow(_partial_checksums, "n long, h long").collect():
        total = total + Checksum(int(row["n"]), int(row["h"]) & _MASK)
    return total
