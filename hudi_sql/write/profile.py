"""The write's workload profile: one small Spark aggregate over the tagged records.

It counts records per (partition, file group, delete?) for the planner (inserts, updates and
deletes per partition, :class:`~hudi_sql.write.plan.WorkloadProfile`), and in the same pass
finds what the write must refuse before any timeline file exists: null record keys, null
ordering values and records whose partition path cannot be computed (Apache Hudi fails those
writes; a NULL would drop the rows).
"""

from __future__ import annotations

__all__ = ["profile_workload"]

from collections import defaultdict
from typing import TYPE_CHECKING

from pyspark.sql import functions as F

from hudi_sql.errors import HudiKeyError
from hudi_sql.index.base import FILE_ID_COLUMN
from hudi_sql.model.schema import PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.storage.guard import check_partition_path
from hudi_sql.write.handles import IS_DELETE_COLUMN
from hudi_sql.write.plan import PartitionWorkload, WorkloadProfile

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hudi_sql.keygen.base import KeyGenerator


def profile_workload(tagged: DataFrame, keygen: KeyGenerator, ordering: str | None) -> WorkloadProfile:
    """One small aggregate: record counts per (partition, file group, delete?), null keys and
    null ordering values; the write refuses a batch with either, naming a few of them."""
    null_ordering = (F.col(ordering).isNull() & ~F.coalesce(F.col(IS_DELETE_COLUMN), F.lit(False))
                     if ordering and ordering in tagged.columns else F.lit(False))
    # The first partition field values of the records whose partition path came out NULL (a
    # timestamp that does not parse), folded into the same aggregate: the error names them.
    readable = all(c in tagged.columns for c in keygen.required_columns())
    unpartitioned = F.when(F.col(PARTITION_PATH_FIELD).isNull(),
                           keygen.partition_values() if readable else F.lit("?"))
    rows = (tagged.groupBy(F.col(PARTITION_PATH_FIELD), F.col(FILE_ID_COLUMN), F.col(IS_DELETE_COLUMN),
                           F.col(RECORD_KEY_FIELD).isNull().alias("_null_key"),
                           null_ordering.alias("_null_ordering"))
            .agg(F.count(F.lit(1)).alias("count"), F.first(unpartitioned, ignorenulls=True).alias("_values"))
            .collect())
    if any(r["_null_ordering"] for r in rows):
        # Apache Hudi refuses it in the payload ("Ordering value is null for record"): a
        # record without ordering value cannot be combined or merged with another.
        keys = [r[RECORD_KEY_FIELD] for r in tagged.where(null_ordering).select(RECORD_KEY_FIELD).limit(3).collect()]
        raise HudiKeyError(
            f"Ordering value is null for record(s) with key {', '.join(repr(k) for k in keys)} "
            f"(precombine field '{ordering}'); "
            f"{sum(r['count'] for r in rows if r['_null_ordering'])} record(s) in all.",
            help="fill the ordering column or filter those rows out; the table was not changed")
    null_keys = sum(r["count"] for r in rows if r["_null_key"])
    if null_keys:
        raise HudiKeyError(
            f"{null_keys} record(s) have a null or empty record key "
            f"(field{'s' if len(keygen.record_key_fields) > 1 else ''} "
            f"{', '.join(keygen.record_key_fields)}).",
            help="filter those rows out or fill the key; the table was not changed",
        )
    unpartitioned_rows = [r for r in rows if r[PARTITION_PATH_FIELD] is None]
    if unpartitioned_rows:
        # Apache Hudi fails the write (HoodieKeyGeneratorException); a NULL path would drop the rows.
        values = next((r["_values"] for r in unpartitioned_rows if r["_values"]), "?")
        raise HudiKeyError(
            f"The partition path of {sum(r['count'] for r in unpartitioned_rows)} record(s) cannot be "
            f"computed: {keygen.partition_failure(values)}.",
            help="fix those values or the key generator options; the table was not changed")
    for partition in {r[PARTITION_PATH_FIELD] for r in rows}:
        check_partition_path(partition or "")  # a value from data must not leave the table folder
    inserts: dict[str, int] = defaultdict(int)
    updates: dict[str, dict[str, int]] = defaultdict(dict)
    deletes: dict[str, dict[str, int]] = defaultdict(dict)
    for r in rows:
        partition, file_id, is_delete, count = r[PARTITION_PATH_FIELD], r[FILE_ID_COLUMN], r[IS_DELETE_COLUMN], \
            r["count"]
        if file_id is None:
            if not is_delete:
                inserts[partition] += count
        elif is_delete:
            deletes[partition][file_id] = deletes[partition].get(file_id, 0) + count
        else:
            updates[partition][file_id] = updates[partition].get(file_id, 0) + count
    partitions = set(inserts) | set(updates) | set(deletes)
    return WorkloadProfile({p: PartitionWorkload(p, inserts.get(p, 0), dict(updates.get(p, {})),
                                                 dict(deletes.get(p, {}))) for p in partitions},
                           batch_partitions=frozenset(r[PARTITION_PATH_FIELD] for r in rows))
