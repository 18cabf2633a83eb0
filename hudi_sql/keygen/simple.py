"""SimpleKeyGenerator: one record key field, at most one partition field, values used as they are.

Hudi 0.14 (``SimpleKeyGenerator`` / ``SimpleAvroKeyGenerator``, ``KeyGenUtils.getRecordKey``
and ``getPartitionPath``):

* record key: the value as a string (:mod:`.field_value`); a null or empty value is an error
  in Hudi ("recordKey value ... cannot be null or empty"), NULL here;
* partition path: the value, ``__HIVE_DEFAULT_PARTITION__`` when null or empty, escaped when
  URL encoding is on, ``field=`` in front when hive-style (``10``, ``city=chennai``).

Hudi refuses a second record key or partition field ("Single record-key field is expected"),
and so does this class.
"""

from __future__ import annotations

__all__ = ["SimpleKeyGenerator"]

from pyspark.sql import Column

from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.errors import HudiConfigError
from hudi_sql.keygen.base import KeyGenerator, KeyGeneratorType, KeyGenSettings, register_key_generator
from hudi_sql.keygen.record_key import RecordKeySpec


@register_key_generator
class SimpleKeyGenerator(KeyGenerator):
    class_name = "org.apache.hudi.keygen.SimpleKeyGenerator"
    key_generator_type = KeyGeneratorType.SIMPLE
    aliases = ("org.apache.hudi.keygen.SimpleAvroKeyGenerator",)

    def _validate(self) -> None:
        super()._validate()
        if len(self.record_key_fields) != 1 and not self.auto_record_keys:
            raise HudiConfigError(
                f"SimpleKeyGenerator takes one record key field; got {', '.join(self.record_key_fields)}.",
                help=f"use ComplexKeyGenerator ({HudiWriteConfig.KEY_GENERATOR_TYPE.key}=COMPLEX) "
                "for several",
            )
        if len(self.partition_path_fields) != 1:
            raise HudiConfigError(
                "SimpleKeyGenerator takes one partition field; "
                f"got {', '.join(self.partition_path_fields) or 'none'}.",
                help="use ComplexKeyGenerator for several partition fields, "
                "NonpartitionedKeyGenerator for none",
            )

    @classmethod
    def key_spec(cls, fields: tuple[str, ...], settings: KeyGenSettings) -> RecordKeySpec:
        return RecordKeySpec(fields, composite=False)

    def partition_path(self) -> Column:
        return self._value_partition_path(self.partition_path_fields)
