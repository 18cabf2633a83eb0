"""CustomKeyGenerator: each partition field is either a plain value or a formatted time.

Hudi 0.14 (``CustomKeyGenerator`` / ``CustomAvroKeyGenerator``): partition fields are
configured as ``field:TYPE`` with ``TYPE`` ``SIMPLE`` or ``TIMESTAMP`` (any case), e.g.
``region:SIMPLE,ts:TIMESTAMP``. Each ``SIMPLE`` part is SimpleKeyGenerator's, each
``TIMESTAMP`` part TimestampBasedKeyGenerator's (all with the one set of
``hoodie.keygen.timebased.*`` options); the parts are joined with ``/``. An empty partition
field list means non-partitioned. The record key is SimpleKeyGenerator's for one field and
ComplexKeyGenerator's (``f:v,...``) for several.

In ``hoodie.properties`` Hudi 0.14 (table version 6) writes the partition fields **without**
their types (``SparkKeyGenUtils.getPartitionColumns``), and no timestamp options, so a later
write must configure ``hoodie.datasource.write.partitionpath.field`` with the types again;
table version 8 (Hudi 1.x) keeps the types.
"""

from __future__ import annotations

__all__ = ["CustomKeyGenerator", "PartitionKeyType"]

from collections.abc import Sequence
from enum import Enum

from pyspark.sql import Column

from hudi_sql.config.table import HudiTableConfig
from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.errors import HudiConfigError
from hudi_sql.keygen.base import KeyGenerator, KeyGeneratorType, KeyGenSettings, register_key_generator
from hudi_sql.keygen.partition_path import with_sql_fallback
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.keygen.timestamp_based import timestamp_part


class PartitionKeyType(str, Enum):
    """``CustomAvroKeyGenerator.PartitionKeyType``."""

    SIMPLE = "SIMPLE"
    TIMESTAMP = "TIMESTAMP"


def parse_partition_spec(spec: str) -> tuple[str, PartitionKeyType]:
    """``"ts:timestamp"`` -> ``("ts", TIMESTAMP)``.

    Raises:
        HudiConfigError: the spec is not ``field:TYPE`` (Hudi: "Unable to find field names for
            partition path in proper format").
    """
    pieces = spec.split(":")
    if len(pieces) != 2 or not pieces[0].strip():
        raise HudiConfigError(
            f"Partition field '{spec}' is not in the form field:TYPE that CustomKeyGenerator needs.",
            help=f"write e.g. city:SIMPLE,ts:TIMESTAMP in {HudiWriteConfig.PARTITION_PATH_FIELDS.key}",
        )
    try:
        return pieces[0].strip(), PartitionKeyType(pieces[1].strip().upper())
    except ValueError:
        raise HudiConfigError(
            f"Partition field '{spec}' has type '{pieces[1]}'; "
            "CustomKeyGenerator knows SIMPLE and TIMESTAMP.",
        ) from None


@register_key_generator
class CustomKeyGenerator(KeyGenerator):
    class_name = "org.apache.hudi.keygen.CustomKeyGenerator"
    key_generator_type = KeyGeneratorType.CUSTOM
    aliases = ("org.apache.hudi.keygen.CustomAvroKeyGenerator",)

    def __init__(
        self,
        record_key_fields: Sequence[str],
        partition_path_fields: Sequence[str],
        *,
        partition_types: Sequence[PartitionKeyType] | None = None,
        **kwargs: object,
    ) -> None:
        self.partition_types: tuple[PartitionKeyType, ...] = tuple(
            partition_types
            if partition_types is not None
            else (PartitionKeyType.SIMPLE,) * len(partition_path_fields)
        )
        super().__init__(record_key_fields, partition_path_fields, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_config(
        cls,
        record_key_fields: Sequence[str],
        partition_path_specs: Sequence[str],
        settings: KeyGenSettings,
    ) -> CustomKeyGenerator:
        parsed = [parse_partition_spec(spec) for spec in partition_path_specs]
        return cls(
            record_key_fields,
            [name for name, _ in parsed],
            partition_types=[kind for _, kind in parsed],
            settings=settings,
        )

    def _validate(self) -> None:
        super()._validate()
        if len(self.partition_types) != len(self.partition_path_fields):
            raise HudiConfigError("CustomKeyGenerator needs one type per partition field.")
        if PartitionKeyType.TIMESTAMP in self.partition_types and self.settings.timestamp is None:
            raise HudiConfigError(
                "CustomKeyGenerator has a TIMESTAMP partition field "
                "but no timestamp options.",
                help=f"set {HudiTableConfig.TIMESTAMP_TYPE.key} "
                f"and {HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT.key}",
            )

    def _value_partition_fields(self) -> tuple[str, ...]:
        return tuple(
            path
            for path, kind in zip(self.partition_path_fields, self.partition_types)
            if kind is PartitionKeyType.SIMPLE
        )

    def _check_schema(self) -> None:
        super()._check_schema()
        for path, kind in zip(self.partition_path_fields, self.partition_types):
            if kind is PartitionKeyType.TIMESTAMP:
                assert self.settings.timestamp is not None
                self.settings.timestamp.check_field_type(
                    self._field_type(path, role="partition path"), path=path
                )

    @classmethod
    def key_spec(cls, fields: tuple[str, ...], settings: KeyGenSettings) -> RecordKeySpec:
        return RecordKeySpec(fields, composite=len(fields) > 1)

    def partition_path(self) -> Column:
        raw: list[Column] = []
        sql: list[Column | None] = []
        for path, kind in zip(self.partition_path_fields, self.partition_types):
            if kind is PartitionKeyType.TIMESTAMP:
                assert self.settings.timestamp is not None
                raw.append(timestamp_part(self, path, self.settings.timestamp))
                sql.append(None)
            else:
                raw.append(self._value_part(path))
                sql.append(self._sql_timestamp_part(path))
        return with_sql_fallback(raw, sql)

    def partition_specs(self) -> tuple[str, ...]:
        """The partition fields in the ``field:TYPE`` form of the write option."""
        return tuple(
            f"{path}:{kind.value}" for path, kind in zip(self.partition_path_fields, self.partition_types)
        )
