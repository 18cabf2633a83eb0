"""Every key generator × every key and partition column type × typical, null, empty and
unparseable values: the record key and partition path Apache Hudi 0.15 computes, or its refusal,
against ours.

Apache Hudi's side runs its key generator classes on the Avro records its DataFrame writer makes
(``AvroConversionUtils``, then ``KeyGenerator.getKey``), so no table is written: one oracle request
for the whole sweep. Ours evaluates the key generator's Spark expressions, all configurations in
one Spark job. A value Apache Hudi refuses (``HoodieKeyException`` and the like) must be one our
write refuses too (a null key or partition path, which the write turns into ``HudiKeyError``
naming the value, or a ``HudiError`` when the generator is built); a value it keys must get the
same strings here. Never a Python exception type, never a value keyed by one engine only.
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_harness import Oracle

from hudi_sql.config import HudiConfigs
from hudi_sql.errors import HudiError
from hudi_sql.keygen import key_generator_for

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

KEYGEN = "org.apache.hudi.keygen."
#: One column per type; the rows are typical values, nulls, edge values, values no timestamp
#: format parses, and path-like strings.
COLUMNS = {
    "c_int": "INT", "c_bigint": "BIGINT", "c_string": "STRING", "c_double": "DOUBLE",
    "c_decimal": "DECIMAL(10,2)", "c_date": "DATE", "c_ts": "TIMESTAMP", "c_bool": "BOOLEAN",
}
ROWS = [
    "(7, 1700000000000, 'a b', 1.5, 12.50, DATE'2024-02-29', TIMESTAMP'2024-02-29 10:11:12', true)",
    "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(0, -1, '', -0.0, 0.00, DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.999999', false)",
    ("(-5, 9007199254740993, '2024-13-45 99:99:99', 1e20, 99999999.99, DATE'0001-01-01', "
     "TIMESTAMP'9999-12-31 23:59:59', true)"),
    ("(2147483647, 86400000, '2024-03-01 12:00:00', 0.1, -0.01, DATE'2000-01-01', TIMESTAMP'2000-01-01 00:00:00', "
     "false)"),
    "(1, 2, '2024/01/01', 3.0, 4.00, DATE'2024-01-01', TIMESTAMP'2024-01-01 00:00:00.5', true)",
]
VALUES_SQL = (f"SELECT * FROM VALUES {', '.join(ROWS)} AS t({', '.join(COLUMNS)})")

TIMESTAMP_TYPES = {
    "unix_timestamp": {"hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP"},
    "epochmilliseconds": {"hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS"},
    "scalar_days": {"hoodie.keygen.timebased.timestamp.type": "SCALAR",
                    "hoodie.keygen.timebased.timestamp.scalar.time.unit": "DAYS"},
    "date_string": {"hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
                    "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd HH:mm:ss"},
}


def _configs() -> dict[str, dict[str, str]]:
    """Generator × column: the key columns swept with a string partition, the partition columns with
    an int key, each timestamp type on every column."""
    configs: dict[str, dict[str, str]] = {}

    def add(name: str, generator: str, key: str, partition: str, **extra: str) -> None:
        configs[name] = {"hoodie.datasource.write.keygenerator.class": KEYGEN + generator,
                         "hoodie.datasource.write.recordkey.field": key,
                         "hoodie.datasource.write.partitionpath.field": partition, **extra}

    for column in COLUMNS:
        add(f"simple/key={column}", "SimpleKeyGenerator", column, "c_string")
        add(f"simple/partition={column}", "SimpleKeyGenerator", "c_int", column)
        add(f"complex/key={column},c_int", "ComplexKeyGenerator", f"{column},c_int", column)
        add(f"non_partitioned/key={column}", "NonpartitionedKeyGenerator", column, "")
        add(f"global_delete/key={column},c_int", "GlobalDeleteKeyGenerator", f"{column},c_int", "")
        add(f"custom/partition={column}:SIMPLE", "CustomKeyGenerator", "c_int", f"{column}:SIMPLE")
        for name, options in TIMESTAMP_TYPES.items():
            timestamp = {**options, "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"}
            add(f"timestamp/{name}/partition={column}", "TimestampBasedKeyGenerator", "c_int", column, **timestamp)
        add(f"custom/partition={column}:TIMESTAMP", "CustomKeyGenerator", "c_int", f"{column}:TIMESTAMP",
            **TIMESTAMP_TYPES["epochmilliseconds"], **{"hoodie.keygen.timebased.output.dateformat": "yyyyMMdd"})
    return configs


# Runs in Apache Hudi's PySpark session (the oracle's ``python`` step): each configuration's
# HoodieKey of every row, or the simple name of the exception it throws.
APACHE_KEYS = """
jvm = spark._jvm
df = spark.sql(values_sql)
convert = jvm.org.apache.hudi.AvroConversionUtils
schema = convert.convertStructTypeToAvroSchema(df._jdf.schema(), "record", "sweep")
to_avro = convert.createInternalRowToAvroConverter(df._jdf.schema(), schema, False)
records = [to_avro.apply(row) for row in df._jdf.queryExecution().executedPlan().executeCollect()]
out = []
for name, options in configs.items():
    props = jvm.org.apache.hudi.common.config.TypedProperties()
    for key, value in options.items():
        props.setProperty(key, value)
    try:
        generator = jvm.org.apache.hudi.keygen.factory.HoodieSparkKeyGeneratorFactory.createKeyGenerator(props)
    except Exception as exc:
        out += [(name, i, None, None, exc.java_exception.getClass().getSimpleName()) for i in range(len(records))]
        continue
    for i, record in enumerate(records):
        try:
            key = generator.getKey(record)
            out.append((name, i, key.getRecordKey(), key.getPartitionPath(), None))
        except Exception as exc:
            out.append((name, i, None, None, exc.java_exception.getClass().getSimpleName()))
