"""Schema conversion between Spark SQL types, Hudi's Avro JSON forms and Arrow (no JVM)."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
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

from hudi_sql.errors import HudiSchemaError
from hudi_sql.model.schema import (
    COMMIT_SEQNO_FIELD,
    COMMIT_TIME_FIELD,
    FILE_NAME_FIELD,
    META_FIELDS,
    PARTITION_PATH_FIELD,
    RECORD_KEY_FIELD,
    AvroStyle,
    avro_namespace,
    avro_record_name,
)
from hudi_sql.spark.schema import (
    add_meta_fields,
    avro_schema_json,
    drop_meta_fields,
    from_arrow_schema,
    from_avro_schema,
    to_arrow_schema,
    to_arrow_type,
    to_avro_schema,
)
from hudi_sql.spark.schema_compat import check_compatible, coercible, require_compatible


def _one(
    dt: DataType, *, nullable: bool = True, style: AvroStyle = "commit", name: str = "c"
) -> dict[str, Any]:
    """The Avro field entry of a one-column table ``t``."""
    schema = to_avro_schema(StructType([StructField(name, dt, nullable)]), "t", style=style)
    field: dict[str, Any] = schema["fields"][0]
    return field


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# Every Spark type with its Avro form in the commit style (the non-null branch).
SCALARS: list[tuple[DataType, Any]] = [
    (BooleanType(), "boolean"),
    (ByteType(), "int"),
    (ShortType(), "int"),
    (IntegerType(), "int"),
    (LongType(), "long"),
    (FloatType(), "float"),
    (DoubleType(), "double"),
    (StringType(), "string"),
    (BinaryType(), "bytes"),
    (DateType(), {"type": "int", "logicalType": "date"}),
    (TimestampType(), {"type": "long", "logicalType": "timestamp-micros"}),
    (TimestampNTZType(), {"type": "long", "logicalType": "local-timestamp-micros"}),
    (
        DecimalType(10, 5),
        {
            "type": "fixed",
            "name": "fixed",
            "namespace": "hoodie.t.t_record.c",
            "size": 5,
            "logicalType": "decimal",
            "precision": 10,
            "scale": 5,
        },
    ),
]


def _scalar_id(value: Any) -> str:
    return value.simpleString() if isinstance(value, DataType) else ""


# ---------------------------------------------------------------------------- meta fields


def test_meta_fields_order_matches_hudi():
    assert META_FIELDS == (
        "_hoodie_commit_time",
        "_hoodie_commit_seqno",
        "_hoodie_record_key",
        "_hoodie_partition_path",
        "_hoodie_file_name",
    )
    assert META_FIELDS == (
        COMMIT_TIME_FIELD,
        COMMIT_SEQNO_FIELD,
        RECORD_KEY_FIELD,
        PARTITION_PATH_FIELD,
        FILE_NAME_FIELD,
    )


def test_add_meta_fields_existing_meta_columns_replaced_in_front():
    struct = StructType([StructField("id", IntegerType()), StructField(RECORD_KEY_FIELD, StringType())])
    result = add_meta_fields(struct)
    assert result.names == [*META_FIELDS, "id"]
    assert all(f.nullable and isinstance(f.dataType, StringType) for f in result.fields[:5])
    assert drop_meta_fields(result).names == ["id"]


# ---------------------------------------------------------------------------- Spark -> Avro


@pytest.mark.parametrize(("dt", "avro"), SCALARS, ids=_scalar_id)
def test_to_avro_schema_nullable_scalar_commit_style_null_first_with_default(dt, avro):
    assert _one(dt) == {"name": "c", "type": ["null", avro], "default": None}


@pytest.mark.parametrize(("dt", "avro"), SCALARS, ids=_scalar_id)
def test_to_avro_schema_nullable_scalar_create_style_null_last_without_default(dt, avro):
    assert _one(dt, style="create") == {"name": "c", "type": [avro, "null"]}


@pytest.mark.parametrize(("dt", "avro"), SCALARS, ids=_scalar_id)
def test_to_avro_schema_not_null_scalar_plain_type_without_default(dt, avro):
    assert _one(dt, nullable=False) == {"name": "c", "type": avro}
    assert _one(dt, nullable=False, style="create") == {"name": "c", "type": avro}


def test_to_avro_schema_null_type_not_wrapped_in_union():
    assert _one(NullType()) == {"name": "c", "type": "null"}


def test_avro_schema_json_top_level_record_exact_string():
    struct = StructType([StructField("id", IntegerType(), False), StructField("name", StringType())])
    assert avro_schema_json(struct, "tbl") == (
        '{"type":"record","name":"tbl_record","namespace":"hoodie.tbl","fields":['
        '{"name":"id","type":"int"},'
        '{"name":"name","type":["null","string"],"default":null}]}'
    )
    assert avro_schema_json(struct, "tbl", style="create") == (
        '{"type":"record","name":"tbl_record","namespace":"hoodie.tbl","fields":['
        '{"name":"id","type":"int"},'
        '{"name":"name","type":["string","null"]}]}'
    )


def test_avro_schema_json_decimal_exact_key_order():
    struct = StructType([StructField("decimalField", DecimalType(10, 5))])
    assert avro_schema_json(struct, "v6_nonpartitioned") == (
        '{"type":"record","name":"v6_nonpartitioned_record","namespace":"hoodie.v6_nonpartitioned","fields":['
        '{"name":"decimalField","type":["null",{"type":"fixed","name":"fixed",'
        '"namespace":"hoodie.v6_nonpartitioned.v6_nonpartitioned_record.decimalField",'
        '"size":5,"logicalType":"decimal","precision":10,"scale":5}],"default":null}]}'
    )


@pytest.mark.parametrize(
    ("precision", "size"),
    [(1, 1), (2, 1), (3, 2), (4, 2), (9, 4), (10, 5), (18, 8), (19, 9), (20, 9), (28, 12), (38, 16)],
)
def test_to_avro_schema_decimal_fixed_size_is_minimal_bytes(precision, size):
    fixed = _one(DecimalType(precision, 0), nullable=False)["type"]
    assert fixed["size"] == size
    assert fixed["precision"] == precision


def test_to_avro_schema_nested_struct_named_after_field_in_parent_namespace():
    inner = StructType([StructField("x", DoubleType()), StructField("amount", DecimalType(5, 2))])
    outer = StructType([StructField("a", StringType()), StructField("child", inner)])
    field = to_avro_schema(StructType([StructField("s", outer)]), "t")["fields"][0]
    record = field["type"][1]
    assert (record["type"], record["name"], record["namespace"]) == ("record", "s", "hoodie.t.t_record")
    child = record["fields"][1]
    assert child["name"] == "child" and child["default"] is None
    child_record = child["type"][1]
    assert (child_record["name"], child_record["namespace"]) == ("child", "hoodie.t.t_record.s")
    amount = child_record["fields"][1]["type"][1]
    assert (amount["name"], amount["size"]) == ("fixed", 3)
    assert amount["namespace"] == "hoodie.t.t_record.s.child.amount"


def test_to_avro_schema_array_of_struct_record_named_after_field():
    element = StructType([StructField("f1", StringType()), StructField("f2", IntegerType())])
    field = _one(ArrayType(element, True), name="arrayField")
    assert _compact(field) == (
        '{"name":"arrayField","type":["null",{"type":"array","items":["null",{"type":"record",'
        '"name":"arrayField","namespace":"hoodie.t.t_record","fields":['
        '{"name":"f1","type":["null","string"],"default":null},'
        '{"name":"f2","type":["null","int"],"default":null}]}]}],"default":null}'
    )


def test_to_avro_schema_array_without_null_elements_items_plain():
    assert _one(ArrayType(LongType(), False)) == {
        "name": "c",
        "type": ["null", {"type": "array", "items": "long"}],
        "default": None,
    }
    assert _one(ArrayType(LongType(), True), style="create") == {
        "name": "c",
        "type": [{"type": "array", "items": ["long", "null"]}, "null"],
    }


def test_to_avro_schema_nested_array_of_decimal_uses_field_namespace():
    field = _one(ArrayType(ArrayType(DecimalType(20, 2), False), False), nullable=False)
    items = field["type"]["items"]["items"]
    assert (items["namespace"], items["size"]) == ("hoodie.t.t_record.c", 9)


def test_to_avro_schema_map_of_struct_values_record_named_after_field():
    value = StructType([StructField("v", BooleanType())])
    field = _one(MapType(StringType(), value, True), name="mapField")
    assert _compact(field) == (
        '{"name":"mapField","type":["null",{"type":"map","values":["null",{"type":"record",'
        '"name":"mapField","namespace":"hoodie.t.t_record","fields":['
        '{"name":"v","type":["null","boolean"],"default":null}]}]}],"default":null}'
    )
    plain = _one(MapType(StringType(), IntegerType(), False), nullable=False)
    assert plain == {"name": "c", "type": {"type": "map", "values": "int"}}


def test_to_avro_schema_map_with_int_keys_raises_naming_column():
    with pytest.raises(HudiSchemaError, match="'m'.*string keys"):
        _one(MapType(IntegerType(), StringType()), name="m")


def test_to_avro_schema_invalid_column_name_raises_naming_column():
    struct = StructType([StructField("s", StructType([StructField("bad-name", IntegerType())]))])
    with pytest.raises(HudiSchemaError, match=r"'s\.bad-name' is not a valid Avro name"):
        to_avro_schema(struct, "t")


def test_to_avro_schema_duplicate_column_raises():
    struct = StructType([StructField("a", IntegerType()), StructField("a", LongType())])
    with pytest.raises(HudiSchemaError, match="'a' appears twice"):
        to_avro_schema(struct, "t")


def test_to_avro_schema_unknown_style_raises():
    with pytest.raises(HudiSchemaError, match="style 'other'"):
        to_avro_schema(StructType([]), "t", style="other")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("table", "record", "namespace"),
    [("trips", "trips_record", "hoodie.trips"), ("my-table", "my__table_record", "hoodie.my__table"),
     ("1st", "__st_record", "hoodie.__st")],
)
def test_avro_names_table_name_sanitized_like_hudi(table, record, namespace):
    assert avro_record_name(table) == record
    assert avro_namespace(table) == namespace
    schema = to_avro_schema(StructType([]), table)
    assert (schema["name"], schema["namespace"]) == (record, namespace)


def test_to_avro_schema_comment_becomes_doc_in_commit_style_only():
    struct = StructType([StructField("c", IntegerType(), True, {"comment": "the id"})])
    assert to_avro_schema(struct, "t")["fields"][0] == {
        "name": "c",
        "type": ["null", "int"],
        "doc": "the id",
        "default": None,
    }
    assert to_avro_schema(struct, "t", style="create")["fields"][0] == {"name": "c", "type": ["int", "null"]}
    assert from_avro_schema(to_avro_schema(struct, "t")) == struct


def test_avro_schema_json_with_meta_fields_prepends_five_string_columns():
    struct = StructType([StructField("ts", LongType())])
    assert avro_schema_json(struct, "v6_trips_8i1u", with_meta_fields=True) == (
        '{"type":"record","name":"v6_trips_8i1u_record","namespace":"hoodie.v6_trips_8i1u","fields":['
        '{"name":"_hoodie_commit_time","type":["null","string"],"doc":"","default":null},'
        '{"name":"_hoodie_commit_seqno","type":["null","string"],"doc":"","default":null},'
        '{"name":"_hoodie_record_key","type":["null","string"],"doc":"","default":null},'
        '{"name":"_hoodie_partition_path","type":["null","string"],"doc":"","default":null},'
        '{"name":"_hoodie_file_name","type":["null","string"],"doc":"","default":null},'
        '{"name":"ts","type":["null","long"],"default":null}]}'
    )
    # A struct that already carries meta columns gives the same string (Hudi's addMetadataFields).
    already = avro_schema_json(add_meta_fields(struct), "v6_trips_8i1u", with_meta_fields=True)
    assert already == avro_schema_json(struct, "v6_trips_8i1u", with_meta_fields=True)


# ---------------------------------------------------------------------------- Avro -> Spark

FULL = StructType(
    [
        StructField("id", IntegerType(), False),
        StructField("name", StringType()),
        StructField("isActive", BooleanType()),
        StructField("longField", LongType(), False),
        StructField("floatField", FloatType()),
        StructField("doubleField", DoubleType()),
        StructField("decimalField", DecimalType(10, 5)),
        StructField("bigDecimal", DecimalType(38, 10), False),
        StructField("dateField", DateType()),
        StructField("timestampField", TimestampType()),
        StructField("ntzField", TimestampNTZType()),
        StructField("binaryField", BinaryType()),
        StructField(
            "arrayField",
            ArrayType(StructType([StructField("f1", StringType()), StructField("f2", IntegerType(), False)])),
        ),
        StructField("plainArray", ArrayType(LongType(), False), False),
        StructField("nestedArray", ArrayType(ArrayType(DecimalType(4, 1)))),
        StructField(
            "mapField",
            MapType(
                StringType(),
                StructType([StructField("v1", DoubleType()), StructField("v2", BooleanType())]),
            ),
        ),
        StructField("plainMap", MapType(StringType(), DateType(), False)),
        StructField(
            "structField",
            StructType(
                [
                    StructField("field1", StringType()),
                    StructField(
                        "child",
                        StructType([StructField("x", DoubleType()), StructField("y", DecimalType(3, 1))]),
                    ),
                ]
            ),
        ),
    ]
)


@pytest.mark.parametrize("style", ["commit", "create"])
def test_from_avro_schema_round_trip_every_type_equal(style):
    avro = to_avro_schema(FULL, "t", style=style)
    assert from_avro_schema(avro) == FULL
    assert from_avro_schema(avro_schema_json(FULL, "t", style=style)) == FULL


@pytest.mark.parametrize("style", ["commit", "create"])
def test_avro_schema_json_round_trip_string_stable(style):
    text = avro_schema_json(FULL, "t", style=style)
    assert avro_schema_json(from_avro_schema(text), "t", style=style) == text


def test_from_avro_schema_byte_and_short_read_back_as_int():
    struct = StructType([StructField("b", ByteType()), StructField("s", ShortType())])
    read_back = from_avro_schema(to_avro_schema(struct, "t"))
    assert [f.dataType for f in read_back] == [IntegerType(), IntegerType()]


def _record(*fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "record", "name": "r", "namespace": "ns", "fields": list(fields)}


@pytest.mark.parametrize(
    ("avro_type", "expected", "nullable"),
    [
        (["null", "int"], IntegerType(), True),
        (["int", "null"], IntegerType(), True),
        ("int", IntegerType(), False),
        (["string"], StringType(), False),
        ({"type": "enum", "name": "E", "symbols": ["A", "B"]}, StringType(), False),
        ({"type": "fixed", "name": "F", "size": 16}, BinaryType(), False),
        ({"type": "fixed", "name": "F", "size": 16, "logicalType": "duration"}, BinaryType(), False),
        ({"type": "bytes", "logicalType": "decimal", "precision": 7, "scale": 2}, DecimalType(7, 2), False),
        ({"type": "long", "logicalType": "timestamp-millis"}, TimestampType(), False),
        ({"type": "long", "logicalType": "local-timestamp-millis"}, TimestampNTZType(), False),
        ({"type": "int", "logicalType": "time-millis"}, IntegerType(), False),
        ({"type": "long", "logicalType": "something-new"}, LongType(), False),
        ({"type": "string", "logicalType": "uuid"}, StringType(), False),
        ({"type": "string"}, StringType(), False),
        (["null", "int", "long"], LongType(), True),
        (["float", "double"], DoubleType(), False),
        (
            ["null", "int", "string"],
            StructType([StructField("member0", IntegerType()), StructField("member1", StringType())]),
            True,
        ),
        ("null", NullType(), True),
    ],
)
def test_from_avro_schema_type_forms_map_to_spark(avro_type, expected, nullable):
    struct = from_avro_schema(_record({"name": "c", "type": avro_type}))
    assert struct.fields[0].dataType == expected
    assert struct.fields[0].nullable is nullable


def test_from_avro_schema_named_reference_resolved():
    schema = _record(
        {"name": "a", "type": {"type": "record", "name": "Point", "fields": [{"name": "x", "type": "int"}]}},
        {"name": "b", "type": ["null", "Point"]},
        {"name": "c", "type": "ns.Point"},
    )
    struct = from_avro_schema(schema)
    point = StructType([StructField("x", IntegerType(), False)])
    assert [f.dataType for f in struct.fields] == [point, point, point]
    assert [f.nullable for f in struct.fields] == [False, True, False]


def test_from_avro_schema_recursive_record_raises():
    schema = {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}
    with pytest.raises(HudiSchemaError, match="recursive"):
        from_avro_schema(schema)


@pytest.mark.parametrize("bad", ['{"type":"int"}', "not json", '["null","int"]'])
def test_from_avro_schema_not_a_record_raises(bad):
    with pytest.raises(HudiSchemaError):
        from_avro_schema(bad)


def test_from_avro_schema_unknown_reference_raises():
    with pytest.raises(HudiSchemaError, match="for .c. refers to unknown type .Missing."):
        from_avro_schema(_record({"name": "c", "type": "Missing"}))


# ---------------------------------------------------------------------------- Arrow


def test_to_arrow_schema_every_type_matches_pyspark_conversion():
    from pyspark.sql.pandas.types import to_arrow_schema as spark_to_arrow_schema

    struct = StructType(FULL.fields + [StructField("b", ByteType(), False), StructField("s", ShortType())])
    expected = spark_to_arrow_schema(struct, timezone="UTC")
    assert to_arrow_schema(struct).equals(expected)


def test_to_arrow_schema_scalar_types_exact():
    struct = StructType(
        [
            StructField("b", ByteType()),
            StructField("s", ShortType()),
            StructField("ts", TimestampType(), False),
            StructField("ntz", TimestampNTZType()),
            StructField("d", DecimalType(10, 5)),
            StructField("str", StringType()),
            StructField("bin", BinaryType()),
            StructField("date", DateType()),
        ]
    )
    schema = to_arrow_schema(struct)
    assert schema.types == [
        pa.int8(),
        pa.int16(),
        pa.timestamp("us", tz="UTC"),
        pa.timestamp("us"),
        pa.decimal128(10, 5),
        pa.string(),
        pa.binary(),
        pa.date32(),
    ]
    assert [f.nullable for f in schema] == [True, True, False, True, True, True, True, True]


def test_to_arrow_type_containers_carry_nullability():
    array_type = to_arrow_type(ArrayType(IntegerType(), False))
    assert array_type == pa.list_(pa.field("element", pa.int32(), nullable=False))
    map_type = to_arrow_type(MapType(StringType(), LongType(), True))
    assert map_type == pa.map_(pa.field("key", pa.string(), nullable=False), pa.field("value", pa.int64()))
    struct_type = to_arrow_type(StructType([StructField("x", DoubleType(), False)]))
    assert struct_type == pa.struct([pa.field("x", pa.float64(), nullable=False)])


def test_to_arrow_schema_with_meta_fields_first_as_nullable_strings():
    schema = to_arrow_schema(StructType([StructField("id", IntegerType(), False)]), with_meta_fields=True)
    assert schema.names == [*META_FIELDS, "id"]
    assert schema.types[:5] == [pa.string()] * 5
    assert all(schema.field(name).nullable for name in META_FIELDS)


def test_from_arrow_schema_round_trip_every_type_equal():
    struct = StructType(FULL.fields + [StructField("b", ByteType(), False), StructField("s", ShortType())])
    assert from_arrow_schema(to_arrow_schema(struct)) == struct


def test_from_arrow_schema_large_variants_read_as_plain_types():
    schema = pa.schema(
        [
            pa.field("s", pa.large_string()),
            pa.field("b", pa.large_binary()),
            pa.field("l", pa.large_list(pa.int32())),
            pa.field("legacy", pa.list_(pa.field("array", pa.int32(), nullable=False))),
        ]
    )
    assert from_arrow_schema(schema) == StructType(
        [
            StructField("s", StringType()),
            StructField("b", BinaryType()),
            StructField("l", ArrayType(IntegerType(), True)),
            StructField("legacy", ArrayType(IntegerType(), False)),
        ]
    )


def test_from_arrow_schema_unsupported_type_raises():
    with pytest.raises(HudiSchemaError, match="time32"):
        from_arrow_schema(pa.schema([pa.field("t", pa.time32("s"))]))


# ---------------------------------------------------------------------------- compatibility


@pytest.mark.parametrize(
    ("from_type", "to_type", "expected"),
    [
        (IntegerType(), IntegerType(), True),
        (IntegerType(), LongType(), True),
        (IntegerType(), DoubleType(), True),
        (ByteType(), IntegerType(), True),
        (ShortType(), LongType(), True),
        (LongType(), DoubleType(), True),
        (FloatType(), DoubleType(), True),
        (DecimalType(10, 2), DecimalType(12, 2), True),
        (DecimalType(10, 2), DecimalType(12, 4), True),
        (StringType(), StringType(), True),
        (NullType(), DecimalType(5, 1), True),
        (LongType(), IntegerType(), False),
        (DoubleType(), FloatType(), False),
        (DoubleType(), LongType(), False),
        (IntegerType(), FloatType(), False),
        (DecimalType(12, 4), DecimalType(12, 2), False),
        (DecimalType(10, 2), DecimalType(10, 4), False),
        (DecimalType(10, 2), DoubleType(), False),
        (IntegerType(), StringType(), False),
        (StringType(), IntegerType(), False),
        (StringType(), BinaryType(), False),
        (DateType(), TimestampType(), False),
        (TimestampNTZType(), TimestampType(), False),
        (ArrayType(IntegerType()), ArrayType(LongType()), True),
        (ArrayType(LongType()), ArrayType(IntegerType()), False),
        (MapType(StringType(), IntegerType()), MapType(StringType(), DoubleType()), True),
        (IntegerType(), ArrayType(IntegerType()), False),
        (
            StructType([StructField("a", IntegerType())]),
            StructType([StructField("a", LongType())]),
            True,
        ),
        (
            StructType([StructField("a", IntegerType())]),
            StructType([StructField("a", LongType()), StructField("b", StringType())]),
            False,
        ),
    ],
)
def test_coercible_hudi_upcasts_only(from_type, to_type, expected):
    assert coercible(from_type, to_type) is expected


TABLE = StructType(
    [
        StructField("id", IntegerType()),
        StructField("price", DoubleType()),
        StructField("s", StructType([StructField("x", IntegerType()), StructField("y", StringType())])),
    ]
)


def test_check_compatible_same_or_widened_schema_no_problems():
    incoming = StructType(
        [
            StructField("id", ShortType(), False),
            StructField("price", FloatType()),
            StructField("s", StructType([StructField("x", ByteType()), StructField("y", StringType())])),
        ]
    )
    assert check_compatible(incoming, TABLE) == []
    assert check_compatible(TABLE, TABLE) == []
    require_compatible(incoming, TABLE)


def test_check_compatible_meta_columns_ignored_both_sides():
    assert check_compatible(TABLE, add_meta_fields(TABLE)) == []
    assert check_compatible(add_meta_fields(TABLE), TABLE) == []


def test_check_compatible_problems_name_columns():
    incoming = StructType(
        [
            StructField("ID", IntegerType()),
            StructField("price", StringType()),
            StructField("s", StructType([StructField("x", LongType()), StructField("y", StringType())])),
            StructField("extra", IntegerType()),
        ]
    )
    problems = check_compatible(incoming, TABLE)
    assert problems == [
        "missing column 'id' (table type int) Did you mean 'ID'? Column names are case-sensitive.",
        "column 'price' has incompatible type string (table type double)",
        "column 's.x' has incompatible type bigint (table type int)",
        "column 'ID' is not in the table schema Did you mean 'id'? Column names are case-sensitive.",
        "column 'extra' is not in the table schema",
    ]
    assert check_compatible(incoming, TABLE, allow_extra_columns=True) == problems[:3]


def test_check_compatible_nested_missing_field_named_by_path():
    incoming = StructType(
        [
            StructField("id", IntegerType()),
            StructField("price", DoubleType()),
            StructField("s", StructType([StructField("x", IntegerType())])),
        ]
    )
    assert check_compatible(incoming, TABLE) == ["missing column 's.y' (table type string)"]


def test_require_compatible_incompatible_type_raises_naming_column_and_types():
    incoming = StructType(
        [StructField("id", LongType()), StructField("price", DoubleType()), TABLE["s"]]
    )
    with pytest.raises(HudiSchemaError) as info:
        require_compatible(incoming, TABLE)
    message = str(info.value)
    assert "column 'id' is bigint in the incoming data and int in the table" in message
    assert "Help: cast the column to the table type" in message


def test_require_compatible_missing_column_raises_naming_column():
    incoming = StructType([StructField("id", IntegerType()), TABLE["s"]])
    with pytest.raises(HudiSchemaError, match="column 'price' is <absent> in the incoming data and double"):
        require_compatible(incoming, TABLE)


def test_from_avro_schema_malformed_field_raises():
    with pytest.raises(HudiSchemaError, match="malformed"):
        from_avro_schema(_record({"name": "c"}))
