"""Key generator expressions evaluated by Spark, against Hudi 0.14's rules and Hudi's own tables.

Expected strings come from Hudi's source (``KeyGenUtils``, ``HoodieAvroUtils``,
``PartitionPathEncodeUtils``, ``TimestampBasedAvroKeyGenerator``, ``SqlKeyGenerator``) and
from the ``_hoodie_record_key`` / ``_hoodie_partition_path`` columns of tables Hudi wrote.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fixture_tables import SampleTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

import hudi_sql
from hudi_sql.config import HudiConfigs
from hudi_sql.errors import HudiKeyError
from hudi_sql.keygen import KeyGenerator, key_generator_for
from hudi_sql.keygen.partition_path import ESCAPED_CHARACTERS, escape_path_name_py
from hudi_sql.storage.properties import parse_properties

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc


def _keys(
    spark: SparkSession,
    rows: list[tuple[Any, ...]],
    schema: StructType,
    options: dict[str, Any],
    *,
    sql: bool = False,
    bind: bool = True,
) -> list[tuple[str | None, str | None]]:
    df = spark.createDataFrame(rows, schema)
    keygen = key_generator_for(
        HudiConfigs.of(options, validate=False), schema=df.schema if bind else None, sql=sql
    )
    return _collect(df, keygen)


def _collect(df: DataFrame, keygen: KeyGenerator) -> list[tuple[str | None, str | None]]:
    out = df.select(keygen.record_key().alias("k"), keygen.partition_path().alias("p")).collect()
    return [(row["k"], row["p"]) for row in out]


def _opts(record_key: str, partition: str, **extra: Any) -> dict[str, Any]:
    return {
        "hoodie.datasource.write.recordkey.field": record_key,
        "hoodie.datasource.write.partitionpath.field": partition,
        **extra,
    }


ID_PART = StructType([StructField("id", StringType()), StructField("part", StringType())])


# -- simple ------------------------------------------------------------------------------------


def test_simple_key_generator_null_and_empty_values_invalid_key_and_default_partition(
    spark: SparkSession,
) -> None:
    rows = [("1", "x"), ("", "y"), (None, ""), ("4", None)]
    assert _keys(spark, rows, ID_PART, _opts("id", "part")) == [
        ("1", "x"),
        (None, "y"),
        (None, "__HIVE_DEFAULT_PARTITION__"),
        ("4", "__HIVE_DEFAULT_PARTITION__"),
    ]


def test_simple_key_generator_hive_style_prefixes_field_name_also_on_default(spark: SparkSession) -> None:
    options = _opts("id", "part", **{"hoodie.datasource.write.hive_style_partitioning": "true"})
    assert _keys(spark, [("1", "x"), ("2", None)], ID_PART, options) == [
        ("1", "part=x"),
        ("2", "part=__HIVE_DEFAULT_PARTITION__"),
    ]


def test_simple_key_generator_slash_without_url_encoding_nested_folders(spark: SparkSession) -> None:
    assert _keys(spark, [("1", "2023/04/01")], ID_PART, _opts("id", "part")) == [("1", "2023/04/01")]


def test_simple_key_generator_url_encoding_escapes_like_partition_path_encode_utils(
    spark: SparkSession,
) -> None:
    values = [
        "a/b",
        "100%",
        "k=v:1",
        "tab\there",
        "[x]{y}^",
        "q\"#'*?\\",
        "\x00\x01\x1f\x7f",
        "é ü 😀",
        "plain",
    ]
    options = _opts("id", "part", **{"hoodie.datasource.write.partitionpath.urlencode": "true"})
    got = _keys(spark, [(str(i), v) for i, v in enumerate(values)], ID_PART, options)
    assert [p for _, p in got] == [escape_path_name_py(v) for v in values]
    assert [p for _, p in got][:3] == ["a%2Fb", "100%25", "k%3Dv%3A1"]
    assert got[7][1] == "é ü 😀"


def test_simple_key_generator_url_encoding_every_escaped_character(spark: SparkSession) -> None:
    value = "".join(ESCAPED_CHARACTERS)
    options = _opts("id", "part", **{"hoodie.datasource.write.partitionpath.urlencode": "true"})
    ((_, path),) = _keys(spark, [("1", value)], ID_PART, options)
    assert path == "".join(f"%{ord(c):02X}" for c in ESCAPED_CHARACTERS)


def test_simple_key_generator_value_types_stringify_like_hudi_avro_path(spark: SparkSession) -> None:
    schema = StructType(
        [
            StructField("b", ByteType()),
            StructField("s", ShortType()),
            StructField("i", IntegerType()),
            StructField("l", LongType()),
            StructField("bool", BooleanType()),
            StructField("f", FloatType()),
            StructField("d", DoubleType()),
            StructField("dec", DecimalType(10, 5)),
            StructField("dec8", DecimalType(12, 8)),
            StructField("date", DateType()),
            StructField("ts", TimestampType()),
        ]
    )
    row = (
        10,
        300,
        15000,
        9876543210,
        True,
        1.5,
        1.0e7,
        Decimal("12345.67890"),
        Decimal("0.00000010"),
        dt.date(2023, 4, 1),
        dt.datetime(2023, 4, 1, 12, 1, tzinfo=UTC),
    )
    df = spark.createDataFrame([row], schema)
    expected = {
        "b": "10",
        "s": "300",
        "i": "15000",
        "l": "9876543210",
        "bool": "true",
        "f": "1.5",
        "d": "1.0E7",
        "dec": "12345.67890",
        "dec8": "1.0E-7",
        "date": "2023-04-01",
        "ts": "1680350460000000",
    }
    for column, value in expected.items():
        keygen = key_generator_for(HudiConfigs.of(_opts(column, column)), schema=df.schema)
        assert _collect(df, keygen) == [(value, value)], column


@pytest.mark.parametrize(
    "value",
    [
        "0E-8",
        "0.00000010",
        "-0.00000001",
        "-0.00000123",
        "0.00000123",
        "0.00012300",
        "1234.00000001",
        "-5.50000000",
        "123456789012.00000000",
    ],
)
def test_decimal_key_scale_above_six_matches_java_big_decimal_to_string(
    spark: SparkSession, value: str
) -> None:
    # Python's str(Decimal) follows the same to-scientific-string rule as Java's BigDecimal.toString.
    schema = StructType([StructField("id", StringType()), StructField("dec", DecimalType(20, 8))])
    df = spark.createDataFrame([("1", Decimal(value))], schema)
    keygen = key_generator_for(HudiConfigs.of(_opts("dec", "id")), schema=df.schema)
    assert _collect(df, keygen) == [(str(Decimal(value)), "1")]
    assert str(Decimal("0.00000010")) == "1.0E-7"


def test_simple_key_generator_nested_field_reads_struct_child(spark: SparkSession) -> None:
    schema = StructType(
        [
            StructField("id", StringType()),
            StructField("a", StructType([StructField("b", StructType([StructField("c", StringType())]))])),
        ]
    )
    rows = [("1", {"b": {"c": "deep"}}), ("2", {"b": None}), ("3", None)]
    options = _opts("id", "a.b.c", **{"hoodie.datasource.write.hive_style_partitioning": "true"})
    assert _keys(spark, rows, schema, options) == [
        ("1", "a.b.c=deep"),
        ("2", "a.b.c=__HIVE_DEFAULT_PARTITION__"),
        ("3", "a.b.c=__HIVE_DEFAULT_PARTITION__"),
    ]


def test_key_generator_missing_field_with_schema_raises_hudi_key_error(spark: SparkSession) -> None:
    with pytest.raises(HudiKeyError, match="'idd' does not exist.*Did you mean 'id'"):
        key_generator_for(HudiConfigs.of(_opts("idd", "part")), schema=ID_PART)


def test_key_generator_binary_field_raises_hudi_key_error(spark: SparkSession) -> None:
    schema = StructType([StructField("id", BinaryType()), StructField("part", StringType())])
    with pytest.raises(HudiKeyError, match="type binary"):
        key_generator_for(HudiConfigs.of(_opts("id", "part")), schema=schema)


def test_simple_key_generator_unbound_plain_types_same_as_bound(spark: SparkSession) -> None:
    schema = StructType([StructField("id", IntegerType()), StructField("day", DateType())])
    rows = [(7, dt.date(2024, 2, 29)), (None, None)]
    unbound = _keys(spark, rows, schema, _opts("id", "day"), bind=False)
    assert (
        unbound
        == _keys(spark, rows, schema, _opts("id", "day"))
        == [
            ("7", "2024-02-29"),
            (None, "__HIVE_DEFAULT_PARTITION__"),
        ]
    )


# -- complex, non-partitioned, global delete ------------------------------------------------------

NAME_SCHEMA = StructType(
    [
        StructField("id", IntegerType()),
        StructField("name", StringType()),
        StructField("p1", StringType()),
        StructField("p2", IntegerType()),
    ]
)


def test_complex_key_generator_placeholders_and_all_empty_invalid(spark: SparkSession) -> None:
    rows = [(1, "Alice", "x", 1), (2, None, "x", None), (None, "", "", 3), (None, None, None, None)]
    options = _opts("id,name", "p1,p2", **{"hoodie.datasource.write.hive_style_partitioning": "true"})
    assert _keys(spark, rows, NAME_SCHEMA, options) == [
        ("id:1,name:Alice", "p1=x/p2=1"),
        ("id:2,name:__null__", "p1=x/p2=__HIVE_DEFAULT_PARTITION__"),
        (None, "p1=__HIVE_DEFAULT_PARTITION__/p2=3"),
        (None, "p1=__HIVE_DEFAULT_PARTITION__/p2=__HIVE_DEFAULT_PARTITION__"),
    ]


def test_complex_key_generator_empty_part_placeholder_when_other_part_present(spark: SparkSession) -> None:
    assert _keys(spark, [(5, "", "a", 1)], NAME_SCHEMA, _opts("id,name", "p1,p2")) == [
        ("id:5,name:__empty__", "a/1"),
    ]


def test_complex_key_generator_single_key_field_form_follows_the_table_version_unless_set(spark: SparkSession) -> None:
    """Apache Hudi 0.15 (version 6) keys ``1``; 1.1+ ``id:1`` at version 8 (HUDI-9666); the option decides."""
    options = _opts("id", "p1,p2")
    assert _keys(spark, [(1, "n", "a", 2)], NAME_SCHEMA, options) == [("1", "a/2")]
    assert _keys(spark, [(1, "n", "a", 2)], NAME_SCHEMA, {**options, "hoodie.write.table.version": "8"}) == [
        ("id:1", "a/2")]
    options["hoodie.write.complex.keygen.new.encoding"] = "false"
    assert _keys(spark, [(1, "n", "a", 2)], NAME_SCHEMA, options) == [("id:1", "a/2")]
    options["hoodie.write.complex.keygen.new.encoding"] = "true"
    assert _keys(spark, [(1, "n", "a", 2), (None, "n", "a", 2)], NAME_SCHEMA, options) == [
        ("1", "a/2"),
        (None, "a/2"),
    ]


def test_complex_key_generator_url_encoding_per_part(spark: SparkSession) -> None:
    options = _opts(
        "id,name",
        "p1,p2",
        **{
            "hoodie.datasource.write.partitionpath.urlencode": "true",
            "hoodie.datasource.write.hive_style_partitioning": "true",
        },
    )
    assert _keys(spark, [(1, "n", "a/b=c", 2)], NAME_SCHEMA, options) == [
        ("id:1,name:n", "p1=a%2Fb%3Dc/p2=2")
    ]


def test_non_partitioned_key_generator_one_field_simple_key_several_composite(spark: SparkSession) -> None:
    one = {"hoodie.datasource.write.recordkey.field": "id"}
    assert _keys(spark, [(1, "n", "a", 2), (None, "n", "a", 2)], NAME_SCHEMA, one) == [("1", ""), (None, "")]
    two = {"hoodie.datasource.write.recordkey.field": "id,name"}
    assert _keys(spark, [(1, None, "a", 2)], NAME_SCHEMA, two) == [("id:1,name:__null__", "")]


def test_global_delete_key_generator_composite_key_empty_partition(spark: SparkSession) -> None:
    options = _opts("id", "p1", **{"hoodie.datasource.write.keygenerator.type": "GLOBAL_DELETE"})
    assert _keys(spark, [(1, "n", "a", 2)], NAME_SCHEMA, options) == [("id:1", "")]


# -- timestamp based -------------------------------------------------------------------------------

TS_SCHEMA = StructType([StructField("id", StringType()), StructField("ts", LongType())])
TS_OPTIONS = {
    "hoodie.datasource.write.keygenerator.type": "TIMESTAMP",
    "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd/HH",
}
MILLIS = 1680350460000  # 2023-04-01 12:01:00 UTC


def test_timestamp_key_generator_epoch_millis_nested_folders_and_default_for_null(
    spark: SparkSession,
) -> None:
    options = _opts(
        "id",
        "ts",
        **TS_OPTIONS,
        **{
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.timezone": "UTC",
        },
    )
    assert _keys(spark, [("1", MILLIS), ("2", None), ("", MILLIS)], TS_SCHEMA, options) == [
        ("1", "2023/04/01/12"),
        ("2", "1970/01/01/00"),
        (None, "2023/04/01/12"),
    ]


def test_timestamp_key_generator_hive_style_and_url_encoding_apply_to_whole_value(
    spark: SparkSession,
) -> None:
    base = _opts(
        "id",
        "ts",
        **TS_OPTIONS,
        **{
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.output.timezone": "UTC",
        },
    )
    hive = {**base, "hoodie.datasource.write.hive_style_partitioning": "true"}
    assert _keys(spark, [("1", MILLIS)], TS_SCHEMA, hive) == [("1", "ts=2023/04/01/12")]
    encoded = {**hive, "hoodie.datasource.write.partitionpath.urlencode": "true"}
    assert _keys(spark, [("1", MILLIS)], TS_SCHEMA, encoded) == [("1", "ts=2023%2F04%2F01%2F12")]


def test_timestamp_key_generator_output_timezone_shifts_wall_clock(spark: SparkSession) -> None:
    options = _opts(
        "id",
        "ts",
        **{
            **TS_OPTIONS,
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.output.timezone": "Asia/Kolkata",
            "hoodie.keygen.timebased.output.dateformat": "yyyy-MM-dd HH:mm",
        },
    )
    assert _keys(spark, [("1", MILLIS)], TS_SCHEMA, options) == [("1", "2023-04-01 17:31")]


@pytest.mark.parametrize(
    ("timestamp_type", "unit", "value", "expected"),
    [
        ("UNIX_TIMESTAMP", None, MILLIS // 1000, "2023/04/01/12"),
        ("EPOCHMICROSECONDS", None, MILLIS * 1000 + 999, "2023/04/01/12"),
        ("SCALAR", "DAYS", 19448, "2023/04/01/00"),
        ("SCALAR", "hours", 466764, "2023/04/01/12"),
        ("SCALAR", "NANOSECONDS", MILLIS * 1_000_000, "2023/04/01/12"),
        ("UNIX_TIMESTAMP", None, None, "1970/01/01/00"),
        # a year past 9999: Joda prints its digits, java.time would put a '+' before them
        ("UNIX_TIMESTAMP", None, 1_700_000_000_000, "55840/11/08/22"),
    ],
)
def test_timestamp_key_generator_numeric_units(
    spark: SparkSession, timestamp_type: str, unit: str | None, value: int | None, expected: str
) -> None:
    options = _opts(
        "id",
        "ts",
        **TS_OPTIONS,
        **{
            "hoodie.keygen.timebased.timestamp.type": timestamp_type,
            "hoodie.keygen.timebased.timezone": "UTC",
        },
    )
    if unit:
        options["hoodie.keygen.timebased.timestamp.scalar.time.unit"] = unit
    assert _keys(spark, [("1", value)], TS_SCHEMA, options) == [("1", expected)]


def test_timestamp_key_generator_date_and_timestamp_columns_read_days_and_micros(spark: SparkSession) -> None:
    schema = StructType(
        [StructField("id", StringType()), StructField("d", DateType()), StructField("t", TimestampType())]
    )
    df = spark.createDataFrame(
        [("1", dt.date(2023, 4, 1), dt.datetime(2023, 4, 1, 12, 1, tzinfo=UTC))], schema
    )
    days = _opts(
        "id",
        "d",
        **TS_OPTIONS,
        **{
            "hoodie.keygen.timebased.timestamp.type": "SCALAR",
            "hoodie.keygen.timebased.timestamp.scalar.time.unit": "DAYS",
        },
    )
    assert _collect(df, key_generator_for(HudiConfigs.of(days), schema=schema)) == [("1", "2023/04/01/00")]
    micros = _opts("id", "t", **TS_OPTIONS, **{"hoodie.keygen.timebased.timestamp.type": "EPOCHMICROSECONDS"})
    assert _collect(df, key_generator_for(HudiConfigs.of(micros), schema=schema)) == [("1", "2023/04/01/12")]


def test_timestamp_key_generator_date_string_formats_and_input_timezone(spark: SparkSession) -> None:
    schema = StructType([StructField("id", StringType()), StructField("ts", StringType())])
    options = _opts(
        "id",
        "ts",
        **TS_OPTIONS,
        **{
            "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
            "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd HH:mm:ss,yyyy-MM-dd'T'HH:mm:ssZ",
            "hoodie.keygen.timebased.input.timezone": "America/New_York",
            "hoodie.keygen.timebased.output.timezone": "UTC",
        },
    )
    rows = [("1", "2023-04-01 08:01:00"), ("2", "2023-04-01T08:01:00+0000"), ("3", "not a date"), ("4", None)]
    assert _keys(spark, rows, schema, options) == [
        ("1", "2023/04/01/12"),  # New York wall time, EDT = UTC-4
        ("2", "2023/04/01/08"),  # the string's own offset wins
        ("3", None),  # Hudi fails the write; NULL lets the caller report it
        ("4", "1970/01/01/00"),  # epoch + 1 ms printed with the first input format, then parsed
    ]


def test_timestamp_key_generator_date_string_offset_z_parses_every_form_joda_reads(spark: SparkSession) -> None:
    # Joda's 'Z' reads 'Z' (any case) for zero and a signed offset with or without colons
    # (DateTimeFormatterBuilder.TimeZoneOffset.parseInto); Spark's 'Z' reads only +0000.
    schema = StructType([StructField("id", StringType()), StructField("ts", StringType())])
    options = _opts(
        "id",
        "ts",
        **TS_OPTIONS,
        **{
            "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
            "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
            "hoodie.keygen.timebased.output.timezone": "UTC",
        },
    )
    offsets = {"Z": "12", "z": "12", "+0000": "12", "+00:00": "12", "-03": "15", "+0530": "06",
               "+05:30": "06", "-013000": "13", "-01:30:00": "13"}
    rows = [(offset, f"2023-04-01T12:01:00.123{offset}") for offset in offsets]
    assert _keys(spark, rows, schema, options) == [(o, f"2023/04/01/{h}") for o, h in offsets.items()]
    # Read by Joda, not by any Spark form: reported as unparseable (NULL), never misread.
    assert _keys(spark, [("f", "2023-04-01T12:01:00.123+05:30:15.5")], schema, options) == [("f", None)]
    # With no zone set, Apache Hudi prints in the string's own offset: the hour as written.
    del options["hoodie.keygen.timebased.output.timezone"]
    assert _keys(spark, rows, schema, options) == [(o, "2023/04/01/12") for o in offsets]


def test_timestamp_key_generator_number_beyond_timestamps_is_null_not_a_task_failure(spark: SparkSession) -> None:
    # Java's longValue() makes NaN 0 and saturates; a count whose millis overflow has no time:
    # NULL here (the write then fails naming the value), not an ArithmeticException in a task.
    schema = StructType([StructField("id", StringType()), StructField("d", DoubleType()),
                         StructField("n", LongType()), StructField("m", DecimalType(38, 0))])
    rows = [("nan", float("nan"), 0, Decimal(0)), ("inf", float("inf"), 2**63 - 1, Decimal("9" * 38)),
            ("1e300", 1e300, -(2**63), Decimal(-1))]
    df = spark.createDataFrame(rows, schema)

    def parts(field: str, timestamp_type: str, **extra: str) -> list[str | None]:
        options = _opts("id", field, **TS_OPTIONS, **{"hoodie.keygen.timebased.timestamp.type": timestamp_type},
                        **extra)
        return [p for _, p in _collect(df, key_generator_for(HudiConfigs.of(options), schema=schema))]

    assert parts("d", "UNIX_TIMESTAMP") == ["1970/01/01/00", None, None]
    assert parts("n", "EPOCHMILLISECONDS") == ["1970/01/01/00", None, None]
    assert parts("m", "SCALAR", **{"hoodie.keygen.timebased.timestamp.scalar.time.unit": "DAYS"}) == [
        "1970/01/01/00", None, "1969/12/31/00"]


def test_timestamp_key_generator_date_string_output_in_input_zone_when_output_unset(
    spark: SparkSession,
) -> None:
    schema = StructType([StructField("id", StringType()), StructField("ts", StringType())])
    options = _opts(
        "id",
        "ts",
        **TS_OPTIONS,
        **{
            "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
            "hoodie.keygen.timebased.input.dateformat": "yyyyMMddHH",
            "hoodie.keygen.timebased.input.timezone": "Asia/Tokyo",
        },
    )
    # Hudi prints in the zone the value was parsed in (Tokyo), not in the session zone (UTC: 14h).
    assert _keys(spark, [("1", "2023040123")], schema, options) == [("1", "2023/04/01/23")]


def test_timestamp_key_generator_unbound_numeric_column_reads_long(spark: SparkSession) -> None:
    options = _opts(
        "id", "ts", **TS_OPTIONS, **{"hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS"}
    )
    assert _keys(spark, [("1", MILLIS)], TS_SCHEMA, options, bind=False) == [("1", "2023/04/01/12")]


def test_timestamp_key_generator_string_column_with_numeric_type_raises(spark: SparkSession) -> None:
    schema = StructType([StructField("id", StringType()), StructField("ts", StringType())])
    options = _opts(
        "id", "ts", **TS_OPTIONS, **{"hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS"}
    )
    with pytest.raises(HudiKeyError, match="reads numbers"):
        key_generator_for(HudiConfigs.of(options), schema=schema)


# -- custom -------------------------------------------------------------------------------------------


def test_custom_key_generator_mixes_simple_and_timestamp_parts(spark: SparkSession) -> None:
    schema = StructType(
        [
            StructField("id", IntegerType()),
            StructField("name", StringType()),
            StructField("region", StringType()),
            StructField("ts", LongType()),
        ]
    )
    options = _opts(
        "id",
        "region:simple,ts:TIMESTAMP",
        **{
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.output.dateformat": "yyyyMMdd",
            "hoodie.datasource.write.hive_style_partitioning": "true",
        },
    )
    rows = [(1, "a", "eu", MILLIS), (2, "b", None, MILLIS)]
    assert _keys(spark, rows, schema, options) == [
        ("1", "region=eu/ts=20230401"),
        ("2", "region=__HIVE_DEFAULT_PARTITION__/ts=20230401"),
    ]
    options["hoodie.datasource.write.recordkey.field"] = "id,name"
    assert _keys(spark, rows[:1], schema, options) == [("id:1,name:a", "region=eu/ts=20230401")]


# -- Spark SQL (SqlKeyGenerator) -----------------------------------------------------------------------

SQL_SCHEMA = StructType(
    [
        StructField("id", IntegerType()),
        StructField("region", StringType()),
        StructField("ts", TimestampType()),
    ]
)
TS = dt.datetime(2023, 4, 1, 12, 1, 0, 999000, tzinfo=UTC)


def test_sql_write_timestamp_partition_column_formatted_and_escaped(spark: SparkSession) -> None:
    options = _opts("id", "ts", **{"hoodie.datasource.write.hive_style_partitioning": "true"})
    assert _keys(spark, [(1, "eu", TS)], SQL_SCHEMA, options) == [("1", "ts=1680350460999000")]
    assert _keys(spark, [(1, "eu", TS)], SQL_SCHEMA, options, sql=True) == [
        ("1", "ts=2023-04-01 12%3A01%3A00")
    ]


def test_sql_key_generator_class_wraps_origin_and_formats_timestamp(spark: SparkSession) -> None:
    options = _opts(
        "id",
        "region,ts",
        **{
            "hoodie.datasource.write.keygenerator.class": "org.apache.spark.sql.hudi.command.SqlKeyGenerator",
            "hoodie.sql.origin.keygen.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
        },
    )
    rows = [(1, "eu", TS), (2, "a/b", TS), (3, "eu", None)]
    assert _keys(spark, rows, SQL_SCHEMA, options) == [  # one key field, version 6: the bare value, as 0.15
        ("1", "eu/2023-04-01 12%3A01%3A00"),
        ("2", "a/b/1680350460999000"),  # 3 fragments for 2 columns: SqlKeyGenerator leaves it
        ("3", "eu/__HIVE_DEFAULT_PARTITION__"),
    ]


# -- tables written by Apache Hudi ----------------------------------------------------------------------

POPULATED_TABLES = [
    SampleTable.COW_COMPLEXKEYGEN_HIVESTYLE,
    SampleTable.COW_NONPARTITIONED,
    SampleTable.COW_SIMPLEKEYGEN_NONHIVESTYLE,
    SampleTable.MOR_PARQUET_NONPARTITIONED,
    SampleTable.MOR_PARQUET_SIMPLEKEYGEN_NONHIVESTYLE,
    SampleTable.MOR_AVRO_TRIPS_8I1U,
]


def _table_properties(base: Path) -> dict[str, str]:
    return parse_properties((base / ".hoodie" / "hoodie.properties").read_bytes())


@pytest.mark.compat
@pytest.mark.parametrize("table", POPULATED_TABLES, ids=lambda t: t.name)
def test_key_generator_from_table_properties_matches_hudi_meta_fields(
    spark: SparkSession, table: SampleTable
) -> None:
    base = table.path()
    df = spark.read.option("recursiveFileLookup", "true").parquet(str(base))
    keygen = key_generator_for(HudiConfigs.of({}), table_properties=_table_properties(base), schema=df.schema)
    rows = df.select(
        "_hoodie_record_key",
        "_hoodie_partition_path",
        keygen.record_key().alias("k"),
        keygen.partition_path().alias("p"),
    ).collect()
    assert rows
    for row in rows:
        assert (row["k"], row["p"]) == (row["_hoodie_record_key"], row["_hoodie_partition_path"])


@pytest.mark.compat
def test_key_generator_without_meta_fields_table_partition_matches_folder(spark: SparkSession) -> None:
    base = SampleTable.COW_SIMPLEKEYGEN_HIVESTYLE_NO_METAFIELDS.path()
    df = spark.read.option("recursiveFileLookup", "true").parquet(str(base))
    keygen = key_generator_for(HudiConfigs.of({}), table_properties=_table_properties(base), schema=df.schema)
    from pyspark.sql import functions as F

    rows = df.select(F.input_file_name().alias("file"), keygen.partition_path().alias("p")).collect()
    assert rows
    for row in rows:
        folder = row["file"].rsplit("/", 2)[-2]
        assert row["p"] == folder


def test_one_field_complex_key_table_is_written_on_in_the_form_its_keys_are_stored(
        spark: SparkSession, tmp_path: Path) -> None:
    """A version 6 table whose keys were stored as ``id:1`` (Apache Hudi 0.14.0, or a writer that set
    the encoding) keeps that form on the next write that does not set it: no key stored twice."""
    path = str(tmp_path / "prefixed")
    options = {"hoodie.table.name": "prefixed", "hoodie.datasource.write.keygenerator.class":
               "org.apache.hudi.keygen.ComplexKeyGenerator", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}
    schema = "id int, p string, ts bigint, name string"
    hudi_sql.write(spark.createDataFrame([(1, "a", 1, "old"), (2, "a", 1, "old")], schema), path,
                   {**options, "hoodie.write.complex.keygen.new.encoding": "false"})
    hudi_sql.write(spark.createDataFrame([(2, "a", 2, "new")], schema), path,
                   {**options, "hoodie.datasource.write.operation": "upsert"})
    rows = spark.read.format("hudi").load(path).select("_hoodie_record_key", "name").orderBy("id").collect()
    assert [tuple(r) for r in rows] == [("id:1", "old"), ("id:2", "new")]
