"""Spark schema -> Hive column types, schema differences and Spark datasource properties (pure)."""

from __future__ import annotations

import json

import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from catalog.hive.schema import (
    HiveColumn,
    hive_schema,
    is_type_update_allowed,
    schema_difference,
    spark_schema_json,
    spark_table_properties,
    to_hive_type,
)
from hudi_sql.errors import HudiSchemaError
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.spark.schema import avro_schema_json, from_avro_schema


@pytest.mark.parametrize(
    ("dt", "expected"),
    [
        (StringType(), "string"),
        (BooleanType(), "boolean"),
        (ByteType(), "int"),
        (ShortType(), "int"),
        (IntegerType(), "int"),
        (LongType(), "bigint"),
        (FloatType(), "float"),
        (DoubleType(), "double"),
        (BinaryType(), "binary"),
        (DateType(), "date"),
        (DecimalType(10, 5), "decimal(10,5)"),
        (TimestampType(), "bigint"),
        (TimestampNTZType(), "bigint"),
        (ArrayType(IntegerType()), "array<int>"),
        (MapType(StringType(), LongType()), "map<string,bigint>"),
        (ArrayType(StructType([StructField("a", IntegerType()), StructField("b", StringType())])),
         "array<struct<a:int,b:string>>"),
        (MapType(StringType(), ArrayType(DecimalType(38, 0))), "map<string,array<decimal(38,0)>>"),
    ],
)
def test_to_hive_type_each_type_matches_hive_schema_util(dt: object, expected: str) -> None:
    assert to_hive_type(dt) == expected  # type: ignore[arg-type]


def test_to_hive_type_support_timestamp_gives_timestamp() -> None:
    assert to_hive_type(TimestampType(), support_timestamp=True) == "timestamp"
    assert to_hive_type(ArrayType(TimestampType()), support_timestamp=True) == "array<timestamp>"


def test_to_hive_type_quote_names_backquotes_struct_fields() -> None:
    dt = StructType([StructField("date", IntegerType()), StructField("we`ird", StringType())])
    assert to_hive_type(dt) == "struct<date:int,we`ird:string>"
    assert to_hive_type(dt, quote_names=True) == "struct<`date`:int,`we``ird`:string>"


def test_to_hive_type_nested_dollar_is_translated() -> None:
    assert to_hive_type(StructType([StructField("a$b", IntegerType())])) == "struct<a_dollar_b:int>"


@pytest.mark.parametrize("dt", [NullType(), MapType(IntegerType(), StringType()), StructType([])])
def test_to_hive_type_unrepresentable_raises(dt: object) -> None:
    with pytest.raises(HudiSchemaError):
        to_hive_type(dt, path="c")  # type: ignore[arg-type]


def _table_schema() -> StructType:
    return StructType([
        StructField("id", LongType()),
        StructField("name", StringType()),
        StructField("price", DecimalType(10, 5)),
        StructField("tags", ArrayType(StructType([StructField("k", StringType())]))),
        StructField("ts", TimestampType()),
        StructField("p", StringType()),
    ])


def test_hive_schema_meta_columns_first_partition_columns_apart() -> None:
    schema = hive_schema(_table_schema(), ["p"])
    assert [c.name for c in schema.columns[:5]] == list(META_FIELDS)
    assert all(c.type == "string" for c in schema.columns[:5])
    assert [(c.name, c.type) for c in schema.columns[5:]] == [
        ("id", "bigint"), ("name", "string"), ("price", "decimal(10,5)"),
        ("tags", "array<struct<k:string>>"), ("ts", "bigint"),
    ]
    assert schema.partition_columns == (HiveColumn("p", "string"),)


def test_hive_schema_partition_column_takes_its_type_or_string_when_absent() -> None:
    schema = hive_schema(StructType([StructField("year", IntegerType())]), ["year", "datestr"])
    assert schema.partition_columns == (HiveColumn("year", "int"), HiveColumn("datestr", "string"))
    assert "year" not in [c.name for c in schema.columns]


def test_hive_schema_omit_metadata_fields_has_no_meta_columns() -> None:
    schema = hive_schema(_table_schema(), ["p"], with_meta_fields=False)
    assert schema.columns[0].name == "id"


def test_hive_schema_from_avro_round_trip_matches() -> None:
    avro = avro_schema_json(_table_schema(), "t")
    assert hive_schema(from_avro_schema(avro), ["p"]) == hive_schema(_table_schema(), ["p"])


