"""Timestamp key generator options: read and checked like Hudi's HoodieDateTimeParser (no Spark)."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql.types import DateType, LongType, StringType, TimestampType

from hudi_sql.config import HudiConfigs
from hudi_sql.config.keygen import TimestampKeyGenConfig
from hudi_sql.errors import HudiConfigError, HudiKeyError
from hudi_sql.keygen import TimestampOptions, TimeUnit
from hudi_sql.keygen import TimestampType as KeygenTimestampType

BASE = {
    "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
    "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
}


def _with(options: dict[str, Any]) -> TimestampOptions:
    merged = {**BASE, **options}
    return TimestampOptions.from_config(TimestampKeyGenConfig.of(
        HudiConfigs.of({k: v for k, v in merged.items() if v is not None}, validate=False)))


def test_timestamp_options_defaults_no_zone_and_seconds_scalar_unit() -> None:
    options = _with({})
    assert options.timestamp_type is KeygenTimestampType.EPOCHMILLISECONDS
    assert (options.input_timezone, options.output_timezone) == (None, None)
    assert options.scalar_unit is TimeUnit.SECONDS
    assert options.time_unit is TimeUnit.MILLISECONDS


def test_timestamp_options_timezone_key_sets_both_zones_and_wins() -> None:
    options = _with(
        {
            "hoodie.keygen.timebased.timezone": "Asia/Tokyo",
            "hoodie.keygen.timebased.input.timezone": "UTC",
            "hoodie.keygen.timebased.output.timezone": "UTC",
        }
    )
    assert (options.input_timezone, options.output_timezone) == ("Asia/Tokyo", "Asia/Tokyo")


def test_timestamp_options_separate_input_and_output_zones() -> None:
    options = _with(
        {
            "hoodie.keygen.timebased.input.timezone": "UTC",
            "hoodie.keygen.timebased.output.timezone": " GMT+8 ",
        }
    )
    assert (options.input_timezone, options.output_timezone) == ("UTC", "GMT+8")


@pytest.mark.parametrize(
    ("timestamp_type", "unit", "expected"),
    [
        ("UNIX_TIMESTAMP", None, TimeUnit.SECONDS),
        ("EPOCHMICROSECONDS", None, TimeUnit.MICROSECONDS),
        ("SCALAR", "minutes", TimeUnit.MINUTES),
        ("DATE_STRING", None, None),
        ("MIXED", None, None),
    ],
)
def test_timestamp_options_time_unit_by_type(
    timestamp_type: str, unit: str | None, expected: TimeUnit | None
) -> None:
    options = _with(
        {
            "hoodie.keygen.timebased.timestamp.type": timestamp_type,
            "hoodie.keygen.timebased.timestamp.scalar.time.unit": unit,
            "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd",
        }
    )
    assert options.time_unit is expected


def test_timestamp_options_input_formats_split_by_delimiter_regex_and_trimmed() -> None:
    options = _with(
        {
            "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
            "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd ; yyyyMMdd",
            "hoodie.keygen.timebased.input.dateformat.list.delimiter.regex": ";",
        }
    )
    assert options.input_formats == ("yyyy-MM-dd", "yyyyMMdd")


def test_timestamp_options_missing_type_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="timestamp.type"):
        _with({"hoodie.keygen.timebased.timestamp.type": None})


def test_timestamp_options_missing_output_format_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="output.dateformat"):
        _with({"hoodie.keygen.timebased.output.dateformat": None})


def test_timestamp_options_date_string_without_input_format_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="needs 'hoodie.keygen.timebased.input.dateformat'"):
        _with({"hoodie.keygen.timebased.timestamp.type": "DATE_STRING"})


def test_timestamp_options_unknown_type_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="does not allow"):
        _with({"hoodie.keygen.timebased.timestamp.type": "EPOCH"})


def test_timestamp_options_unknown_scalar_unit_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="scalar.time.unit.*does not allow"):
        _with(
            {
                "hoodie.keygen.timebased.timestamp.type": "SCALAR",
                "hoodie.keygen.timebased.timestamp.scalar.time.unit": "WEEKS",
            }
        )


def test_timestamp_options_custom_parser_class_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="JVM class"):
        _with({"hoodie.keygen.datetime.parser.class": "com.example.Parser"})


def test_timestamp_options_pattern_spark_cannot_format_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="week year"):
        _with({"hoodie.keygen.timebased.output.dateformat": "xxxx/ww"})


def test_timestamp_options_persisted_only_keys_that_were_set() -> None:
    options = _with({"hoodie.keygen.timebased.timezone": "UTC"})
    assert options.persisted == {  # not the type: Apache Hudi 0.15 does not persist it
        "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
        "hoodie.keygen.timebased.timezone": "UTC",
    }


def test_timestamp_options_check_field_type_string_with_numeric_type_raises_key_error() -> None:
    with pytest.raises(HudiKeyError, match="reads numbers"):
        _with({}).check_field_type(StringType(), path="ts")


def test_timestamp_options_check_field_type_number_with_date_string_raises_key_error() -> None:
    options = _with(
        {
            "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
            "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd",
        }
    )
    with pytest.raises(HudiKeyError, match="reads strings"):
        options.check_field_type(LongType(), path="ts")
    options.check_field_type(StringType(), path="ts")


def test_timestamp_options_check_field_type_numbers_dates_timestamps_accepted() -> None:
    options = _with({})
    for data_type in (LongType(), DateType(), TimestampType(), None):
        options.check_field_type(data_type, path="ts")
