"""hudi-sql Merge-On-Read upserts (BLOOM index): updates go to log files, no compaction in between."""

from __future__ import annotations

from bench.systems._hudi import HudiSystem


class HudiMor(HudiSystem):
    name = "hudi_mor"
    description = "hudi-sql MOR upsert, BLOOM index, no compaction (hudi_sql.write)"
    table_type = "MERGE_ON_READ"


SYSTEM = HudiMor
