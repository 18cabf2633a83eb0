"""BUCKET index (Hudi's SIMPLE bucket engine): a record's file group is a function of its key.

Each partition has ``hoodie.bucket.index.num.buckets`` buckets, fixed for the table's life. A
record's bucket is ``(hashKeys.hashCode() & Integer.MAX_VALUE) % numBuckets`` (Java's
``BucketIdentifier.getBucketId``, Hudi 0.14), where ``hashKeys`` is a ``List<String>``:

* a record key without ``:`` (simple key generator): ``[recordKey]``, whatever the hash fields;
* a composite key ``f1:v1,f2:v2``: the values of the hash fields
  (``hoodie.bucket.index.hash.field``, default the record key fields, which must contain it),
  looked up by field name (a missing field is ``null``, hash 0).

``List.hashCode`` is ``h = 31 * h + e.hashCode()`` from ``h = 1`` and ``String.hashCode`` is the
same polynomial over UTF-16 code units, all in 32-bit two's complement.
:func:`bucket_id_column` computes it in an Arrow UDF with numpy
(:mod:`hudi_sql.index.java_hash`). Spark has no function for Java's string hash; written as a
Spark expression (folding the UTF-16 units with ``aggregate``, which Spark interprets row by
row) it cost 12 s per million keys, the Arrow UDF half a second.

A bucket's file group is named by its number: file id ``<%08d bucket>-<rest of a uuid4>-0``,
Java's ``newBucketFileIdPrefix(bucketId)`` (a uuid whose first 8 characters are replaced by the
zero-padded bucket number) plus the ``-0`` of ``createNewFileId``. Existing groups are found by
parsing the first 8 characters of the file ids of the partition's latest file slices
(``bucketIdFromFileId``); two groups claiming one bucket is an error, as in Java.

Tagging: a record whose bucket already has a file group gets that group's id, **even when its
key is new** (the group then takes it as an insert, Java's ``tagAsNewRecordIfNeeded``); only
records of buckets without a group are untagged inserts. Those must go to new file groups named
by :func:`bucket_file_ids`, one per bucket: :func:`plan_bucket_writes` plans exactly that, and
the write must route untagged records by :func:`bucket_id_column` (see its docstring).
"""

from __future__ import annotations

__all__ = [
    "BUCKET_ID_COLUMN",
    "BUCKET_ID_DIGITS",
    "BucketIndex",
    "bucket_file_id",
    "bucket_file_ids",
    "bucket_hash_fields",
    "bucket_id_column",
    "bucket_id_of_file_id",
    "bucket_num",
    "existing_bucket_file_ids",
    "plan_bucket_writes",
]

import math
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_sql.config import HudiWriteConfig, IndexType
from hudi_sql.config.scoped import IndexConfig
from hudi_sql.errors import HudiConfigError, HudiFileFormatError
from hudi_sql.index.base import FILE_ID_COLUMN, Index, register_index
from hudi_sql.index.java_hash import bucket_ids
from hudi_sql.index.simple import batch_partitions
from hudi_sql.model.schema import PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.spark.local_frame import local_frame
from hudi_sql.write.plan import BucketInfo, BucketType, InsertRange, WorkloadProfile

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from hudi_sql.model.file_group import FileSlice
    from hudi_sql.table.fs_view import FileSystemView

BUCKET_ID_DIGITS = 8
"""Width of the zero-padded bucket number that starts a bucket file id (``%08d``)."""

BUCKET_ID_COLUMN = "_hoodie_bucket_id"
"""The bucket number of each record, as :meth:`BucketIndex.tag_location` leaves it on the records."""


def bucket_file_id(bucket_id: int, uuid_text: str) -> str:
    """The file id Java gives a new file group of bucket *bucket_id*.

    Args:
        bucket_id: the bucket number (``0 <= bucket_id < 10**8``).
        uuid_text: a uuid4 string (``xxxxxxxx-xxxx-...``); its first 8 characters are replaced.

    Returns:
        ``<%08d bucket_id><uuid_text[8:]>-0``, e.g. ``00000003-8b2c-4c1e-9f3a-0d5e6f7a8b9c-0``.
    """
    if not 0 <= bucket_id < 10**BUCKET_ID_DIGITS:
        raise HudiConfigError(f"bucket id {bucket_id} does not fit {BUCKET_ID_DIGITS} digits",
                              help=f"{HudiWriteConfig.BUCKET_NUM.key} must be at most 100000000")
    return f"{bucket_id:0{BUCKET_ID_DIGITS}d}{uuid_text[BUCKET_ID_DIGITS:]}-0"