result = spark.createDataFrame(out, "config string, row int, key string, partition string, error string")
"""


def _our_keys(spark: Any, configs: dict[str, dict[str, str]]) -> dict[tuple[str, int], tuple[Any, ...]]:
    """(config, row) -> (key, partition, error): every configuration's expressions in one select."""
    df = spark.sql(VALUES_SQL)
    out: dict[tuple[str, int], tuple[Any, ...]] = {}
    columns = []
    for index, (name, options) in enumerate(configs.items()):
        try:
            generator = key_generator_for(HudiConfigs.of(options, validate=False), schema=df.schema)
            columns += [generator.record_key().alias(f"k{index}"), generator.partition_path().alias(f"p{index}")]
        except HudiError as exc:  # refused up front, by name: every row is refused
            out.update({(name, row): (None, None, type(exc).__name__) for row in range(len(ROWS))})
    rows = df.select(*columns).collect() if columns else []
    for index, name in enumerate(configs):
        if (name, 0) in out:
            continue
        for row_number, row in enumerate(rows):
            out[(name, row_number)] = (row[f"k{index}"], row[f"p{index}"], None)
    return out


#: The last year a Spark timestamp holds (microseconds since the epoch in a long).
LAST_SPARK_YEAR = 294_247


def _beyond_spark_timestamps(partition: str | None) -> bool:
    """Whether Apache Hudi's timestamp partition path (``yyyy/MM/dd`` or ``yyyyMMdd``) names a year
    no Spark timestamp reaches: such a count is refused here, naming it, where Joda prints it."""
    if partition is None:
        return False
    year = partition.split("/")[0] if "/" in partition else partition[:-4]
    return year.isdigit() and int(year) > LAST_SPARK_YEAR


def test_every_key_generator_type_and_value_keyed_or_refused_as_apache_hudi_does(spark: Any, oracle: Oracle) -> None:
    configs = _configs()
    theirs = oracle.python(APACHE_KEYS, values_sql=VALUES_SQL, configs=configs)["rows"]
    mine = _our_keys(spark, configs)
    differences = []
    for name, row, key, partition, error in theirs:
        our_key, our_partition, our_error = mine[(name, row)]
        refused_here = our_error is not None or our_key is None or our_partition is None
        if error is not None and refused_here:
            continue  # both refuse the value
        if error is None and not refused_here and (our_key, our_partition) == (key, partition):
            continue
        if error is None and our_partition is None and _beyond_spark_timestamps(partition):
            continue  # docs/compatibility.md: refused by name here, a saturated Joda date there
        differences.append(f"{name} row {row} ({ROWS[row][:40]}…): Apache Hudi "
                           f"{error or (key, partition)}; ours {our_error or (our_key, our_partition)}")
    assert not differences, f"{len(differences)} of {len(theirs)}:\n" + "\n".join(differences)
