"""ComplexKeyGenerator (several key / partition fields) and GlobalDeleteKeyGenerator.

Hudi 0.14 (``ComplexKeyGenerator`` / ``ComplexAvroKeyGenerator``, ``KeyGenUtils.getRecordKey``
and ``getRecordPartitionPath``):

* record key: ``f1:v1,f2:v2`` with the field names as configured; a null part is
  ``__null__``, an empty one ``__empty__``; when every part is null or empty Hudi fails the
  write ("cannot be entirely null or empty"), here the key is NULL. Values are not escaped, so
  a value may itself contain ``,`` or ``:``.
* one record key field: Hudi 0.14.0 writes ``id:1`` too. Hudi 0.14.1 to 1.0.2 wrote ``1``
  (HUDI-7001), a change later reverted because upserts into older tables then duplicated
  records (HUDI-9666); ``hoodie.write.complex.keygen.new.encoding=true`` keeps the ``1`` form.
  Unset, the form the table's keys are stored in, else the table version's release
  (:meth:`~hudi_sql.config.keygen.KeyGenConfig.single_complex_key_value_only`).
* partition path: one part per field, each like SimpleKeyGenerator's, joined with ``/``
  (``byteField=10/shortField=300``).

GlobalDeleteKeyGenerator keys like ComplexKeyGenerator (always ``field:value``, even for one
field) and has no partition path: it serves deletes under a global index.
"""

from __future__ import annotations

__all__ = ["ComplexKeyGenerator", "GlobalDeleteKeyGenerator"]

from pyspark.sql import Column
from pyspark.sql import functions as F

from hudi_sql.keygen.base import KeyGenerator, KeyGeneratorType, KeyGenSettings, register_key_generator
from hudi_sql.keygen.record_key import RecordKeySpec


@register_key_generator
class ComplexKeyGenerator(KeyGenerator):
    class_name = "org.apache.hudi.keygen.ComplexKeyGenerator"
    key_generator_type = KeyGeneratorType.COMPLEX
    aliases = ("org.apache.hudi.keygen.ComplexAvroKeyGenerator",)

    @classmethod
    def key_spec(cls, fields: tuple[str, ...], settings: KeyGenSettings) -> RecordKeySpec:
        single_value = len(fields) == 1 and settings.complex_keygen_new_encoding
        return RecordKeySpec(fields, composite=not single_value)

    def partition_path(self) -> Column:
        return self._value_partition_path(self.partition_path_fields)


@register_key_generator
class GlobalDeleteKeyGenerator(KeyGenerator):
    class_name = "org.apache.hudi.keygen.GlobalDeleteKeyGenerator"
    key_generator_type = KeyGeneratorType.GLOBAL_DELETE
    aliases = ("org.apache.hudi.keygen.GlobalAvroDeleteKeyGenerator",)

    partitioned = False

    @classmethod
    def key_spec(cls, fields: tuple[str, ...], settings: KeyGenSettings) -> RecordKeySpec:
        return RecordKeySpec(fields, composite=True)

    def partition_path(self) -> Column:
        return F.lit("")
