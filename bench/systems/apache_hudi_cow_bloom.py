"""Apache Hudi 0.15 Copy-On-Write upserts with the BLOOM index: the peer of ``hudi_cow_bloom``."""

from __future__ import annotations

from bench.systems._apache import ApacheHudiSystem


class ApacheHudiCowBloom(ApacheHudiSystem):
    name = "apache_hudi_cow_bloom"
    description = "Apache Hudi 0.15 (Spark 3.5) COW upsert, BLOOM index with key-range pruning"


SYSTEM = ApacheHudiCowBloom
