"""The timestamp key generator options, and how they turn a field value into a partition part.

``TimestampBasedKeyGenerator`` and ``CustomKeyGenerator`` (its ``TIMESTAMP`` parts) share
these options; they live apart from the key generators so that
:class:`~hudi_sql.keygen.base.KeyGenSettings` can hold them without an import cycle. See
:mod:`hudi_sql.keygen.timestamp_based` for Hudi's rules.
"""

from __future__ import annotations

__all__ = ["DEFAULT_DATE_TIME_PARSER", "TimeUnit", "TimestampOptions", "TimestampType"]

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import (
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegralType,
    NullType,
    StringType,
)
from pyspark.sql.types import (
    TimestampType as SparkTimestampType,
)

from hudi_sql.config.keygen import TimestampKeyGenConfig
from hudi_sql.config.table import HudiTableConfig
from hudi_sql.errors import HudiConfigError, HudiKeyError
from hudi_sql.keygen.datetime_pattern import (
    has_zone_field,
    joda_to_spark_parse_patterns,
    joda_to_spark_pattern,
)

DEFAULT_DATE_TIME_PARSER = "org.apache.hudi.keygen.parser.HoodieDateTimeParser"


class TimestampType(str, Enum):
    """``TimestampBasedAvroKeyGenerator.TimestampType``: how the partition field's value is read."""

    UNIX_TIMESTAMP = "UNIX_TIMESTAMP"
    DATE_STRING = "DATE_STRING"
    MIXED = "MIXED"
    EPOCHMILLISECONDS = "EPOCHMILLISECONDS"
    EPOCHMICROSECONDS = "EPOCHMICROSECONDS"
    SCALAR = "SCALAR"

    @property
    def reads_strings(self) -> bool:
        return self in (TimestampType.DATE_STRING, TimestampType.MIXED)


class TimeUnit(str, Enum):
    """``java.util.concurrent.TimeUnit``, with how a count of it becomes millis."""

    NANOSECONDS = "NANOSECONDS"
    MICROSECONDS = "MICROSECONDS"
    MILLISECONDS = "MILLISECONDS"
    SECONDS = "SECONDS"
    MINUTES = "MINUTES"
    HOURS = "HOURS"
    DAYS = "DAYS"

    def to_millis(self, count: Column) -> Column:
        """``MILLISECONDS.convert(count, self)``: finer units divide, truncating toward zero."""
        divisor = _MILLIS_DIVISOR.get(self)
        if divisor is not None:
            return F.call_function("div", count, F.lit(divisor))
        return F.try_multiply(count, F.lit(_MILLIS_FACTOR[self]).cast("long"))  # NULL beyond the long range


_MILLIS_DIVISOR = {TimeUnit.NANOSECONDS: 1_000_000, TimeUnit.MICROSECONDS: 1_000}
_MILLIS_FACTOR = {
    TimeUnit.MILLISECONDS: 1,
    TimeUnit.SECONDS: 1_000,
    TimeUnit.MINUTES: 60_000,
    TimeUnit.HOURS: 3_600_000,
    TimeUnit.DAYS: 86_400_000,
}
_TYPE_UNIT = {
    TimestampType.UNIX_TIMESTAMP: TimeUnit.SECONDS,
    TimestampType.EPOCHMILLISECONDS: TimeUnit.MILLISECONDS,
    TimestampType.EPOCHMICROSECONDS: TimeUnit.MICROSECONDS,
}