def bucket_id_of_file_id(file_id: str, *, partition_path: str = "") -> int:
    """The bucket number a bucket file id starts with (Java's ``bucketIdFromFileId``).

    Raises:
        HudiFileFormatError: *file_id* does not start with 8 digits, so the file group was not
            written by a bucket index (the table was written with another index).
    """
    prefix = file_id[:BUCKET_ID_DIGITS]
    if len(prefix) != BUCKET_ID_DIGITS or not prefix.isascii() or not prefix.isdigit():
        where = f" in partition '{partition_path}'" if partition_path else ""
        raise HudiFileFormatError(
            f"file group '{file_id}'{where} is not named by a bucket number (<%08d bucket>-<uuid>-0)",
            help="the table was written with another index type; keep using that index "
                 f"({HudiWriteConfig.INDEX_TYPE.key}) or rewrite the table with the bucket index",
        )
    return int(prefix)


def existing_bucket_file_ids(view: FileSystemView, partitions: Iterable[str]) -> dict[tuple[str, int], FileSlice]:
    """(partition, bucket number) -> latest file slice, for the bucket file groups of *partitions*.

    Raises:
        HudiFileFormatError: a file id is not a bucket file id, or two file groups of one
            partition claim the same bucket (Java: "Find multiple files at partition path=...
            belongs to the same bucket id").
    """
    known = set(view.partition_paths()) if not view.is_empty else set()
    found: dict[tuple[str, int], FileSlice] = {}
    for partition in partitions:
        if partition not in known:
            continue
        for file_slice in view.latest_file_slices([partition]):
            bucket = bucket_id_of_file_id(file_slice.file_id, partition_path=partition)
            other = found.get((partition, bucket))
            if other is not None:
                raise HudiFileFormatError(
                    f"partition '{partition}' has two file groups for bucket {bucket}: "
                    f"'{other.file_id}' and '{file_slice.file_id}'",
                    help="a bucket holds one file group; roll back or clean the write that made the second",
                )
            found[(partition, bucket)] = file_slice
    return found


def bucket_file_ids(view: FileSystemView, partitions: Iterable[str], num_buckets: int, *,
                    new_uuid: Callable[[], str] = lambda: str(uuid.uuid4()),
                    keep_existing: bool = True) -> dict[tuple[str, int], str]:
    """(partition, bucket number) -> file id, for every bucket of *partitions*.

    Buckets with a file group keep its id (unless *keep_existing* is false: an overwrite replaces
    them); the others get a new bucket file id (:func:`bucket_file_id`) from *new_uuid* (injected
    so plans are deterministic in tests), as Java's ``SparkBucketIndexPartitioner`` names the
    buckets it has not seen.
    """
    partitions = list(partitions)
    existing = existing_bucket_file_ids(view, partitions) if keep_existing else {}
    ids: dict[tuple[str, int], str] = {}
    for partition in partitions:
        for bucket in range(num_buckets):
            found = existing.get((partition, bucket))
            ids[(partition, bucket)] = found.file_id if found is not None else bucket_file_id(bucket, new_uuid())
    return ids


def bucket_num(config: IndexConfig) -> int:
    """``hoodie.bucket.index.num.buckets``, checked positive (as Java's ``validateBucketIndexConfig``)."""
    num = config.bucket_num
    if num <= 0 or num > 10**BUCKET_ID_DIGITS:
        raise HudiConfigError(f"{HudiWriteConfig.BUCKET_NUM.key} must be in 1..100000000, got {num}",
                              help="set the number of buckets per partition, fixed for the table's life")
    return num


def bucket_hash_fields(config: IndexConfig, record_key_fields: Sequence[str]) -> tuple[str, ...]:
    """``hoodie.bucket.index.hash.field`` (default: the record key fields), checked a subset of them.

    Raises:
        HudiConfigError: a hash field is not a record key field (Java: "Bucket index key (if
            configured) must be subset of record key.").
    """
    raw = config.bucket_hash_field
    fields = tuple(f.strip() for f in str(raw).split(",") if f.strip()) if raw else tuple(record_key_fields)
    unknown = [f for f in fields if f not in record_key_fields]
    if unknown:
        raise HudiConfigError(
            f"{HudiWriteConfig.BUCKET_HASH_FIELD.key} {', '.join(unknown)} is not a record key field "
            f"({', '.join(record_key_fields)})",
            help=f"the bucket hash fields must be a subset of {HudiWriteConfig.RECORD_KEY_FIELDS.key}",
        )
    if not fields:
        raise HudiConfigError("the bucket index needs record key fields to hash",
                              help=f"set {HudiWriteConfig.RECORD_KEY_FIELDS.key}")
    return fields


