"""Choosing and configuring the key generator of a write, the way Hudi 0.14 does.

Which key generator (first match wins):

1. ``hoodie.datasource.write.keygenerator.class`` (a Hudi class name, Spark or Avro variant,
   or its short form);
2. ``hoodie.datasource.write.keygenerator.type`` (``SIMPLE``, ``COMPLEX``, ``TIMESTAMP``,
   ``CUSTOM``, ``NON_PARTITION``, ``GLOBAL_DELETE``);
3. the table's ``hoodie.table.keygenerator.class`` when the table exists;
4. inferred from the fields (``KeyGenUtils.inferKeyGeneratorType`` in 0.14, also Spark SQL's
   ``inferKeyGenClazz``): no partition field -> NonpartitionedKeyGenerator; one record key
   field and one partition field -> SimpleKeyGenerator; otherwise ComplexKeyGenerator. One
   addition from later Hudi releases: a first partition field written ``field:TYPE`` means
   CustomKeyGenerator (0.14 would pick Simple and then fail on the odd field name).

An explicit choice that differs from the existing table's is refused, as Hudi's
``HoodieWriterUtils.validateTableConfig`` does ("Config conflict"); the Spark and Avro
variants of one key generator count as the same.

``org.apache.spark.sql.hudi.command.SqlKeyGenerator`` (what Hudi's SQL layer sets) is not an
implementation of its own: it wraps the key generator named by ``hoodie.sql.origin.keygen.class``
(else the table's, else ComplexKeyGenerator, as in Hudi) and only changes how ``timestamp``
partition columns are written (:class:`~hudi_sql.keygen.base.KeyGenSettings`).

The fields, hive-style partitioning and URL encoding come from the write options, except that
an existing table's ``hoodie.properties`` wins for the two partitioning flags (Hudi keeps a
table's layout stable). Timestamp options are the table's overlaid with the write options.
"""

from __future__ import annotations

__all__ = ["SQL_KEY_GENERATOR_CLASS", "infer_key_generator_type", "key_generator_for", "table_record_key_spec"]

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

# Imported for their registrations.
import hudi_sql.keygen.complex
import hudi_sql.keygen.custom
import hudi_sql.keygen.non_partitioned
import hudi_sql.keygen.simple
import hudi_sql.keygen.timestamp_based  # noqa: F401
from hudi_sql.config.keygen import KeyGenConfig, TableKeyFields
from hudi_sql.config.registry import HudiConfigs
from hudi_sql.config.table import HudiTableConfig
from hudi_sql.config.write import HudiWriteConfig, IndexType
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError
from hudi_sql.keygen.base import (
    KeyGenerator,
    KeyGeneratorType,
    KeyGenSettings,
    key_generator_class,
    key_generator_for_type,
)
from hudi_sql.keygen.custom import PartitionKeyType, parse_partition_spec
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.keygen.timestamp_options import TimestampOptions

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

SQL_KEY_GENERATOR_CLASS = "org.apache.spark.sql.hudi.command.SqlKeyGenerator"


def infer_key_generator_type(
    record_key_fields: Sequence[str], partition_specs: Sequence[str]
) -> KeyGeneratorType:
    """The key generator Hudi 0.14 picks when none is configured (see the module doc)."""
    if not partition_specs:
        return KeyGeneratorType.NON_PARTITION
    if ":" in partition_specs[0]:
        return KeyGeneratorType.CUSTOM
    if len(partition_specs) == 1 and len(record_key_fields) <= 1:
        return KeyGeneratorType.SIMPLE
    return KeyGeneratorType.COMPLEX


