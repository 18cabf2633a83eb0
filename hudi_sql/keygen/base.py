"""The key generator contract, and the registry that finds an implementation by name.

A key generator turns a row into a ``HoodieKey``: the record key (``_hoodie_record_key``) and
the partition path (``_hoodie_partition_path``, also the folder the record's file lives in).
Here it does so as two Spark Column expressions, so the write path computes keys inside the
query plan, with no Python UDF.

Implementations register themselves with :func:`register_key_generator` under their
:class:`KeyGeneratorType` name (``SIMPLE``, ``COMPLEX``, ...), their Hudi class name
(``org.apache.hudi.keygen.SimpleKeyGenerator``, the name written to ``hoodie.properties``),
the Avro variant Hudi uses outside Spark (``...SimpleAvroKeyGenerator``), and the short
forms of both class names. :func:`key_generator_class` looks a name up.
"""

from __future__ import annotations

__all__ = [
    "EMPTY_RECORDKEY_PLACEHOLDER",
    "NULL_RECORDKEY_PLACEHOLDER",
    "KeyGenSettings",
    "KeyGenerator",
    "KeyGeneratorType",
    "RecordKeySpec",
    "key_generator_class",
    "key_generator_for_type",
    "register_key_generator",
    "registered_names",
]

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, ClassVar, TypeVar

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import DataType, StructType, TimestampType

from hudi_sql.config.table import HudiTableConfig
from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.errors import HudiConfigError, did_you_mean
from hudi_sql.keygen.auto_key import auto_key_suffix
from hudi_sql.keygen.field_value import (
    check_key_type,
    field_column,
    field_type,
    hudi_string,
    top_level_column,
)
from hudi_sql.keygen.partition_path import partition_part, sql_timestamp_part, with_sql_fallback
from hudi_sql.keygen.record_key import EMPTY_RECORDKEY_PLACEHOLDER, NULL_RECORDKEY_PLACEHOLDER, RecordKeySpec

if TYPE_CHECKING:
    from typing_extensions import Self  # in typing only from Python 3.11

    from hudi_sql.keygen.timestamp_options import TimestampOptions

class KeyGeneratorType(str, Enum):
    """Hudi's ``KeyGeneratorType``: the values of ``hoodie.datasource.write.keygenerator.type``."""

    SIMPLE = "SIMPLE"
    COMPLEX = "COMPLEX"
    TIMESTAMP = "TIMESTAMP"
    CUSTOM = "CUSTOM"
    NON_PARTITION = "NON_PARTITION"
    GLOBAL_DELETE = "GLOBAL_DELETE"


@dataclass(frozen=True)
class KeyGenSettings:
    """Options every key generator reads, resolved once by :func:`~hudi_sql.keygen.key_generator_for`.

    Attributes:
        hive_style_partitioning: partition parts are ``<field>=<value>``.
        url_encode_partitioning: partition values are escaped (``%XX``).
        sql_timestamp_partitions: the write comes from a Spark SQL statement. Hudi's SQL layer
            wraps the table's key generator in ``SqlKeyGenerator``, which rewrites the part of a
            ``timestamp`` partition column from micros to ``yyyy-MM-dd HH:mm:ss`` (escaped).
        complex_keygen_new_encoding: a ComplexKeyGenerator with one record key field writes only
            ``value`` (True: Hudi 0.14.1 - 1.0.2) or ``field:value`` (False: 0.14.0, 1.1+), as
            :meth:`~hudi_sql.config.keygen.KeyGenConfig.single_complex_key_value_only` decides.
        timestamp: the timestamp key generator options, for TIMESTAMP and CUSTOM.
        auto_record_keys: neither the write nor the table names record key fields: record keys
            are generated (:mod:`hudi_sql.keygen.auto_key`); only the partition path comes from
            the key generator.
    """

    hive_style_partitioning: bool = False
    url_encode_partitioning: bool = False
    sql_timestamp_partitions: bool = False
    complex_keygen_new_encoding: bool = False
    timestamp: TimestampOptions | None = None
    auto_record_keys: bool = False


K = TypeVar("K", bound="KeyGenerator")


