"""The two record key renderers are one rule: Spark expressions and Arrow agree, and both match the JVM.

Record keys are computed by Spark expressions (incoming records, index lookups) and, for tables
without meta fields, by Arrow inside a merge handle (:mod:`hudi_sql.keygen.arrow_key`). Both
follow the key generator's :class:`~hudi_sql.keygen.RecordKeySpec`; this test proves they
render the same strings for every key generator and every Spark type a key may have, on rows
that went through a Parquet file the way stored rows do. The expected value strings are not
written down here: they are computed by the JVM's own ``Double.toString``, ``Float.toString``,
``BigDecimal.toString`` and ``LocalDate.toString`` (what Hudi's Avro key path calls).
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from hudi_sql.config import HudiConfigs, HudiTableConfig, HudiWriteConfig
from hudi_sql.keygen import KeyGenerator, key_generator_for
from hudi_sql.keygen.arrow_key import arrow_record_keys
from hudi_sql.spark.schema import to_arrow_schema

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)

#: Every Spark type a record key may have, with the column holding it.
KEY_COLUMNS = {
    "string": ("s", StringType()),
    "int": ("i", IntegerType()),
    "bigint": ("l", LongType()),
    "double": ("d", DoubleType()),
    "float": ("f", FloatType()),
    "decimal": ("dec", DecimalType(20, 8)),
    "decimal-small-scale": ("dec2", DecimalType(10, 2)),
    "date": ("day", DateType()),
    "timestamp": ("ts", TimestampType()),
    "boolean": ("b", BooleanType()),
}

SCHEMA = StructType(
    [StructField("row_id", IntegerType(), False)]
    + [StructField(name, kind) for name, kind in KEY_COLUMNS.values()]
    + [StructField("p", StringType()), StructField("ms", LongType())]
)


def _rows() -> list[tuple[Any, ...]]:
    rng = random.Random(12)
    doubles = [0.0, -0.0, 1.0, 2.0, -3.25, 0.1, 0.1 + 0.2, 1.0e7, 9999999.0, 1.0e-3, 9.0e-4, 1.0e-5, 1.0e21,
               123456.789, -1.7976931348623157e308, float("nan"), float("inf"), float("-inf")]
    doubles += [rng.uniform(-1e6, 1e6) for _ in range(10)]  # magnitudes where JDK 17 prints the shortest digits
    floats = [0.0, 1.5, 0.1, 3.4028235e38, 1.0e-7, 1.0e7, 16777216.0, -2.5e-4]
    floats += [float(np.float32(rng.uniform(-1e4, 1e4))) for _ in range(8)]
    decimals = [Decimal("0E-8"), Decimal("0.00000010"), Decimal("-0.00000001"), Decimal("0.00000123"),
                Decimal("0.00012300"), Decimal("12.50000000"), Decimal("-123456789.12345678"),
                Decimal("999999999999.99999999")]
    timestamps = [dt.datetime(2023, 4, 1, 12, 1, tzinfo=UTC), dt.datetime(2023, 4, 1, 12, 1, 0, 123456, tzinfo=UTC),
                  dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), dt.datetime(1, 1, 1, tzinfo=UTC),
                  dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), EPOCH]
    dates = [dt.date(2023, 4, 1), dt.date(1969, 12, 31), dt.date(1, 1, 1), dt.date(9999, 12, 31),
             dt.date(2024, 2, 29), dt.date(1970, 1, 1)]
    strings = ["a", "", "x,y:z", "__null__", "é 😀", " "]
    count = max(len(doubles), len(floats)) + 2  # the last two rows: every key column null
    rows = []
    for n in range(count):
        def pick(values: list[Any], n: int = n) -> Any:
            return None if n >= count - 2 else values[n % len(values)]

        rows.append((
            n, pick(strings), pick([0, -1, 2147483647, -2147483648, 42]),
            pick([0, 9876543210, -9223372036854775808, 9223372036854775807]), pick(doubles), pick(floats),
            pick(decimals), pick([Decimal("1.50"), Decimal("-0.05"), Decimal("0.00")]), pick(dates),
            pick(timestamps), pick([True, False]), "p" + str(n % 3), 1680350460000 + n,
        ))
    return rows


def _generators(column: str) -> dict[str, dict[str, str]]:
    """Write options of every key generator (and record key form) keyed on *column*."""
    rk, pp, kg = (HudiWriteConfig.RECORD_KEY_FIELDS.key, HudiWriteConfig.PARTITION_PATH_FIELDS.key,
                  HudiWriteConfig.KEY_GENERATOR_TYPE.key)
    timestamp = {HudiTableConfig.TIMESTAMP_TYPE.key: "EPOCHMILLISECONDS",
                 HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT.key: "yyyy/MM/dd"}
    return {
        "simple": {rk: column, pp: "p", kg: "SIMPLE"},
        "complex": {rk: f"{column},s", pp: "p,ms", kg: "COMPLEX"},
        "complex-one-field": {rk: column, pp: "p", kg: "COMPLEX"},
        "complex-one-field-new-encoding": {rk: column, pp: "p", kg: "COMPLEX",
                                           HudiWriteConfig.COMPLEX_KEYGEN_NEW_ENCODING.key: "true"},
        "non-partitioned": {rk: column, kg: "NON_PARTITION"},
        "non-partitioned-two-fields": {rk: f"i,{column}", kg: "NON_PARTITION"},
        "timestamp-based": {rk: column, pp: "ms", kg: "TIMESTAMP", **timestamp},
        "custom": {rk: column, pp: "p:SIMPLE,ms:TIMESTAMP", kg: "CUSTOM", **timestamp},
        "custom-two-fields": {rk: f"{column},b", pp: "p:SIMPLE", kg: "CUSTOM"},
        "global-delete": {rk: column, kg: "GLOBAL_DELETE"},
    }


@pytest.fixture(scope="module")
def stored(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, pa.Table]:
    """The rows as a DataFrame, and as Arrow after a Parquet round trip in the stored schema."""
    df = spark.createDataFrame(_rows(), SCHEMA)
    path = Path(tmp_path_factory.mktemp("parity")) / "rows.parquet"
    arrow = df.toArrow()
    pq.write_table(arrow.cast(to_arrow_schema(df.schema)), path)
    return df, pq.read_table(path)


def _java_strings(spark: SparkSession, table: pa.Table, kind: str, column: str) -> list[str | None]:
    """The JVM's string of each value, as Hudi's Avro key path makes it (``HoodieAvroUtils``)."""
    gateway = spark.sparkContext._gateway  # type: ignore[attr-defined]
    jvm = gateway.jvm
    lang = jvm.java.lang
    out: list[str | None] = []
    for value in table.column(column).to_pylist():
        if value is None:
            out.append(None)
        elif kind == "float":  # a Java float cannot cross py4j as a scalar; an array element can
            array = gateway.new_array(jvm.float, 1)
            array[0] = float(value)
            out.append(jvm.java.util.Arrays.toString(array)[1:-1])
        elif kind == "date":
            out.append(jvm.java.time.LocalDate.ofEpochDay((value - dt.date(1970, 1, 1)).days).toString())
        elif kind == "timestamp":
            delta = value - EPOCH
            out.append(lang.String.valueOf((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds))
        elif kind == "string":
            out.append(value)
        else:  # String.valueOf: Double.toString, BigDecimal.toString (py4j keeps the scale), ...
            out.append(lang.String.valueOf(value))
    return out


@pytest.mark.parametrize("kind", sorted(KEY_COLUMNS))
def test_record_key_spark_and_arrow_agree_for_every_key_generator(
        spark: SparkSession, stored: tuple[Any, pa.Table], kind: str) -> None:
    df, table = stored
    column = KEY_COLUMNS[kind][0]
    keygens: dict[str, KeyGenerator] = {
        name: key_generator_for(HudiConfigs.of(options), schema=df.schema)
        for name, options in _generators(column).items()
    }
    spark_rows = df.select("row_id", *(keygen.record_key().alias(name) for name, keygen in keygens.items())).collect()
    by_row = {row["row_id"]: row for row in spark_rows}
    row_ids = table.column("row_id").to_pylist()
    for name, keygen in keygens.items():
        arrow_keys = arrow_record_keys(table, keygen.record_key_spec()).to_pylist()
        spark_keys = [by_row[row_id][name] for row_id in row_ids]
        assert arrow_keys == spark_keys, f"{name} on {kind}: Arrow and Spark keys differ"
        assert any(key is not None for key in spark_keys)

    # The simple form is the value itself: both equal the JVM's rendering (empty -> invalid, null).
    expected = [None if text == "" else text for text in _java_strings(spark, table, kind, column)]
    simple = arrow_record_keys(table, keygens["simple"].record_key_spec()).to_pylist()
    assert simple == expected, f"{kind}: keys differ from the JVM's strings"


@pytest.mark.xfail(strict=True, reason="JDK 17's Double.toString (FloatingDecimal, used by Hudi 0.15 and Spark on "
                   "this JVM) is not always the shortest repr (JDK-4511638); the Arrow side prints the shortest")
@pytest.mark.parametrize("value", [1.0e23, 7.1074067749214392e16])
def test_record_key_double_jdk17_non_shortest_digits_arrow_differs(spark: SparkSession, value: float) -> None:
    df = spark.createDataFrame([(value,)], "d double")
    keygen = key_generator_for(HudiConfigs.of({HudiWriteConfig.RECORD_KEY_FIELDS.key: "d",
                                               HudiWriteConfig.KEY_GENERATOR_TYPE.key: "NON_PARTITION"}),
                               schema=df.schema)
    (row,) = df.select(keygen.record_key().alias("k")).collect()
    assert arrow_record_keys(pa.table({"d": [value]}), keygen.record_key_spec()).to_pylist() == [row["k"]]
