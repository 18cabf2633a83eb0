"""Apache Hudi 0.15 Merge-On-Read upserts (BLOOM index, no compaction): the peer of ``hudi_mor``."""

from __future__ import annotations

from bench.systems._apache import ApacheHudiSystem


class ApacheHudiMor(ApacheHudiSystem):
    name = "apache_hudi_mor"
    description = "Apache Hudi 0.15 (Spark 3.5) MOR upsert, BLOOM index, no compaction"
    table_type = "MERGE_ON_READ"


SYSTEM = ApacheHudiMor
