"""The options that choose and configure a write's key generator, typed, with the table's
recorded values beside them.

Apache Hudi's rules for which value wins (a write option, else the table's ``hoodie.properties``;
the table's partitioning flags over the write's) are applied by the key generator factory
(:mod:`hudi_sql.keygen.factory`), which also refuses a write that contradicts the table. This
module only reads both sides once, so the factory decides from typed values.
"""

from __future__ import annotations

__all__ = ["PERSISTED_TIMESTAMP_KEYS", "KeyGenConfig", "TableKeyFields", "TimestampKeyGenConfig",
           "single_complex_key_value_only"]

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hudi_sql.config.registry import ConfigOption, HudiConfigs
from hudi_sql.config.table import HudiTableConfig
from hudi_sql.config.write import HudiWriteConfig, IndexType

# The keys Hudi copies into hoodie.properties for a timestamp key generator
# (HoodieTableConfig.PERSISTED_CONFIG_LIST of 0.15), in that order. The timestamp type is not
# among them: Apache Hudi keeps it in the catalog's TBLPROPERTIES (or the write's options), and so
# does hudi-sql; a later SQL write reads it from there.
PERSISTED_TIMESTAMP_KEYS: tuple[ConfigOption[Any], ...] = (
    HudiTableConfig.TIMESTAMP_SCALAR_UNIT,
    HudiTableConfig.TIMESTAMP_INPUT_FORMAT_DELIMITER,
    HudiTableConfig.TIMESTAMP_INPUT_FORMAT,
    HudiTableConfig.TIMESTAMP_INPUT_TIMEZONE,
    HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT,
    HudiTableConfig.TIMESTAMP_OUTPUT_TIMEZONE,
    HudiTableConfig.TIMESTAMP_TIMEZONE,
    HudiTableConfig.DATETIME_PARSER_CLASS,
)


def _zone(raw: str | None) -> str | None:
    return raw.strip() if raw is not None and raw.strip() else None


@dataclass(frozen=True)
class TimestampKeyGenConfig:
    """The ``hoodie.keygen.timebased.*`` options as given (the key generator checks them:
    :class:`~hudi_sql.keygen.timestamp_options.TimestampOptions`).

    Attributes:
        timestamp_type: as given; ``None`` when unset.
        input_format: the input patterns, joined by ``input_format_delimiter``.
        input_timezone / output_timezone: ``hoodie.keygen.timebased.timezone`` for both when set,
            else each its own; ``None``: unset.
        scalar_unit: upper case, ``SECONDS`` when unset.
        persisted: the options ``hoodie.properties`` keeps, as given.
    """

    timestamp_type: str | None = None
    output_format: str = ""
    input_format: str = ""
    input_format_delimiter: str = ","
    input_timezone: str | None = None
    output_timezone: str | None = None
    scalar_unit: str = "SECONDS"
    parser_class: str | None = None
    persisted: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, configs: HudiConfigs) -> TimestampKeyGenConfig:
        t = HudiTableConfig
        if configs.is_set(t.TIMESTAMP_TIMEZONE):
            input_zone = output_zone = _zone(configs.get(t.TIMESTAMP_TIMEZONE))
        else:
            input_zone, output_zone = _zone(configs.get(t.TIMESTAMP_INPUT_TIMEZONE)), _zone(
                configs.get(t.TIMESTAMP_OUTPUT_TIMEZONE))
        raw_type = configs.get(t.TIMESTAMP_TYPE)
        return cls(
            timestamp_type=str(raw_type) if raw_type else None,
            output_format=str(configs.get(t.TIMESTAMP_OUTPUT_FORMAT) or ""),
            input_format=str(configs.get(t.TIMESTAMP_INPUT_FORMAT) or ""),
            input_format_delimiter=str(configs.get(t.TIMESTAMP_INPUT_FORMAT_DELIMITER) or ","),
            input_timezone=input_zone,
            output_timezone=output_zone,
            scalar_unit=str(configs.get(t.TIMESTAMP_SCALAR_UNIT) or "SECONDS").strip().upper(),
            parser_class=str(configs.get(t.DATETIME_PARSER_CLASS) or "") or None,
            persisted={key.key: configs.raw()[key.key] for key in PERSISTED_TIMESTAMP_KEYS if configs.is_set(key)},
        )


@dataclass(frozen=True)
class TableKeyFields:
    """What an existing table records about its keys (``None``: the file does not say)."""

    key_generator_class: str | None = None
    record_key_fields: tuple[str, ...] | None = None
    #: as recorded: a version 8 field may carry its type (``ts:TIMESTAMP``)
    partition_fields: tuple[str, ...] | None = None
    hive_style_partitioning: bool | None = None
    url_encode_partitioning: bool | None = None
    populate_meta_fields: bool | None = None
    #: ``hoodie.table.version`` (6 when the file does not say, as for Apache Hudi before 0.14)
    version: int = 6

    @classmethod
    def of(cls, properties: Mapping[str, str]) -> TableKeyFields:
        table = HudiConfigs.of(properties, validate=False)
        t = HudiTableConfig

        def recorded(member: ConfigOption[Any]) -> Any:
            return table.get(member) if table.is_set(member) else None

        named = recorded(t.KEY_GENERATOR_CLASS)
        keys, partitions = recorded(t.RECORD_KEY_FIELDS), recorded(t.PARTITION_FIELDS)
        hive, url, populate = (recorded(t.HIVE_STYLE_PARTITIONING), recorded(t.URL_ENCODE_PARTITIONING),
                               recorded(t.POPULATE_META_FIELDS))
        return cls(
            key_generator_class=str(named) if named else None,
            record_key_fields=tuple(keys) if keys is not None else None,
            partition_fields=tuple(partitions) if partitions is not None else None,
            hive_style_partitioning=bool(hive) if hive is not None else None,
            url_encode_partitioning=bool(url) if url is not None else None,
            populate_meta_fields=bool(populate) if populate is not None else None,
            version=int(recorded(t.VERSION) or 6),
        )