def key_generator_for(
    configs: HudiConfigs,
    *,
    table_properties: Mapping[str, str] | None = None,
    schema: StructType | None = None,
    sql: bool = False,
    stored_keys_value_only: bool | None = None,
) -> KeyGenerator:
    """The key generator a write with *configs* uses.

    Args:
        configs: the write's options (``hoodie.datasource.write.*``, ``hoodie.keygen.*``).
        table_properties: the table's ``hoodie.properties`` when the table exists.
        stored_keys_value_only: the form of the keys the table stores, where a ComplexKeyGenerator
            over one field may write either (:meth:`hudi_sql.table.meta_client.TableMetaClient.stored_keys_value_only`).
        schema: the input's schema; binds the key generator (:meth:`KeyGenerator.with_schema`)
            so values stringify by type and missing fields fail here.
        sql: the write runs a Spark SQL statement; then ``timestamp`` partition columns are
            written as Hudi's SQL layer writes them (``SqlKeyGenerator``). Configuring the
            ``SqlKeyGenerator`` class has the same effect.

    Raises:
        HudiConfigError: an unknown key generator, a conflict with the table, fields the key
            generator does not accept, or bad timestamp options.
        HudiKeyError: with *schema*, a field that is missing or has an unusable type.
        UnsupportedFeatureError: an option whose behaviour hudi-sql does not reproduce.
    """
    config = KeyGenConfig.of(configs, table_properties)
    table = config.table
    table_class = table.key_generator_class if table is not None else None

    explicit = config.explicit_class
    if explicit is not None and _is_sql_key_generator(explicit):
        sql = True
        explicit = config.sql_origin_class or table_class or "ComplexKeyGenerator"
    if explicit is None:
        explicit = config.explicit_type
    if table_class is not None and _is_sql_key_generator(table_class):
        raise HudiConfigError(
            f"The table records '{table_class}' as its key generator; "
            "that is Hudi's SQL wrapper, not a key generator.",
            help=f"set {HudiTableConfig.KEY_GENERATOR_CLASS.key} to the wrapped class",
        )

    record_key_fields = _fields(config.record_key_fields, table.record_key_fields if table else None)
    partition_specs = _fields(config.partition_specs, table.partition_fields if table else None)

    if explicit is not None:
        implementation = key_generator_class(explicit)
        if table_class is not None and key_generator_class(table_class) is not implementation:
            raise HudiConfigError(
                f"Config conflict: the write asks for key generator '{explicit}' "
                f"but the table uses '{table_class}'.",
                help="drop the key generator option; a table's key generator cannot change",
            )
    elif table_class is not None:
        implementation = key_generator_class(table_class)
    else:
        implementation = key_generator_for_type(infer_key_generator_type(record_key_fields, partition_specs))

    _check_table_fields(table, record_key_fields, partition_specs)
    _check_unsupported(config)
    auto_record_keys = not record_key_fields
    if auto_record_keys:
        _check_auto_record_keys(config)
    settings = KeyGenSettings(
        hive_style_partitioning=_table_first(table.hive_style_partitioning if table else None,
                                             config.hive_style_partitioning),
        url_encode_partitioning=_table_first(table.url_encode_partitioning if table else None,
                                             config.url_encode_partitioning),
        sql_timestamp_partitions=sql,
        complex_keygen_new_encoding=config.single_complex_key_value_only(stored_keys_value_only),
        timestamp=_timestamp_options(implementation, partition_specs, config),
        auto_record_keys=auto_record_keys,
    )
    key_generator = implementation.from_config(record_key_fields, partition_specs, settings)
    return key_generator.with_schema(schema) if schema is not None else key_generator


def table_record_key_spec(table_properties: Mapping[str, str], configs: HudiConfigs | None = None, *,
                          stored_keys_value_only: bool | None = None) -> RecordKeySpec:
    """The record key form of an existing table, from its ``hoodie.properties`` alone.

    What a reader of a table without meta fields needs to match a log record with its base row
    (the write path builds the whole key generator, :func:`key_generator_for`). Reads have no
    write options: ``hoodie.write.complex.keygen.new.encoding`` comes from *configs* when given,
    else from the keys the table stores or its version, as for a write; the reader renders base
    rows as the writer rendered the keys of its delete blocks.

    Raises:
        HudiConfigError: the table records no record key fields (generated keys exist only in
            ``_hoodie_record_key``), or an unknown key generator class.
    """
    config = KeyGenConfig.of(configs if configs is not None else HudiConfigs(), table_properties)
    table = config.table
    assert table is not None
    fields = table.record_key_fields or ()
    if not fields:
        raise HudiConfigError(
            f"The table records no '{HudiTableConfig.RECORD_KEY_FIELDS.key}', so record keys cannot be "
            "computed from its rows.",
            help=f"generated record keys need the meta fields ({HudiTableConfig.POPULATE_META_FIELDS.key}=true)",
        )
    table_class = table.key_generator_class
    if table_class is None or _is_sql_key_generator(table_class):
        implementation = key_generator_for_type(infer_key_generator_type(fields, table.partition_fields or ()))
    else:
        implementation = key_generator_class(table_class)
    new_encoding = config.single_complex_key_value_only(stored_keys_value_only)
    return implementation.key_spec(fields, KeyGenSettings(complex_keygen_new_encoding=new_encoding))