def test_hive_schema_ddl_type_keeps_quotes_equality_ignores_them() -> None:
    schema = hive_schema(StructType([StructField("s", StructType([StructField("order", IntegerType())]))]), [])
    col = schema.columns[-1]
    assert col.type == "struct<order:int>"
    assert col.type_for_ddl == "struct<`order`:int>"
    assert col == HiveColumn("s", "struct<order:int>")


def test_schema_difference_same_schema_is_empty() -> None:
    expected = hive_schema(_table_schema(), ["p"])
    table = {c.name: c.type.upper() for c in expected.all_columns()}
    assert schema_difference(expected, table, ["p"]).is_empty


def test_schema_difference_new_column_is_added() -> None:
    old = hive_schema(_table_schema(), ["p"])
    new = hive_schema(StructType(_table_schema().fields + [StructField("n", IntegerType())]), ["p"])
    diff = schema_difference(new, {c.name: c.type for c in old.all_columns()}, ["p"])
    assert diff.added == (HiveColumn("n", "int"),)
    assert not diff.updated and not diff.deleted


def test_schema_difference_widening_is_update_narrowing_raises() -> None:
    new = hive_schema(StructType([StructField("a", LongType())]), [], with_meta_fields=False)
    diff = schema_difference(new, {"A": "int"}, [])
    assert diff.updated == (HiveColumn("a", "bigint"),)
    with pytest.raises(HudiSchemaError, match="Could not convert field type from string to bigint"):
        schema_difference(new, {"a": "string"}, [])


def test_schema_difference_missing_column_is_deleted_except_partition_keys() -> None:
    new = hive_schema(StructType([StructField("a", LongType())]), [], with_meta_fields=False)
    diff = schema_difference(new, {"a": "bigint", "gone": "int", "dt": "string"}, ["dt"])
    assert diff.deleted == ("gone",)


def test_schema_difference_ignores_spaces_case_and_backquotes() -> None:
    new = hive_schema(StructType([StructField("s", StructType([StructField("x", DecimalType(10, 2))]))]), [],
                      with_meta_fields=False)
    assert schema_difference(new, {"s": "STRUCT< `x` : DECIMAL(10 , 2)>"}, []).is_empty


@pytest.mark.parametrize(("prev", "new", "ok"), [
    ("int", "bigint", True), ("float", "double", True), ("bigint", "int", False),
    ("string", "int", False), ("struct<a:int>", "struct<a:int,b:int>", True), ("", "int", False),
])
def test_is_type_update_allowed_rules(prev: str, new: str, ok: bool) -> None:
    assert is_type_update_allowed(prev, new) is ok


def test_spark_schema_json_partition_columns_last_in_spark_key_order() -> None:
    text = spark_schema_json(StructType([StructField("p", StringType()), StructField("id", LongType(), False),
                                         StructField("m", MapType(StringType(), IntegerType()))]), ["p", "q"])
    parsed = json.loads(text)
    names = [f["name"] for f in parsed["fields"]]
    assert names == list(META_FIELDS) + ["id", "m", "p", "q"]
    assert text.startswith('{"type":"struct","fields":[{"name":"_hoodie_commit_time","type":"string",'
                           '"nullable":true,"metadata":{}}')
    assert '{"name":"id","type":"long","nullable":false,"metadata":{}}' in text
    assert '"type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true}' in text
    assert parsed["fields"][-1] == {"name": "q", "type": "string", "nullable": False, "metadata": {}}


def test_spark_table_properties_splits_schema_at_threshold() -> None:
    props = spark_table_properties(_table_schema(), ["p"], spark_version="4.3.0", threshold=100)
    assert props["spark.sql.sources.provider"] == "hudi"
    assert props["spark.sql.create.version"] == "4.3.0"
    n = int(props["spark.sql.sources.schema.numParts"])
    assert n > 1
    whole = "".join(props[f"spark.sql.sources.schema.part.{i}"] for i in range(n))
    assert whole == spark_schema_json(_table_schema(), ["p"])
    assert props["spark.sql.sources.schema.numPartCols"] == "1"
    assert props["spark.sql.sources.schema.partCol.0"] == "p"


def test_spark_table_properties_no_version_no_partitions() -> None:
    props = spark_table_properties(StructType([StructField("a", IntegerType())]), [])
    assert "spark.sql.create.version" not in props
    assert "spark.sql.sources.schema.numPartCols" not in props