class KeyGenerator(ABC):
    """Computes ``_hoodie_record_key`` and ``_hoodie_partition_path`` as Spark expressions.

    Both expressions are strings. :meth:`record_key` is NULL for a row whose key Hudi would
    reject (a null or empty simple key; a composite key whose parts are all null or empty), so
    the caller can count those rows and report them instead of failing on the first.
    :meth:`partition_path` is ``""`` for a non-partitioned table; it is NULL only where Hudi
    would fail the write (a timestamp partition value that does not parse).

    Values are stringified as Hudi's Avro path does (:mod:`hudi_sql.keygen.field_value`), which
    depends on column types: bind the input schema with :meth:`with_schema` (or pass
    ``schema=`` to :func:`~hudi_sql.keygen.key_generator_for`) before building expressions for
    timestamp or decimal columns. Without a schema every value is a plain ``CAST AS STRING``.

    Instances are immutable; building one needs no Spark session, building its expressions does.
    """

    class_name: ClassVar[str]
    """The Hudi (Spark) class name, written to the table's key generator class property."""
    key_generator_type: ClassVar[KeyGeneratorType]
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other Hudi class names that mean this implementation (the Avro variant)."""
    partitioned: ClassVar[bool] = True
    """False for key generators that put every record in partition ``""`` and ignore partition fields."""

    def __init__(
        self,
        record_key_fields: Sequence[str],
        partition_path_fields: Sequence[str],
        *,
        settings: KeyGenSettings | None = None,
        schema: StructType | None = None,
    ) -> None:
        self.record_key_fields: tuple[str, ...] = tuple(record_key_fields)
        self.partition_path_fields: tuple[str, ...] = tuple(partition_path_fields)
        self.settings = settings or KeyGenSettings()
        self.schema = schema
        self._validate()

    @classmethod
    def from_config(
        cls,
        record_key_fields: Sequence[str],
        partition_path_specs: Sequence[str],
        settings: KeyGenSettings,
    ) -> Self:
        """Build from the configured fields; *partition_path_specs* may carry ``:TYPE`` suffixes.

        Only the custom key generator understands the suffix; for the others a ``:`` in a
        partition field is a configuration mistake, not a column name. Key generators that are
        not :attr:`partitioned` ignore partition fields, as Hudi's do.
        """
        if not cls.partitioned:
            return cls(record_key_fields, (), settings=settings)
        typed = [spec for spec in partition_path_specs if ":" in spec]
        if typed:
            raise HudiConfigError(
                f"Partition field '{typed[0]}' has a ':TYPE' suffix, "
                "which only CustomKeyGenerator understands.",
                help=f"set {HudiWriteConfig.KEY_GENERATOR_TYPE.key}=CUSTOM, or drop the suffix",
            )
        return cls(record_key_fields, partition_path_specs, settings=settings)

    def _validate(self) -> None:
        """Check the field counts this key generator accepts; subclasses extend it."""
        if self.auto_record_keys:
            return
        if not self.record_key_fields:
            raise HudiConfigError(
                f"{type(self).__name__} needs record key fields; none are configured.",
                help=f"set {HudiWriteConfig.RECORD_KEY_FIELDS.key} (primaryKey in TBLPROPERTIES); "
                "tables without a record key are not supported",
            )

    def with_schema(self, schema: StructType) -> Self:
        """A copy whose expressions stringify values by their type in *schema*.

        Raises:
            HudiKeyError: a configured field is missing from *schema* or has a type Hudi
                cannot key on.
        """
        bound = copy.copy(self)
        bound.schema = schema
        bound._check_schema()
        return bound

    def _check_schema(self) -> None:
        """Fail on a missing field or a type Hudi cannot key on; subclasses check their own parts."""
        for path in self.record_key_fields:
            check_key_type(self._field_type(path, role="record key"), path=path, role="record key")
        for path in self._value_partition_fields():
            check_key_type(self._field_type(path, role="partition path"), path=path, role="partition path")

    def _value_partition_fields(self) -> tuple[str, ...]:
        """Partition fields whose part is the value itself (not a formatted timestamp)."""
        return self.partition_path_fields

    def record_key_spec(self) -> RecordKeySpec:
        """The record key fields and their form (simple or ``f:v,...``): the one place that decides it.

        Both renderers follow it: :meth:`record_key` here, and
        :func:`~hudi_sql.keygen.arrow_key.arrow_record_keys` for stored rows without meta fields.
        """
        return self.key_spec(self.record_key_fields, self.settings)

    @classmethod
    @abstractmethod
    def key_spec(cls, fields: tuple[str, ...], settings: KeyGenSettings) -> RecordKeySpec:
        """:meth:`record_key_spec` of this key generator with these fields, without building one
        (a reader of a table without meta fields needs only this; see
        :func:`~hudi_sql.keygen.factory.table_record_key_spec`)."""

    @property
    def auto_record_keys(self) -> bool:
        """Record keys are generated, not read from fields (a table without a record key)."""
        return self.settings.auto_record_keys

    def record_key(self) -> Column:
        """``_hoodie_record_key``; NULL when Hudi would reject the key.

        With :attr:`auto_record_keys` it is ``<partitionId>_<rowId>``, which the write task
        completes with the instant time (:mod:`hudi_sql.keygen.auto_key`).
        """
        if self.auto_record_keys:
            return auto_key_suffix()
        spec = self.record_key_spec()
        if spec.composite:
            return self._complex_record_key(spec.fields)
        return self._simple_record_key(spec.fields[0])

    @abstractmethod
    def partition_path(self) -> Column:
        """``_hoodie_partition_path``; ``""`` when not partitioned."""

    def partition_values(self) -> Column:
        """The partition fields' values as text (``ts='2023-04-01'``, one per field), to name
        the culprit when :meth:`partition_path` is NULL."""
        parts = [
            F.concat(F.lit(f"{path}="), F.coalesce(F.concat(F.lit("'"), field_column(path).cast("string"),
                                                            F.lit("'")), F.lit("null")))
            for path in self.partition_path_fields
        ]
        return F.concat_ws(", ", *parts) if parts else F.lit("")

    def partition_failure(self, values: str) -> str:
        """Why values (:meth:`partition_values`) gave no partition path; only timestamp parts fail."""
        timestamp = self.settings.timestamp
        if timestamp is None:
            return f"{values} gives no partition path"
        return timestamp.failure(values)

    def required_columns(self) -> tuple[str, ...]:
        """The top-level columns the two expressions read (``a`` for a nested field ``a.b``), in order."""
        seen: dict[str, None] = {}
        for path in (*self.record_key_fields, *self.partition_path_fields):
            seen.setdefault(top_level_column(path), None)
        return tuple(seen)

    def table_properties(self) -> dict[str, str]:
        """The ``hoodie.properties`` entries this key generator stands for, as Hudi 0.14 writes them.

        ``hoodie.table.partition.fields`` is absent for a non-partitioned table, as in tables
        Hudi wrote (``cow/v6_nonpartitioned``).
        """
        props = {
            HudiTableConfig.KEY_GENERATOR_CLASS.key: self.class_name,
            HudiTableConfig.HIVE_STYLE_PARTITIONING.key: _bool(self.settings.hive_style_partitioning),
            HudiTableConfig.URL_ENCODE_PARTITIONING.key: _bool(self.settings.url_encode_partitioning),
        }
        if self.record_key_fields:  # none with auto-generated keys, as Hudi writes it
            props[HudiTableConfig.RECORD_KEY_FIELDS.key] = ",".join(self.record_key_fields)
        if self.partition_path_fields:
            props[HudiTableConfig.PARTITION_FIELDS.key] = ",".join(self.partition_path_fields)
        return props

    # Shared expression builders -------------------------------------------------------------

    def _field_type(self, path: str, *, role: str) -> DataType | None:
        """The field's type in the bound schema (``None`` when unbound); raises if it is missing."""
        if self.schema is None:
            return None
        return field_type(self.schema, path, role=role)

    def _value(self, path: str, *, role: str) -> Column:
        """The field's value as Hudi stringifies it."""
        return hudi_string(field_column(path), self._field_type(path, role=role), path=path, role=role)

    def _simple_record_key(self, path: str) -> Column:
        """``KeyGenUtils.getRecordKey(record, field)``: the value; null or empty is invalid."""
        value = self._value(path, role="record key")
        return F.when(value == F.lit(""), F.lit(None).cast("string")).otherwise(value)

    def _complex_record_key(self, paths: Sequence[str]) -> Column:
        """``KeyGenUtils.getRecordKey(record, fields)``: ``f1:v1,f2:v2``; null -> ``__null__``,
        empty -> ``__empty__``; invalid (NULL) when every part is null or empty."""
        pieces: list[Column] = []
        valid: Column | None = None
        for index, path in enumerate(paths):
            value = self._value(path, role="record key")
            rendered = (
                F.when(value.isNull(), F.lit(NULL_RECORDKEY_PLACEHOLDER))
                .when(value == F.lit(""), F.lit(EMPTY_RECORDKEY_PLACEHOLDER))
                .otherwise(value)
            )
            present = F.coalesce(value != F.lit(""), F.lit(False))
            valid = present if valid is None else (valid | present)
            pieces.append(F.lit(("," if index else "") + f"{path}:"))
            pieces.append(rendered)
        assert valid is not None
        return F.when(valid, F.concat(*pieces)).otherwise(F.lit(None).cast("string"))

    def _value_partition_path(self, paths: Sequence[str]) -> Column:
        """Value parts (:func:`.partition_path.partition_part`) joined with ``/``.

        For a SQL write, ``timestamp`` columns get ``SqlKeyGenerator``'s rewrite
        (:func:`.partition_path.with_sql_fallback`).
        """
        return with_sql_fallback(
            [self._value_part(path) for path in paths], [self._sql_timestamp_part(path) for path in paths]
        )

    def _value_part(self, path: str) -> Column:
        return partition_part(
            self._value(path, role="partition path"),
            path,
            hive_style_partitioning=self.settings.hive_style_partitioning,
            url_encode=self.settings.url_encode_partitioning,
        )

    def _sql_timestamp_part(self, path: str) -> Column | None:
        """The SQL rewrite of a ``timestamp`` partition column's part, or ``None`` when none applies.

        A null value keeps the default partition: Hudi's ``SqlKeyGenerator`` fails the write
        there (it parses ``__HIVE_DEFAULT_PARTITION__`` as a number).
        """
        if not self.settings.sql_timestamp_partitions:
            return None
        if not isinstance(self._field_type(path, role="partition path"), TimestampType):
            return None
        column = field_column(path)
        return F.when(column.isNull(), self._value_part(path)).otherwise(
            sql_timestamp_part(
                F.unix_micros(column), path, hive_style_partitioning=self.settings.hive_style_partitioning
            )
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(record_key_fields={self.record_key_fields!r}, "
            f"partition_path_fields={self.partition_path_fields!r})"
        )


def _bool(value: bool) -> str:
    return "true" if value else "false"


_BY_NAME: dict[str, type[KeyGenerator]] = {}
_BY_TYPE: dict[KeyGeneratorType, type[KeyGenerator]] = {}


def _short(class_name: str) -> str:
    return class_name.rsplit(".", 1)[-1]


def register_key_generator(cls: type[K]) -> type[K]:
    """Class decorator: make *cls* findable by its type, class names and short class names."""
    if cls.key_generator_type in _BY_TYPE:
        raise ValueError(f"key generator type {cls.key_generator_type.value} is registered twice")
    _BY_TYPE[cls.key_generator_type] = cls
    names = [cls.key_generator_type.value, cls.class_name, *cls.aliases]
    names += [_short(name) for name in (cls.class_name, *cls.aliases)]
    for name in names:
        _BY_NAME[name] = cls
    return cls


def registered_names() -> list[str]:
    """Every name :func:`key_generator_class` understands."""
    return sorted(_BY_NAME)


def key_generator_class(name: str) -> type[KeyGenerator]:
    """The implementation registered under *name*: a type, a Hudi class name or its short form.

    Types are matched case-insensitively (Hudi upper-cases them); class names exactly, then
    case-insensitively.

    Raises:
        HudiConfigError: nothing is registered under *name*, with a did-you-mean hint.
    """
    key = name.strip()
    found = _BY_NAME.get(key) or _BY_NAME.get(key.upper())
    if found is None:
        folded = {n.lower(): cls for n, cls in _BY_NAME.items()}
        found = folded.get(key.lower())
    if found is None:
        raise HudiConfigError(
            f"Unknown key generator '{name}'.{did_you_mean(key, _BY_NAME)}",
            help="use a type (SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM, GLOBAL_DELETE) or one of "
            "Hudi's built-in org.apache.hudi.keygen classes; hudi-sql cannot run JVM key generator classes",
        )
    return found


def key_generator_for_type(key_generator_type: KeyGeneratorType) -> type[KeyGenerator]:
    """The implementation of a :class:`KeyGeneratorType` (every type has one)."""
    return _BY_TYPE[key_generator_type]
