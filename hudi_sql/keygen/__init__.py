"""Key generators: ``_hoodie_record_key`` and ``_hoodie_partition_path`` as Spark expressions.

Use :func:`key_generator_for` to get the key generator of a write (chosen and configured the
way Hudi 0.14 does), then :meth:`KeyGenerator.record_key` and
:meth:`KeyGenerator.partition_path`::

    keygen = key_generator_for(configs, table_properties=props, schema=df.schema)
    keyed = df.select(keygen.record_key().alias("_hoodie_record_key"),
                      keygen.partition_path().alias("_hoodie_partition_path"), "*")

The record key's fields and form are decided once, by :meth:`KeyGenerator.record_key_spec`;
the Spark expressions and :func:`hudi_sql.keygen.arrow_key.arrow_record_keys` (stored rows of a
table without meta fields, recomputed in a merge handle) both follow that
:class:`RecordKeySpec`, and render values the same way (a parity test checks it).

Implementations are registered by name (:func:`key_generator_class`): their type
(``SIMPLE``, ``COMPLEX``, ``NON_PARTITION``, ``TIMESTAMP``, ``CUSTOM``, ``GLOBAL_DELETE``),
Hudi class names (``org.apache.hudi.keygen.SimpleKeyGenerator`` and the ``...Avro...``
variant) and short class names.
"""

from hudi_sql.keygen.base import (
    EMPTY_RECORDKEY_PLACEHOLDER,
    NULL_RECORDKEY_PLACEHOLDER,
    KeyGenerator,
    KeyGeneratorType,
    KeyGenSettings,
    key_generator_class,
    register_key_generator,
    registered_names,
)
from hudi_sql.keygen.complex import ComplexKeyGenerator, GlobalDeleteKeyGenerator
from hudi_sql.keygen.custom import CustomKeyGenerator, PartitionKeyType
from hudi_sql.keygen.factory import (
    SQL_KEY_GENERATOR_CLASS,
    infer_key_generator_type,
    key_generator_for,
    table_record_key_spec,
)
from hudi_sql.keygen.non_partitioned import NonpartitionedKeyGenerator
from hudi_sql.keygen.partition_path import DEFAULT_PARTITION_PATH, escape_path_name
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.keygen.simple import SimpleKeyGenerator
from hudi_sql.keygen.timestamp_based import (
    TimestampBasedKeyGenerator,
    TimestampOptions,
    TimestampType,
    TimeUnit,
)

__all__ = [
    "DEFAULT_PARTITION_PATH",
    "EMPTY_RECORDKEY_PLACEHOLDER",
    "NULL_RECORDKEY_PLACEHOLDER",
    "SQL_KEY_GENERATOR_CLASS",
    "ComplexKeyGenerator",
    "CustomKeyGenerator",
    "GlobalDeleteKeyGenerator",
    "KeyGenSettings",
    "KeyGenerator",
    "KeyGeneratorType",
    "NonpartitionedKeyGenerator",
    "PartitionKeyType",
    "RecordKeySpec",
    "SimpleKeyGenerator",
    "TimeUnit",
    "TimestampBasedKeyGenerator",
    "TimestampOptions",
    "TimestampType",
    "escape_path_name",
    "infer_key_generator_type",
    "key_generator_class",
    "key_generator_for",
    "register_key_generator",
    "registered_names",
    "table_record_key_spec",
]
