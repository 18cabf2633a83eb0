"""Apache Hudi 0.15 Copy-On-Write upserts with the BUCKET index: the peer of ``hudi_cow_bucket``."""

from __future__ import annotations

from bench.systems._apache import ApacheHudiSystem


class ApacheHudiCowBucket(ApacheHudiSystem):
    name = "apache_hudi_cow_bucket"
    description = "Apache Hudi 0.15 (Spark 3.5) COW upsert, BUCKET index"
    index_type = "BUCKET"
    initial_operation = "insert"  # as hudi_cow_bucket loads: through the index, into the buckets


SYSTEM = ApacheHudiCowBucket
