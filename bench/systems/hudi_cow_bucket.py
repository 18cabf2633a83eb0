"""hudi-sql Copy-On-Write upserts with the BUCKET index (a record's file group is a hash of its key)."""

from __future__ import annotations

from bench.systems._hudi import HudiSystem


class HudiCowBucket(HudiSystem):
    name = "hudi_cow_bucket"
    description = "hudi-sql COW upsert, BUCKET index (hudi_sql.write)"
    index_type = "BUCKET"
    # Inserts go through the index, so the initial files are the buckets' file groups.
    initial_operation = "insert"


SYSTEM = HudiCowBucket