@dataclass(frozen=True)
class KeyGenConfig:
    """The key generator options of one write, and the existing table's (``table``, ``None`` for a
    new table).

    Attributes:
        explicit_class: ``hoodie.datasource.write.keygenerator.class`` (possibly the SQL wrapper).
        sql_origin_class: ``hoodie.sql.origin.keygen.class``: what the SQL wrapper wraps.
        explicit_type: ``hoodie.datasource.write.keygenerator.type``.
        record_key_fields / partition_specs: the write's fields when it sets them (an empty value
            means "none") or there is no table; ``None``: the table's apply.
        complex_keygen_new_encoding: ``hoodie.write.complex.keygen.new.encoding`` when set, else
            ``None`` (:meth:`single_complex_key_value_only` decides).
        write_table_version: ``hoodie.write.table.version``: the version of a new table.
        timestamp: the ``hoodie.keygen.timebased.*`` options, the table's overlaid with the write's.
    """

    explicit_class: str | None = None
    sql_origin_class: str | None = None
    explicit_type: str | None = None
    record_key_fields: tuple[str, ...] | None = None
    partition_specs: tuple[str, ...] | None = None
    hive_style_partitioning: bool = False
    url_encode_partitioning: bool = False
    complex_keygen_new_encoding: bool | None = None
    write_table_version: int | None = None
    consistent_logical_timestamp: bool = False
    combine_before_insert: bool = False
    insert_drop_duplicates: bool = False
    populate_meta_fields: bool = True
    index_type: IndexType = IndexType.BLOOM
    timestamp: TimestampKeyGenConfig = field(default_factory=TimestampKeyGenConfig)
    table: TableKeyFields | None = None

    @classmethod
    def of(cls, configs: HudiConfigs, table_properties: Mapping[str, str] | None = None) -> KeyGenConfig:
        w = HudiWriteConfig
        table = TableKeyFields.of(table_properties) if table_properties is not None else None

        def fields(member: ConfigOption[tuple[str, ...]]) -> tuple[str, ...] | None:
            """The write's fields when it sets them, or when there is no table to fall back on."""
            return tuple(configs.get(member)) if configs.is_set(member) or table is None else None

        return cls(
            explicit_class=configs.get(w.KEY_GENERATOR_CLASS) or None,
            sql_origin_class=configs.get(w.SQL_ORIGIN_KEYGEN_CLASS) or None,
            explicit_type=configs.get(w.KEY_GENERATOR_TYPE) or None,
            record_key_fields=fields(w.RECORD_KEY_FIELDS),
            partition_specs=fields(w.PARTITION_PATH_FIELDS),
            hive_style_partitioning=bool(configs.get(w.HIVE_STYLE_PARTITIONING)),
            url_encode_partitioning=bool(configs.get(w.URL_ENCODE_PARTITIONING)),
            complex_keygen_new_encoding=(bool(configs.get(w.COMPLEX_KEYGEN_NEW_ENCODING))
                                         if configs.is_set(w.COMPLEX_KEYGEN_NEW_ENCODING) else None),
            write_table_version=configs.get(w.WRITE_TABLE_VERSION),
            consistent_logical_timestamp=bool(configs.get(w.CONSISTENT_LOGICAL_TIMESTAMP)),
            combine_before_insert=bool(configs.get(w.COMBINE_BEFORE_INSERT)),
            insert_drop_duplicates=bool(configs.get(w.INSERT_DROP_DUPS)),
            populate_meta_fields=bool(configs.get(w.POPULATE_META_FIELDS)),
            index_type=configs.get(w.INDEX_TYPE),
            timestamp=TimestampKeyGenConfig.of(HudiConfigs.layered(
                HudiConfigs.of(table_properties, validate=False).raw() if table_properties is not None else None,
                configs.raw())),
            table=table,
        )

    def single_complex_key_value_only(self, stored: bool | None = None) -> bool:
        """:func:`single_complex_key_value_only` for this write: its table's version (a new table's:
        ``hoodie.write.table.version``), its option, and the form *stored* keys have."""
        version = self.table.version if self.table is not None else (self.write_table_version or 6)
        return single_complex_key_value_only(version, self.complex_keygen_new_encoding, stored)


def single_complex_key_value_only(version: int, new_encoding: bool | None, stored: bool | None) -> bool:
    """Whether a ComplexKeyGenerator over one record key field keys a record by the bare value
    (``1``) rather than ``field:value`` (``id:1``).

    Apache Hudi 0.14.0 and 1.1+ write ``id:1``; 0.14.1 to 1.0.2 wrote ``1`` (HUDI-7001, reverted
    by HUDI-9666), ``hoodie.write.complex.keygen.new.encoding=true`` (*new_encoding*) keeping that
    form. A writer whose form differs from the stored keys' matches none of them and stores every
    upserted record a second time, so: version 9 always ``id:1`` (as Apache Hudi); else the option
    when set; else the form of the keys the table stores (*stored*, read by
    :meth:`hudi_sql.table.meta_client.TableMetaClient.stored_keys_value_only`); else the table
    version's release: ``1`` on version 6 (Apache Hudi 0.15), ``id:1`` on version 8 (1.1 and later).
    """
    if version >= 9:
        return False
    if new_encoding is not None:
        return new_encoding
    if stored is not None:
        return stored
    return version == 6
