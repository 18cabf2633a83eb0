"""hudi-sql Copy-On-Write upserts with the BLOOM index (key-range pruning on)."""

from __future__ import annotations

from bench.systems._hudi import HudiSystem


class HudiCowBloom(HudiSystem):
    name = "hudi_cow_bloom"
    description = "hudi-sql COW upsert, BLOOM index with key-range pruning (hudi_sql.write)"


SYSTEM = HudiCowBloom
