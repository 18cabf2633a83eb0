"""The workload: scales, the telemetry schema, and where the generated inputs live.

Shared by the generator, the runner and every system, so that all of them agree on the
record key, the partition column and the ordering field without importing one another.
"""

from __future__ import annotations

__all__ = [
    "KEY",
    "ORDERING",
    "PARTITION",
    "SCALES",
    "SCHEMA",
    "WORKLOADS",
    "Inputs",
    "Scale",
    "cow_bloom_options",
]

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pyarrow as pa

KEY = "record_key"
PARTITION = "day"
ORDERING = "event_ts"


def cow_bloom_options(table_name: str) -> dict[str, str]:
    """The hudi-sql options of a Copy-On-Write drone table with the BLOOM index, key-range pruning on
    (``hudi_cow_bloom``'s choice; the benchmarks that add to it start here)."""
    return {
        "hoodie.table.name": table_name,
        "hoodie.datasource.write.recordkey.field": KEY,
        "hoodie.datasource.write.partitionpath.field": PARTITION,
        "hoodie.datasource.write.precombine.field": ORDERING,
        "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
        "hoodie.index.type": "BLOOM",
        "hoodie.bloom.index.prune.by.ranges": "true",
    }

#: Drone telemetry: two ids besides the key, six doubles, a status, an int, the event time and the day.
SCHEMA = pa.schema(
    [
        pa.field(KEY, pa.string(), nullable=False),  # yyyyMMddHHmm_D<droneId>, increasing with time
        pa.field("drone_id", pa.string(), nullable=False),
        pa.field("mission_id", pa.int64(), nullable=False),
        pa.field(ORDERING, pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("latitude", pa.float64(), nullable=False),
        pa.field("longitude", pa.float64(), nullable=False),
        pa.field("altitude_m", pa.float64(), nullable=False),
        pa.field("speed_mps", pa.float64(), nullable=False),
        pa.field("heading_deg", pa.float64(), nullable=False),
        pa.field("battery_pct", pa.float64(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("satellites", pa.int32(), nullable=False),
        pa.field(PARTITION, pa.string(), nullable=False),  # yyyy-mm-dd
    ]
)


#: What a batch holds: ``daily`` (one new day of inserts plus corrections to the day before) or
#: ``update_heavy`` (no inserts: ``update_fraction`` of every loaded day's rows updated, the
#: Merge-On-Read case of issue-sized corrections spread over the whole table).
WORKLOADS = ("daily", "update_heavy")
_UPDATE_FRACTIONS = {"daily": 0.05, "update_heavy": 0.2}


@dataclass(frozen=True)
class Scale:
    """How much data: an initial load of ``days`` days, then ``batches`` upsert batches.

    In the ``daily`` workload each batch inserts one new day of ``rows_per_day`` rows and
    updates ``update_fraction`` of the previous day's rows with a later ``event_ts``; in the
    ``update_heavy`` workload it updates ``update_fraction`` (20 %) of every initial day's rows
    and inserts nothing. The scaling run loads
    ``scaling_factor`` times the initial days (the extra days precede them), then applies
    batch 1 unchanged, so its input is byte for byte the base run's first batch.
    """

    name: str
    rows_per_day: int
    days: int
    batches: int
    update_fraction: float = _UPDATE_FRACTIONS["daily"]
    scaling_factor: int = 10
    seed: int = 20240101
    workload: str = "daily"

    @property
    def id(self) -> str:
        """Names this scale's inputs and results (inputs are cached under it)."""
        workload = "" if self.workload == "daily" else f"-{self.workload}"
        return f"{self.name}-{self.rows_per_day}x{self.days}+{self.batches}{workload}-s{self.seed}"

    def with_workload(self, workload: str) -> Scale:
        """This scale with *workload*'s batches (``update_heavy`` updates 20 % of the table)."""
        if workload not in WORKLOADS:
            raise ValueError(f"unknown workload {workload!r}; known: {', '.join(WORKLOADS)}")
        if workload == self.workload:
            return self
        return replace(self, workload=workload, update_fraction=_UPDATE_FRACTIONS[workload])

    def with_overrides(
        self, *, rows_per_day: int | None = None, days: int | None = None, batches: int | None = None
    ) -> Scale:
        changes = {
            k: v
            for k, v in (("rows_per_day", rows_per_day), ("days", days), ("batches", batches))
            if v is not None
        }
        if not changes:
            return self
        return replace(self, name=f"{self.name}-custom", **changes)

    @property
    def rows_final(self) -> int:
        new_days = self.batches if self.workload == "daily" else 0
        return self.rows_per_day * (self.days + new_days)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


SCALES: dict[str, Scale] = {
    "small": Scale("small", rows_per_day=50_000, days=4, batches=5),
    "medium": Scale("medium", rows_per_day=1_000_000, days=7, batches=5),
}


@dataclass(frozen=True)
class Inputs:
    """The generated Parquet inputs of one scale, under ``root``.

    Layout: ``initial/day-<n>.parquet`` (one file per initial day, ``n`` counted from the
    first initial day; the scaling run's earlier days have negative ``n``),
    ``batches/batch-<k>.parquet`` (k = 1..batches) and ``manifest.json``.
    """

    root: Path
    scale: Scale

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def day_file(self, day: int) -> Path:
        return self.root / "initial" / f"day-{day:+05d}.parquet"

    def initial_files(self) -> list[Path]:
        return [self.day_file(d) for d in range(self.scale.days)]

    def scaling_files(self) -> list[Path]:
        extra = (self.scale.scaling_factor - 1) * self.scale.days
        return [self.day_file(d) for d in range(-extra, self.scale.days)]

    def batch_file(self, k: int) -> Path:
        return self.root / "batches" / f"batch-{k:02d}.parquet"

    def batch_files(self) -> list[Path]:
        return [self.batch_file(k) for k in range(1, self.scale.batches + 1)]

    def manifest(self) -> dict[str, object]:
        return json.loads(self.manifest_path.read_text())
