"""TimestampBasedKeyGenerator: the partition path is a field's time, formatted (``2023/04/01/12``).

Hudi 0.14 (``TimestampBasedAvroKeyGenerator``, ``HoodieDateTimeParser``,
``TimestampKeyGeneratorConfig``). The record key is SimpleKeyGenerator's. The one partition
field is read as a point in time according to ``hoodie.keygen.timebased.timestamp.type``:

=====================  ==========================================================
type                   the field value is
=====================  ==========================================================
``UNIX_TIMESTAMP``     seconds since the epoch
``EPOCHMILLISECONDS``  millis since the epoch
``EPOCHMICROSECONDS``  micros since the epoch (added after 0.14; accepted here)
``SCALAR``             a count of ``hoodie.keygen.timebased.timestamp.scalar.time.unit``
                       (``NANOSECONDS`` ... ``DAYS``, default ``SECONDS``)
``DATE_STRING``        a string in ``hoodie.keygen.timebased.input.dateformat`` (several
                       formats may be listed, split by ``...input.dateformat.list.delimiter.regex``,
                       default ``,``; the first that parses wins)
``MIXED``              like ``DATE_STRING`` for strings; numbers fail, as in Hudi
=====================  ==========================================================

Numbers become ``long`` first (Java ``longValue()``: doubles and decimals truncate), then millis
(``TimeUnit.convert``: finer units truncate toward zero). What the Avro record holds decides the
number: a ``date`` column gives epoch **days**, a ``timestamp`` column epoch **micros** (so a
timestamp column wants ``EPOCHMICROSECONDS`` or ``SCALAR`` with ``MICROSECONDS``).

The time is printed with ``hoodie.keygen.timebased.output.dateformat`` (a Joda pattern,
converted by :mod:`.datetime_pattern`) in the output time zone. Then, as for any part, it is
escaped when URL encoding is on (``/`` too: ``2023%2F04%2F01``) and prefixed with ``field=``
when hive-style. A format with ``/`` gives nested folders (``2023/04/01/12``, depth 4).

Time zones (``HoodieDateTimeParser``): ``hoodie.keygen.timebased.timezone``, when set, is both
the input and the output zone; otherwise ``...input.timezone`` and ``...output.timezone``. An
unset output zone means the JVM default zone in Hudi, and the Spark session time zone here
(UTC in hudi-sql sessions); for ``DATE_STRING`` it falls back to the input zone first, as Hudi
formats in the zone the value was parsed in. An input string with an offset in its pattern
uses that offset to find the instant; with neither zone set, the path is printed in that offset
too (``2023-04-01T12:01:00+05:30`` is hour ``12``), as Hudi's parser keeps the parsed offset.

A null value is not the default partition: Hudi substitutes ``1`` (one unit after the epoch),
or for ``DATE_STRING`` the epoch plus one milli printed with the first input format in the
input zone (else the output zone, else GMT). A string that does not parse fails the write in
Hudi (``HoodieKeyGeneratorException``); here the partition path is NULL, and the write's profile
counts those rows and fails naming a value and the input format (never writes or drops them).
"""

from __future__ import annotations

__all__ = ["TimeUnit", "TimestampBasedKeyGenerator", "TimestampOptions", "TimestampType", "timestamp_part"]

from pyspark.sql import Column

from hudi_sql.config.table import HudiTableConfig
from hudi_sql.errors import HudiConfigError
from hudi_sql.keygen.base import KeyGenerator, KeyGeneratorType, KeyGenSettings, register_key_generator
from hudi_sql.keygen.field_value import field_column
from hudi_sql.keygen.partition_path import escape_path_name, hive_style
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.keygen.timestamp_options import TimestampOptions, TimestampType, TimeUnit


def timestamp_part(key_generator: KeyGenerator, path: str, options: TimestampOptions) -> Column:
    """One timestamp partition part: formatted, then escaped and hive-styled like any part."""
    value = options.formatted(field_column(path), key_generator._field_type(path, role="partition path"))
    settings = key_generator.settings
    rendered = escape_path_name(value) if settings.url_encode_partitioning else value
    return hive_style(path, rendered, enabled=settings.hive_style_partitioning)


@register_key_generator
class TimestampBasedKeyGenerator(KeyGenerator):
    class_name = "org.apache.hudi.keygen.TimestampBasedKeyGenerator"
    key_generator_type = KeyGeneratorType.TIMESTAMP
    aliases = ("org.apache.hudi.keygen.TimestampBasedAvroKeyGenerator",)

    def _validate(self) -> None:
        super()._validate()
        if len(self.record_key_fields) != 1 and not self.auto_record_keys:
            raise HudiConfigError(
                "TimestampBasedKeyGenerator takes one record key field; "
                f"got {', '.join(self.record_key_fields)}.",
                help="use CustomKeyGenerator with 'field:TIMESTAMP' for several record key fields",
            )
        if len(self.partition_path_fields) != 1:
            raise HudiConfigError(
                "TimestampBasedKeyGenerator takes one partition field; "
                f"got {', '.join(self.partition_path_fields) or 'none'}.",
                help="use CustomKeyGenerator ('a:TIMESTAMP,b:SIMPLE') for several",
            )
        if self.settings.timestamp is None:
            raise HudiConfigError(
                "TimestampBasedKeyGenerator needs the timestamp options "
                f"({HudiTableConfig.TIMESTAMP_TYPE.key}, {HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT.key}, ...).")

    @property
    def timestamp_options(self) -> TimestampOptions:
        assert self.settings.timestamp is not None
        return self.settings.timestamp

    def _value_partition_fields(self) -> tuple[str, ...]:
        return ()

    def _check_schema(self) -> None:
        super()._check_schema()
        path = self.partition_path_fields[0]
        self.timestamp_options.check_field_type(self._field_type(path, role="partition path"), path=path)

    @classmethod
    def key_spec(cls, fields: tuple[str, ...], settings: KeyGenSettings) -> RecordKeySpec:
        return RecordKeySpec(fields, composite=False)

    def partition_path(self) -> Column:
        return self._timestamp_part(self.partition_path_fields[0])

    def _timestamp_part(self, path: str) -> Column:
        return timestamp_part(self, path, self.timestamp_options)

    def table_properties(self) -> dict[str, str]:
        """Hudi also copies the timestamp options into ``hoodie.properties`` for this key generator."""
        return {**super().table_properties(), **self.timestamp_options.persisted}