def bucket_id_column(record_key: Column, hash_fields: Sequence[str], num_buckets: int) -> Column:
    """The bucket number (int) of each record, exactly as Hudi 0.14's ``BucketIdentifier.getBucketId``.

    The write path routes the untagged records (inserts into buckets without a file group) by
    this column: :func:`plan_bucket_writes` gives each new bucket *b* the insert range
    ``[b, b + 1)``, so the routing slot must be this value instead of the hash slot.

    Args:
        record_key: the ``_hoodie_record_key`` column.
        hash_fields: :func:`bucket_hash_fields`; only used for composite (``f:v,...``) keys.
        num_buckets: :func:`bucket_num`.
    """
    from pyspark.sql import functions as F

    return F.arrow_udf(_bucket_ids_of(tuple(hash_fields), num_buckets), "int")(record_key)


def _bucket_ids_of(hash_fields: tuple[str, ...], num_buckets: int) -> Callable[[pa.Array], pa.Array]:
    """The Arrow UDF body (typed, so Spark passes Arrow arrays)."""

    def run(keys: pa.Array) -> pa.Array:
        return pa.array(bucket_ids(keys, hash_fields, num_buckets), pa.int32())

    return run


@register_index(IndexType.BUCKET)
class BucketIndex(Index):
    """Tag each record with the file group of its bucket, when the bucket has one."""

    def tag_location(self, records: DataFrame) -> DataFrame:
        from pyspark.sql import functions as F

        context = self.context
        num_buckets = bucket_num(context.config)
        fields = bucket_hash_fields(context.config, context.keygen.record_key_fields)
        if context.view.is_empty:
            return records.withColumn(FILE_ID_COLUMN, F.lit(None).cast("string"))
        existing = existing_bucket_file_ids(context.view, sorted(batch_partitions(records)))
        if not existing:
            return records.withColumn(FILE_ID_COLUMN, F.lit(None).cast("string"))
        groups = local_frame(records.sparkSession, [(p, b, s.file_id) for (p, b), s in sorted(existing.items())],
                             "_bp string, _bb int, _bf string")
        # The bucket number stays on the records: the write routes new buckets' inserts by it.
        bucketed = records.withColumn(BUCKET_ID_COLUMN, bucket_id_column(F.col(RECORD_KEY_FIELD), fields,
                                                                         num_buckets))
        joined = bucketed.join(F.broadcast(groups), (F.col(PARTITION_PATH_FIELD) == F.col("_bp"))
                               & (F.col(BUCKET_ID_COLUMN) == F.col("_bb")), "left")
        return joined.withColumn(FILE_ID_COLUMN, F.col("_bf")).drop("_bp", "_bb", "_bf")


def plan_bucket_writes(profile: WorkloadProfile, latest_slices: Mapping[str, Sequence[FileSlice]],
                       file_ids: Mapping[tuple[str, int], str]) -> tuple[list[BucketInfo], list[InsertRange]]:
    """Buckets and insert routing of a bucket-index write (the bucket index's ``plan_buckets``).

    * Every file group the index tagged (updates, deletes, and new keys of existing buckets) is
      one UPDATE bucket, as in :func:`hudi_sql.write.partitioner.plan_buckets`.
    * A partition with untagged inserts gets one INSERT bucket per bucket number without a file
      group, named by *file_ids* (:func:`bucket_file_ids`), and the insert range ``[b, b + 1)``:
      records must be routed with slot = :func:`bucket_id_column`. Buckets that receive no
      record produce no task, so no empty files (Java plans every missing bucket too).
    * No small-file packing and no size-based splitting: a bucket is one file group.
    """
    buckets: list[BucketInfo] = []
    ranges: list[InsertRange] = []
    for partition in sorted(profile.partitions):
        work = profile.partitions[partition]
        slices = {s.file_id: s for s in latest_slices.get(partition, ())}
        for file_id in sorted(set(work.updates_by_file_id) | set(work.deletes_by_file_id)):
            file_slice = slices.get(file_id)
            if file_slice is None:
                continue
            buckets.append(BucketInfo(
                bucket_id=len(buckets), bucket_type=BucketType.UPDATE, partition_path=partition, file_id=file_id,
                prev_commit=file_slice.base_instant_time,
                base_file_path=file_slice.base_file.path if file_slice.base_file else None,
                log_file_names=tuple(lf.file_name for lf in file_slice.log_files),
                expected_records=work.updates_by_file_id.get(file_id, 0)))
        if work.inserts <= 0:
            continue
        new = sorted((b, fid) for (p, b), fid in file_ids.items() if p == partition and fid not in slices)
        if not new:
            continue
        per_bucket = math.ceil(work.inserts / len(new))
        for number, file_id in new:
            info = BucketInfo(len(buckets), BucketType.INSERT, partition, file_id, expected_records=per_bucket)
            buckets.append(info)
            ranges.append(InsertRange(partition, number, number + 1, info.bucket_id))
    return buckets, ranges