@dataclass(frozen=True)
class TimestampOptions:
    """The ``hoodie.keygen.timebased.*`` options, validated as ``HoodieDateTimeParser`` does.

    Attributes:
        timestamp_type: how the value is read.
        output_format: Joda pattern of the partition path.
        input_formats: Joda patterns for string values (DATE_STRING, MIXED).
        input_timezone: zone of strings without an offset; ``None``: the session zone.
        output_timezone: zone the path is printed in; ``None``: see the module doc.
        scalar_unit: unit of SCALAR values.
        persisted: the options as given, for ``hoodie.properties``.
    """

    timestamp_type: TimestampType
    output_format: str
    input_formats: tuple[str, ...] = ()
    input_timezone: str | None = None
    output_timezone: str | None = None
    scalar_unit: TimeUnit = TimeUnit.SECONDS
    persisted: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: TimestampKeyGenConfig) -> TimestampOptions:
        """Check the options as ``HoodieDateTimeParser`` does.

        Raises:
            HudiConfigError: the type or output format is missing, DATE_STRING has no input
                format, a value is not allowed, or a pattern uses a letter Spark cannot handle.
        """
        raw_type = config.timestamp_type
        if not raw_type:
            raise HudiConfigError(
                f"The timestamp key generator needs '{HudiTableConfig.TIMESTAMP_TYPE.key}'.",
                help="one of " + ", ".join(t.value for t in TimestampType),
            )
        try:
            timestamp_type = TimestampType(str(raw_type).strip().upper())
        except ValueError:
            raise HudiConfigError(
                f"Option '{HudiTableConfig.TIMESTAMP_TYPE.key}' does not allow {raw_type!r}.",
                help="one of " + ", ".join(t.value for t in TimestampType),
            ) from None
        output_format = config.output_format
        if not output_format.strip():
            raise HudiConfigError(
                f"The timestamp key generator needs '{HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT.key}'.",
                help="a Joda date pattern, e.g. yyyy/MM/dd",
            )
        joda_to_spark_pattern(output_format)
        input_formats: tuple[str, ...] = ()
        if timestamp_type.reads_strings:
            input_formats = tuple(p.strip() for p in re.split(config.input_format_delimiter, config.input_format)
                                  if p.strip())
            if not input_formats:
                raise HudiConfigError(
                    f"Timestamp type {timestamp_type.value} "
                    f"needs '{HudiTableConfig.TIMESTAMP_INPUT_FORMAT.key}'.",
                    help="a Joda date pattern such as yyyy-MM-dd'T'HH:mm:ss.SSSZ (several: comma-separated)",
                )
            for pattern in input_formats:
                joda_to_spark_pattern(pattern)
        raw_unit = config.scalar_unit
        try:
            scalar_unit = TimeUnit(raw_unit)
        except ValueError:
            raise HudiConfigError(
                f"Option '{HudiTableConfig.TIMESTAMP_SCALAR_UNIT.key}' does not allow {raw_unit!r}.",
                help="one of " + ", ".join(u.value for u in TimeUnit),
            ) from None
        parser = config.parser_class or DEFAULT_DATE_TIME_PARSER
        if parser != DEFAULT_DATE_TIME_PARSER:
            raise HudiConfigError(
                f"Date-time parser '{parser}' is a JVM class hudi-sql cannot run.",
                help=f"remove '{HudiTableConfig.DATETIME_PARSER_CLASS.key}' to use Hudi's default parser",
            )
        return cls(timestamp_type, output_format, input_formats, config.input_timezone, config.output_timezone,
                   scalar_unit, config.persisted)

    @property
    def time_unit(self) -> TimeUnit | None:
        """The unit numbers are read in; ``None`` for DATE_STRING and MIXED (numbers fail there)."""
        if self.timestamp_type is TimestampType.SCALAR:
            return self.scalar_unit
        return _TYPE_UNIT.get(self.timestamp_type)

    def check_field_type(self, data_type: DataType | None, *, path: str) -> None:
        """Refuse a column type Hudi cannot read with this timestamp type.

        Raises:
            HudiKeyError: a string column with a numeric timestamp type ("Missing input
                formatter" in Hudi), a number with DATE_STRING / MIXED, or a type Hudi does not
                read at all (boolean, binary, ...).
        """
        if data_type is None or isinstance(data_type, NullType):
            return
        if isinstance(data_type, StringType):
            if not self.timestamp_type.reads_strings:
                raise HudiKeyError(
                    f"Timestamp partition field '{path}' is a string, but timestamp type "
                    f"{self.timestamp_type.value} reads numbers.",
                    help=f"use DATE_STRING with {HudiTableConfig.TIMESTAMP_INPUT_FORMAT.key}",
                )
            return
        if isinstance(
            data_type, (IntegralType, FloatType, DoubleType, DecimalType, DateType, SparkTimestampType)
        ):
            if self.time_unit is None:
                raise HudiKeyError(
                    f"Timestamp partition field '{path}' has type {data_type.simpleString()}, "
                    "but timestamp type "
                    f"{self.timestamp_type.value} reads strings.",
                    help="use UNIX_TIMESTAMP, EPOCHMILLISECONDS, EPOCHMICROSECONDS or SCALAR for numbers",
                )
            return
        raise HudiKeyError(
            f"Timestamp partition field '{path}' has type {data_type.simpleString()}, which is not a time.",
            help="use a number, date, timestamp or string column",
        )

    def failure(self, values: str) -> str:
        """Why *values* give no partition path, naming the options they must fit (an error message)."""
        kind = f"'{HudiTableConfig.TIMESTAMP_TYPE.key}' = {self.timestamp_type.value}"
        if self.timestamp_type.reads_strings:
            formats = ",".join(self.input_formats)
            return f"{values} does not parse with '{HudiTableConfig.TIMESTAMP_INPUT_FORMAT.key}' = {formats!r} ({kind})"
        if self.timestamp_type is TimestampType.SCALAR:
            kind += f", '{HudiTableConfig.TIMESTAMP_SCALAR_UNIT.key}' = {self.scalar_unit.value}"
        return f"{values} is not a time within the range of timestamps ({kind})"

    # Expressions ------------------------------------------------------------------------------

    def formatted(self, column: Column, data_type: DataType | None) -> Column:
        """The partition value: the field's time printed with the output format; NULL if unparseable."""
        reads_string = isinstance(data_type, StringType) or (
            data_type is None and self.timestamp_type.reads_strings
        )
        if reads_string:
            text = F.coalesce(column.cast("string"), self._null_string())
            zone = self.output_timezone or self.input_timezone
            if zone is None:
                # Hudi prints in the zone the value was parsed in: the string's own offset, else
                # the default zone; either way the wall time as written.
                return _printed(self._wall_time(text), self.output_format)
            instant = self._parse(text)
        else:
            unit = self.time_unit
            assert unit is not None, "checked by check_field_type"
            # A null value is 1 unit after the epoch (as in Hudi); a number with no time (out of
            # range) is NULL, so the write fails naming it instead of failing in a task.
            count = F.when(column.isNull(), F.lit(1).cast("long")).otherwise(_epoch_count(column, data_type))
            millis = unit.to_millis(count)
            instant = F.when(millis.between(-_MAX_TIMESTAMP_MILLIS, _MAX_TIMESTAMP_MILLIS), F.timestamp_millis(millis))
            zone = self.output_timezone
        return _printed(_in_zone(instant, zone), self.output_format)

    def _parse(self, text: Column) -> Column:
        """The instant a string denotes, trying each input format in order (Joda's parser list)."""
        candidates = []
        for pattern in self.input_formats:
            for spark_pattern in joda_to_spark_parse_patterns(pattern):
                parsed = F.try_to_timestamp(text, F.lit(spark_pattern))
                if self.input_timezone and not has_zone_field(pattern):
                    # Spark read the wall time in the session zone; move it to the input zone.
                    parsed = F.to_utc_timestamp(
                        F.from_utc_timestamp(parsed, F.current_timezone()), self.input_timezone
                    )
                candidates.append(parsed)
        return candidates[0] if len(candidates) == 1 else F.coalesce(*candidates)

    def _wall_time(self, text: Column) -> Column:
        """The date and time a string holds as written (an offset in it read, not applied); NULL
        when no input format parses it."""
        candidates = []
        for pattern in self.input_formats:
            for spark_pattern in joda_to_spark_parse_patterns(pattern):
                parses = F.try_to_timestamp(text, F.lit(spark_pattern)).isNotNull()
                candidates.append(F.when(parses, F.to_timestamp_ntz(text, F.lit(spark_pattern))))
        return candidates[0] if len(candidates) == 1 else F.coalesce(*candidates)

    def _null_string(self) -> Column:
        """``getDefaultPartitionVal`` for strings: epoch + 1 ms in the first input format."""
        zone = self.input_timezone or self.output_timezone or "GMT"
        return F.date_format(
            _in_zone(F.timestamp_millis(F.lit(1)), zone), joda_to_spark_pattern(self.input_formats[0])
        )


