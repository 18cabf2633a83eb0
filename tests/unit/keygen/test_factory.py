"""key_generator_for: which key generator a write uses and with which options (no Spark needed)."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

from hudi_sql.config import HudiConfigs
from hudi_sql.errors import HudiConfigError, HudiKeyError, UnsupportedFeatureError
from hudi_sql.keygen import (
    ComplexKeyGenerator,
    CustomKeyGenerator,
    GlobalDeleteKeyGenerator,
    KeyGeneratorType,
    NonpartitionedKeyGenerator,
    PartitionKeyType,
    SimpleKeyGenerator,
    TimestampBasedKeyGenerator,
    infer_key_generator_type,
    key_generator_for,
)

RK = "hoodie.datasource.write.recordkey.field"
PP = "hoodie.datasource.write.partitionpath.field"
CLASS = "hoodie.datasource.write.keygenerator.class"
TYPE = "hoodie.datasource.write.keygenerator.type"
HIVE = "hoodie.datasource.write.hive_style_partitioning"
ENCODE = "hoodie.datasource.write.partitionpath.urlencode"


def _for(options: dict[str, Any], table: dict[str, str] | None = None, **kwargs: Any) -> Any:
    return key_generator_for(HudiConfigs.of(options, validate=False), table_properties=table, **kwargs)


# -- inference ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record_keys", "partitions", "expected"),
    [
        (("id",), (), KeyGeneratorType.NON_PARTITION),
        (("id", "name"), (), KeyGeneratorType.NON_PARTITION),
        (("id",), ("city",), KeyGeneratorType.SIMPLE),
        (("id", "name"), ("city",), KeyGeneratorType.COMPLEX),
        (("id",), ("a", "b"), KeyGeneratorType.COMPLEX),
        (("id",), ("city:SIMPLE", "ts:TIMESTAMP"), KeyGeneratorType.CUSTOM),
    ],
)
def test_infer_key_generator_type_fields_give_hudi_0_14_choice(
    record_keys: tuple[str, ...], partitions: tuple[str, ...], expected: KeyGeneratorType
) -> None:
    assert infer_key_generator_type(record_keys, partitions) is expected


def test_key_generator_for_no_partition_field_infers_non_partitioned() -> None:
    keygen = _for({RK: "id"})
    assert isinstance(keygen, NonpartitionedKeyGenerator)
    assert keygen.partition_path_fields == ()


def test_key_generator_for_empty_partition_option_means_non_partitioned() -> None:
    assert isinstance(_for({RK: "id", PP: ""}), NonpartitionedKeyGenerator)


def test_key_generator_for_one_key_one_partition_infers_simple() -> None:
    keygen = _for({RK: "uuid", PP: "city"})
    assert isinstance(keygen, SimpleKeyGenerator)
    assert (keygen.record_key_fields, keygen.partition_path_fields) == (("uuid",), ("city",))


def test_key_generator_for_two_keys_infers_complex() -> None:
    assert isinstance(_for({RK: "id,name", PP: "byteField,shortField"}), ComplexKeyGenerator)


# -- explicit choice, table choice, conflicts ---------------------------------------------------------


def test_key_generator_for_explicit_class_wins_over_inference() -> None:
    keygen = _for({RK: "id", PP: "city", CLASS: "org.apache.hudi.keygen.ComplexKeyGenerator"})
    assert isinstance(keygen, ComplexKeyGenerator)


def test_key_generator_for_explicit_class_wins_over_type() -> None:
    keygen = _for({RK: "id", PP: "city", CLASS: "ComplexKeyGenerator", TYPE: "SIMPLE"})
    assert isinstance(keygen, ComplexKeyGenerator)


def test_key_generator_for_type_option_selects_implementation() -> None:
    assert isinstance(_for({RK: "id", PP: "city", TYPE: "complex"}), ComplexKeyGenerator)
    assert isinstance(_for({RK: "id", PP: "city", TYPE: "GLOBAL_DELETE"}), GlobalDeleteKeyGenerator)


def test_key_generator_for_avro_variant_class_same_implementation() -> None:
    keygen = _for({RK: "id", PP: "city", CLASS: "org.apache.hudi.keygen.SimpleAvroKeyGenerator"})
    assert isinstance(keygen, SimpleKeyGenerator)
    assert (
        keygen.table_properties()["hoodie.table.keygenerator.class"]
        == "org.apache.hudi.keygen.SimpleKeyGenerator"
    )


def test_key_generator_for_unknown_class_raises_config_error_with_did_you_mean() -> None:
    with pytest.raises(HudiConfigError, match="Unknown key generator.*Did you mean"):
        _for({RK: "id", PP: "city", CLASS: "org.apache.hudi.keygen.SimpleKeyGen"})


def test_key_generator_for_existing_table_uses_table_class_and_fields() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "city",
    }
    keygen = _for({}, table)
    assert isinstance(keygen, ComplexKeyGenerator)  # not re-inferred as Simple
    assert (keygen.record_key_fields, keygen.partition_path_fields) == (("id",), ("city",))


def test_key_generator_for_table_avro_class_and_same_explicit_spark_class_no_conflict() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleAvroKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "city",
    }
    assert isinstance(_for({CLASS: "org.apache.hudi.keygen.SimpleKeyGenerator"}, table), SimpleKeyGenerator)


def test_key_generator_for_explicit_class_conflicting_with_table_raises_config_error() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "city",
    }
    with pytest.raises(HudiConfigError, match="Config conflict.*'COMPLEX'.*SimpleKeyGenerator"):
        _for({TYPE: "COMPLEX"}, table)


def test_key_generator_for_record_key_conflicting_with_table_raises_config_error() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "city",
    }
    with pytest.raises(HudiConfigError, match="record key fields uuid differ"):
        _for({RK: "uuid"}, table)


def test_key_generator_for_partition_fields_conflicting_with_table_raises_config_error() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "city",
    }
    with pytest.raises(HudiConfigError, match="partition fields region differ"):
        _for({PP: "region"}, table)


def test_key_generator_for_table_flags_win_over_write_options() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "city",
        HIVE: "true",
        ENCODE: "false",
    }
    keygen = _for({HIVE: "false", ENCODE: "true"}, table)
    assert keygen.settings.hive_style_partitioning is True
    assert keygen.settings.url_encode_partitioning is False


def test_key_generator_for_write_flags_used_for_new_table() -> None:
    keygen = _for({RK: "id", PP: "city", HIVE: "true", ENCODE: "true"})
    assert keygen.settings.hive_style_partitioning is True
    assert keygen.settings.url_encode_partitioning is True


# -- SqlKeyGenerator ----------------------------------------------------------------------------------


def test_key_generator_for_sql_key_generator_wraps_origin_class_and_sets_sql_mode() -> None:
    keygen = _for(
        {
            RK: "id",
            PP: "city",
            CLASS: "org.apache.spark.sql.hudi.command.SqlKeyGenerator",
            "hoodie.sql.origin.keygen.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        }
    )
    assert isinstance(keygen, SimpleKeyGenerator)
    assert keygen.settings.sql_timestamp_partitions is True


def test_key_generator_for_sql_key_generator_without_origin_uses_table_class() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
    }
    keygen = _for({CLASS: "SqlKeyGenerator"}, table)
    assert isinstance(keygen, NonpartitionedKeyGenerator)


def test_key_generator_for_sql_key_generator_alone_falls_back_to_complex() -> None:
    keygen = _for({RK: "id", PP: "city", CLASS: "org.apache.spark.sql.hudi.command.SqlKeyGenerator"})
    assert isinstance(keygen, ComplexKeyGenerator)


def test_key_generator_for_sql_flag_sets_sql_mode_default_off() -> None:
    assert _for({RK: "id", PP: "city"}).settings.sql_timestamp_partitions is False
    assert _for({RK: "id", PP: "city"}, sql=True).settings.sql_timestamp_partitions is True


# -- field validation ----------------------------------------------------------------------------------


def test_key_generator_for_no_record_key_generates_keys() -> None:
    keygen = _for({PP: "city"})
    assert isinstance(keygen, SimpleKeyGenerator)
    assert keygen.auto_record_keys
    assert "hoodie.table.recordkey.fields" not in keygen.table_properties()


def test_key_generator_for_no_record_key_with_combine_before_insert_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="not supported with auto generation of record keys"):
        _for({PP: "city", "hoodie.combine.before.insert": "true"})


def test_timestamp_options_deltastreamer_names_read_and_persisted_under_current_names() -> None:
    keygen = _for({
        RK: "id", PP: "ts", TYPE: "TIMESTAMP",
        "hoodie.deltastreamer.keygen.timebased.timestamp.type": "SCALAR",
        "hoodie.deltastreamer.keygen.timebased.timestamp.scalar.time.unit": "DAYS",
        "hoodie.deltastreamer.keygen.timebased.output.dateformat": "yyyy-MM-dd",
    })
    assert isinstance(keygen, TimestampBasedKeyGenerator)
    assert keygen.timestamp_options.scalar_unit.value == "DAYS"
    assert {k: v for k, v in keygen.table_properties().items() if "timebased" in k} == {
        "hoodie.keygen.timebased.timestamp.scalar.time.unit": "DAYS",
        "hoodie.keygen.timebased.output.dateformat": "yyyy-MM-dd",
    }


def test_simple_key_generator_two_record_keys_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="one record key field"):
        _for({RK: "id,name", PP: "city", TYPE: "SIMPLE"})


def test_simple_key_generator_no_partition_field_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="one partition field; got none"):
        _for({RK: "id", TYPE: "SIMPLE"})


def test_simple_key_generator_typed_partition_field_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="only CustomKeyGenerator understands"):
        _for({RK: "id", PP: "city:SIMPLE", TYPE: "SIMPLE"})


def test_non_partitioned_key_generator_ignores_partition_fields() -> None:
    keygen = _for({RK: "id", PP: "city", TYPE: "NON_PARTITION"})
    assert keygen.partition_path_fields == ()
    assert "hoodie.table.partition.fields" not in keygen.table_properties()


def test_custom_key_generator_parses_field_types_any_case() -> None:
    keygen = _for({RK: "id", PP: "city:simple,region:SIMPLE", TYPE: "CUSTOM"})
    assert isinstance(keygen, CustomKeyGenerator)
    assert keygen.partition_path_fields == ("city", "region")
    assert keygen.partition_types == (PartitionKeyType.SIMPLE, PartitionKeyType.SIMPLE)
    assert keygen.partition_specs() == ("city:SIMPLE", "region:SIMPLE")


def test_custom_key_generator_field_without_type_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="form field:TYPE"):
        _for({RK: "id", PP: "city", TYPE: "CUSTOM"})


def test_custom_key_generator_unknown_type_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="knows SIMPLE and TIMESTAMP"):
        _for({RK: "id", PP: "city:DATE", TYPE: "CUSTOM"})


def test_custom_key_generator_timestamp_part_without_options_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="timestamp.type"):
        _for({RK: "id", PP: "ts:TIMESTAMP", TYPE: "CUSTOM"})


def test_custom_key_generator_existing_table_without_types_raises_config_error() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.CustomKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "city",
    }
    with pytest.raises(HudiConfigError, match="form field:TYPE"):
        _for({}, table)
    assert isinstance(_for({PP: "city:SIMPLE"}, table), CustomKeyGenerator)


def test_key_generator_with_schema_missing_field_raises_key_error_did_you_mean() -> None:
    schema = StructType([StructField("id", IntegerType()), StructField("city", StringType())])
    with pytest.raises(HudiKeyError, match="'cty' does not exist.*Did you mean 'city'"):
        _for({RK: "id", PP: "cty"}, schema=schema)


def test_key_generator_with_schema_case_insensitive_match_accepted() -> None:
    schema = StructType([StructField("ID", IntegerType()), StructField("city", StringType())])
    keygen = _for({RK: "id", PP: "city"}, schema=schema)
    assert keygen.schema is schema


def test_key_generator_with_schema_returns_bound_copy() -> None:
    keygen = _for({RK: "id", PP: "city"})
    schema = StructType([StructField("id", IntegerType()), StructField("city", StringType())])
    bound = keygen.with_schema(schema)
    assert bound is not keygen and keygen.schema is None and bound.schema is schema


def test_key_generator_for_consistent_logical_timestamp_raises_unsupported() -> None:
    options = {
        RK: "id",
        PP: "city",
        "hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled": "true",
    }
    with pytest.raises(UnsupportedFeatureError, match="consistent.logical.timestamp"):
        _for(options)


def test_key_generator_for_complex_new_encoding_option_read() -> None:
    keygen = _for({RK: "id", PP: "a,b", "hoodie.write.complex.keygen.new.encoding": "true"})
    assert keygen.settings.complex_keygen_new_encoding is True
    with pytest.raises(HudiConfigError, match="new.encoding"):
        _for({RK: "id", PP: "a,b", "hoodie.write.complex.keygen.new.encoding": "yes"})


# -- what goes to hoodie.properties --------------------------------------------------------------------


def test_table_properties_complex_hive_style_like_hudi_sample_table() -> None:
    keygen = _for({RK: "id,name", PP: "byteField,shortField", HIVE: "true"})
    assert keygen.table_properties() == {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
        "hoodie.table.recordkey.fields": "id,name",
        "hoodie.table.partition.fields": "byteField,shortField",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.write.partitionpath.urlencode": "false",
    }


def test_table_properties_non_partitioned_omits_partition_fields() -> None:
    assert _for({RK: "id"}).table_properties() == {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.datasource.write.hive_style_partitioning": "false",
        "hoodie.datasource.write.partitionpath.urlencode": "false",
    }


def test_table_properties_custom_writes_partition_names_without_types() -> None:
    keygen = _for(
        {
            RK: "id",
            PP: "city:SIMPLE,ts:TIMESTAMP",
            TYPE: "CUSTOM",
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
        }
    )
    props = keygen.table_properties()
    assert props["hoodie.table.partition.fields"] == "city,ts"
    assert props["hoodie.table.keygenerator.class"] == "org.apache.hudi.keygen.CustomKeyGenerator"
    assert not any(key.startswith("hoodie.keygen.") for key in props)


def test_table_properties_timestamp_persists_configured_timestamp_options() -> None:
    keygen = _for(
        {
            RK: "id",
            PP: "ts",
            TYPE: "TIMESTAMP",
            "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
            "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd",
            "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
            "hoodie.keygen.timebased.timezone": "UTC",
        }
    )
    assert isinstance(keygen, TimestampBasedKeyGenerator)
    props = keygen.table_properties()
    assert props["hoodie.table.keygenerator.class"] == "org.apache.hudi.keygen.TimestampBasedKeyGenerator"
    # Apache Hudi 0.15 does not persist the timestamp type (HoodieTableConfig.PERSISTED_CONFIG_LIST).
    assert {k: v for k, v in props.items() if k.startswith("hoodie.keygen.")} == {
        "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd",
        "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
        "hoodie.keygen.timebased.timezone": "UTC",
    }


def test_timestamp_key_generator_existing_table_reads_persisted_options() -> None:
    table = {
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.partition.fields": "ts",
        "hoodie.keygen.timebased.timestamp.type": "SCALAR",
        "hoodie.keygen.timebased.timestamp.scalar.time.unit": "DAYS",
        "hoodie.keygen.timebased.output.dateformat": "yyyy/MM",
    }
    keygen = _for({"hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"}, table)
    options = keygen.timestamp_options
    assert options.scalar_unit.value == "DAYS"
    assert options.output_format == "yyyy/MM/dd"  # the write's options overlay the table's


def test_required_columns_top_level_in_order_without_duplicates() -> None:
    keygen = _for({RK: "id,a.b", PP: "a.c,city", TYPE: "COMPLEX"})
    assert keygen.required_columns() == ("id", "a", "city")