def _is_sql_key_generator(name: str) -> bool:
    return name.strip() in (SQL_KEY_GENERATOR_CLASS, "SqlKeyGenerator")


def _fields(written: tuple[str, ...] | None, recorded: tuple[str, ...] | None) -> tuple[str, ...]:
    """The write's fields when it gives them (an empty value means "none"), else the table's."""
    return written if written is not None else (recorded or ())


def _check_table_fields(
    table: TableKeyFields | None, record_key_fields: Sequence[str], partition_specs: Sequence[str]
) -> None:
    """Refuse record key or partition fields that differ from the existing table's."""
    if table is None:
        return
    if table.record_key_fields is not None:
        recorded = table.record_key_fields
        if recorded != tuple(record_key_fields):
            raise HudiConfigError(
                f"Config conflict: record key fields {','.join(record_key_fields)} differ from the table's "
                f"{','.join(recorded)}.",
                help="a table's record key cannot change",
            )
    if table.partition_fields is not None:
        recorded = table.partition_fields
        names = tuple(spec.split(":", 1)[0] for spec in partition_specs)
        if recorded != names:
            raise HudiConfigError(
                f"Config conflict: partition fields {','.join(names) or '(none)'} differ from the table's "
                f"{','.join(recorded)}.",
                help="a table's partition fields cannot change",
            )


def _table_first(recorded: bool | None, written: bool) -> bool:
    """A partitioning flag: the table's when it records one (a table's layout stays stable)."""
    return recorded if recorded is not None else written


def _check_unsupported(config: KeyGenConfig) -> None:
    if config.consistent_logical_timestamp:
        raise UnsupportedFeatureError(
            f"'{HudiWriteConfig.CONSISTENT_LOGICAL_TIMESTAMP.key}=true' (keys from java.sql.Timestamp strings) is "
            "not supported.",
            help="leave it false, Hudi's default: timestamp key values are micros since the epoch",
        )


def _check_auto_record_keys(config: KeyGenConfig) -> None:
    """Hudi 0.15's ``AutoRecordKeyGenerationUtils`` checks for a write that generates its keys,
    plus the bucket index, which hashes record keys that do not exist before the write task."""
    refused = [
        option.key
        for option, on in ((HudiWriteConfig.COMBINE_BEFORE_INSERT, config.combine_before_insert),
                           (HudiWriteConfig.INSERT_DROP_DUPS, config.insert_drop_duplicates))
        if on
    ]
    if refused:
        raise HudiConfigError(
            f"Enabling {refused[0]} is not supported with auto generation of record keys.",
            help=f"set {HudiWriteConfig.RECORD_KEY_FIELDS.key} (primaryKey), or leave {refused[0]} false",
        )
    recorded = config.table.populate_meta_fields if config.table is not None else None
    if not _table_first(recorded, config.populate_meta_fields):
        raise HudiConfigError(
            f"Disabling {HudiWriteConfig.POPULATE_META_FIELDS.key} is not supported with auto generation "
            "of record keys.",
            help=f"set {HudiWriteConfig.RECORD_KEY_FIELDS.key} (primaryKey): generated keys live only in "
            "the meta columns",
        )
    if config.index_type is IndexType.BUCKET:
        raise UnsupportedFeatureError(
            "The bucket index needs record key fields; this write generates its record keys.",
            help=f"set {HudiWriteConfig.RECORD_KEY_FIELDS.key} (primaryKey), or use another index type",
        )


def _timestamp_options(
    implementation: type[KeyGenerator], partition_specs: Sequence[str], config: KeyGenConfig
) -> TimestampOptions | None:
    """Timestamp options when the key generator formats times, else ``None`` (they are not read)."""
    if implementation.key_generator_type is KeyGeneratorType.TIMESTAMP:
        needed = True
    elif implementation.key_generator_type is KeyGeneratorType.CUSTOM:
        needed = any(
            ":" in spec and parse_partition_spec(spec)[1] is PartitionKeyType.TIMESTAMP
            for spec in partition_specs
        )
    else:
        needed = False
    if not needed:
        return None
    return TimestampOptions.from_config(config.timestamp)