def _printed(time: Column, joda_pattern: str) -> Column:
    """*time* printed with a Joda output pattern. ``java.time`` prints a year past 9999 with a
    ``+`` (its sign style for a year wider than the pattern); Joda prints the digits alone, and so
    does this (``+55840/11/08`` would be a partition folder Apache Hudi never writes)."""
    text = F.date_format(time, joda_to_spark_pattern(joda_pattern))
    return F.when(F.year(time) > 9999, F.regexp_replace(text, r"\+(\d{5,})", "$1")).otherwise(text)


def _epoch_count(column: Column, data_type: DataType | None) -> Column:
    """The long Hudi's Avro record holds: micros for timestamps, days for dates, else the number
    as Java's ``longValue()`` makes it (a double: NaN is 0, beyond the long range the nearest
    bound). A decimal beyond the long range is NULL (Java keeps its low 64 bits: a wrong time)."""
    if isinstance(data_type, SparkTimestampType):
        return F.unix_micros(column)
    if isinstance(data_type, DateType):
        return F.unix_date(column).cast("long")
    if isinstance(data_type, (FloatType, DoubleType)):
        return (F.when(F.isnan(column), F.lit(0).cast("long"))
                .when(column >= F.lit(_LONG_MAX_AS_DOUBLE), F.lit(_LONG_MAX))
                .when(column <= F.lit(-_LONG_MAX_AS_DOUBLE), F.lit(-_LONG_MAX - 1))
                .otherwise(column.cast("long")))
    if isinstance(data_type, DecimalType):
        return column.try_cast("long")
    return column.cast("long")


_LONG_MAX = 2**63 - 1
_LONG_MAX_AS_DOUBLE = float(2**63)
# timestamp_millis fails beyond this (micros since the epoch in a long).
_MAX_TIMESTAMP_MILLIS = _LONG_MAX // 1000


def _in_zone(instant: Column, zone: str | None) -> Column:
    """An instant whose wall time in the session zone is *instant*'s wall time in *zone*.

    ``date_format`` prints in the session time zone; this shifts the instant so that it prints
    *zone*'s wall time instead. ``None`` keeps the session zone.
    """
    if zone is None:
        return instant
    return F.to_utc_timestamp(F.from_utc_timestamp(instant, zone), F.current_timezone())
