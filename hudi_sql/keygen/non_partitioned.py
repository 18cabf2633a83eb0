"""NonpartitionedKeyGenerator: every record in the one partition ``""`` (the base path).

Hudi 0.14 (``NonpartitionedAvroKeyGenerator``): the record key is the simple form (``1``) for
one record key field and the composite form (``id:1,name:Alice``) for several, "for backward
compatibility" as its source says. Configured partition fields are ignored, and
``hoodie.table.partition.fields`` is not written (``cow/v6_nonpartitioned`` has none).
"""

from __future__ import annotations

__all__ = ["NonpartitionedKeyGenerator"]

from pyspark.sql import Column
from pyspark.sql import functions as F

from hudi_sql.keygen.base import KeyGenerator, KeyGeneratorType, KeyGenSettings, register_key_generator
from hudi_sql.keygen.record_key import RecordKeySpec


@register_key_generator
class NonpartitionedKeyGenerator(KeyGenerator):
    class_name = "org.apache.hudi.keygen.NonpartitionedKeyGenerator"
    key_generator_type = KeyGeneratorType.NON_PARTITION
    aliases = ("org.apache.hudi.keygen.NonpartitionedAvroKeyGenerator",)

    partitioned = False

    @classmethod
    def key_spec(cls, fields: tuple[str, ...], settings: KeyGenSettings) -> RecordKeySpec:
        return RecordKeySpec(fields, composite=len(fields) > 1)

    def partition_path(self) -> Column:
        return F.lit("")
