"""UpsertPartitioner: from a workload profile to output buckets (pure; Hudi's design).

* Every file group that receives updates or deletes is one UPDATE bucket.
* Inserts of a partition first fill its *small files* (latest base files below
  ``hoodie.parquet.small.file.limit``) up to ``hoodie.parquet.max.file.size``; a small file that
  takes inserts becomes an UPDATE bucket too (the merge handle appends the inserts).
* The remaining inserts open new file groups of ``max_file_size / record_size`` records each.
* Inserts are routed to a partition's buckets by a hash slot of the record key, in ranges
  proportional to each bucket's share, so routing needs no shuffle of the plan.

The average record size comes from the latest commits whose bytes written exceed
``threshold x small_file_limit`` (Hudi's ``averageBytesPerRecord``), else from
``hoodie.copyonwrite.record.size.estimate``.
"""

from __future__ import annotations

__all__ = ["SizingConfig", "SmallFile", "average_record_size", "plan_buckets"]

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.file_group import FileSlice
from hudi_sql.write.plan import SLOTS, BucketInfo, BucketType, InsertRange, WorkloadProfile


@dataclass(frozen=True)
class SizingConfig:
    max_file_size: int
    small_file_limit: int
    record_size: int
    insert_split_size: int = 500_000
    auto_split: bool = True

    @property
    def records_per_file(self) -> int:
        if not self.auto_split:
            return max(1, self.insert_split_size)
        return max(1, self.max_file_size // max(1, self.record_size))


@dataclass(frozen=True)
class SmallFile:
    partition_path: str
    file_id: str
    size: int
    base_instant: str
    base_file_path: str


def average_record_size(commits: Iterable[CommitMetadata], *, default: int, small_file_limit: int,
                        threshold: float) -> int:
    """Bytes per record from the latest commits that wrote enough to be representative."""
    floor = threshold * small_file_limit
    for metadata in commits:  # newest first
        stats = [s for s in metadata.write_stats() if not s.is_delta]
        written = sum(s.total_write_bytes for s in stats)
        records = sum(s.num_writes for s in stats)
        if records > 0 and written > floor:
            return max(1, written // records)
    return default


def plan_buckets(
    profile: WorkloadProfile,
    latest_slices: Mapping[str, Sequence[FileSlice]],
    sizing: SizingConfig,
    new_file_id: Callable[[], str],
    *,
    use_small_files: bool = True,
    excluded_file_ids: frozenset[str] = frozenset(),
) -> tuple[list[BucketInfo], list[InsertRange]]:
    """Buckets and insert routing for *profile*.

    Args:
        profile: inserts per partition and updates per file group.
        latest_slices: the latest file slices of each touched partition.
        sizing: file sizing settings.
        new_file_id: file id generator (injected so plans are deterministic in tests).
        use_small_files: False for bulk_insert, which never merges into existing files.
        excluded_file_ids: groups that must not take inserts (e.g. under pending compaction).
    """
    buckets: list[BucketInfo] = []
    ranges: list[InsertRange] = []
    by_file_id: dict[tuple[str, str], int] = {}

    def add_update_bucket(partition: str, file_slice: FileSlice, expected: int, small: bool = False) -> int:
        key = (partition, file_slice.file_id)
        if key in by_file_id:
            if small:
                buckets[by_file_id[key]] = replace(buckets[by_file_id[key]], small_file_inserts=True)
            return by_file_id[key]
        bucket = BucketInfo(
            bucket_id=len(buckets), bucket_type=BucketType.UPDATE, partition_path=partition,
            file_id=file_slice.file_id, prev_commit=file_slice.base_instant_time,
            base_file_path=file_slice.base_file.path if file_slice.base_file else None,
            log_file_names=tuple(lf.file_name for lf in file_slice.log_files), expected_records=expected,
            small_file_inserts=small,
        )
        buckets.append(bucket)
        by_file_id[key] = bucket.bucket_id
        return bucket.bucket_id

    for partition in sorted(profile.partitions):
        work = profile.partitions[partition]
        slices = {s.file_id: s for s in latest_slices.get(partition, ())}
        touched = set(work.updates_by_file_id) | set(work.deletes_by_file_id)
        for file_id in sorted(touched):
            file_slice = slices.get(file_id)
            if file_slice is None:
                continue  # the index only tags keys found in these slices
            add_update_bucket(partition, file_slice, work.updates_by_file_id.get(file_id, 0))
        remaining = work.inserts
        if remaining <= 0:
            continue
        shares: list[tuple[int, int]] = []  # (bucket id, records)
        if use_small_files and sizing.small_file_limit > 0:
            for small in sorted(
                (s for s in slices.values() if s.base_file is not None and s.base_file.size < sizing.small_file_limit
                 and not s.has_logs and s.file_id not in excluded_file_ids),
                key=lambda s: (s.base_file.size if s.base_file else 0, s.file_id),
            ):
                if remaining <= 0:
                    break
                assert small.base_file is not None
                capacity = (sizing.max_file_size - small.base_file.size) // max(1, sizing.record_size)
                if capacity <= 0:
                    continue
                take = min(capacity, remaining)
                shares.append((add_update_bucket(partition, small, 0, True), take))
                remaining -= take
        if remaining > 0:
            per_file = sizing.records_per_file
            count = max(1, math.ceil(remaining / per_file))
            base, extra = divmod(remaining, count)
            for index in range(count):
                records = base + (1 if index < extra else 0)
                bucket = BucketInfo(len(buckets), BucketType.INSERT, partition, new_file_id(),
                                    expected_records=records)
                buckets.append(bucket)
                shares.append((bucket.bucket_id, records))
        total = sum(records for _, records in shares)
        lo = 0
        for index, (bucket_id, records) in enumerate(shares):
            hi = SLOTS if index == len(shares) - 1 else lo + round(SLOTS * records / total)
            if hi > lo:
                ranges.append(InsertRange(partition, lo, hi, bucket_id))
            lo = hi
    return buckets, ranges
