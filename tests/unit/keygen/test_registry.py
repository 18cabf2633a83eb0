"""Key generator registry: lookups by type, Hudi class name (Spark and Avro variants), short name."""

from __future__ import annotations

import pytest

from hudi_sql.errors import HudiConfigError
from hudi_sql.keygen import (
    ComplexKeyGenerator,
    CustomKeyGenerator,
    GlobalDeleteKeyGenerator,
    KeyGeneratorType,
    NonpartitionedKeyGenerator,
    SimpleKeyGenerator,
    TimestampBasedKeyGenerator,
    key_generator_class,
    registered_names,
)

ALL = [
    SimpleKeyGenerator,
    ComplexKeyGenerator,
    NonpartitionedKeyGenerator,
    TimestampBasedKeyGenerator,
    CustomKeyGenerator,
    GlobalDeleteKeyGenerator,
]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("SIMPLE", SimpleKeyGenerator),
        ("simple", SimpleKeyGenerator),
        ("COMPLEX", ComplexKeyGenerator),
        ("NON_PARTITION", NonpartitionedKeyGenerator),
        ("TIMESTAMP", TimestampBasedKeyGenerator),
        ("CUSTOM", CustomKeyGenerator),
        ("GLOBAL_DELETE", GlobalDeleteKeyGenerator),
        ("org.apache.hudi.keygen.SimpleKeyGenerator", SimpleKeyGenerator),
        ("org.apache.hudi.keygen.SimpleAvroKeyGenerator", SimpleKeyGenerator),
        ("org.apache.hudi.keygen.ComplexAvroKeyGenerator", ComplexKeyGenerator),
        ("org.apache.hudi.keygen.NonpartitionedKeyGenerator", NonpartitionedKeyGenerator),
        ("org.apache.hudi.keygen.NonpartitionedAvroKeyGenerator", NonpartitionedKeyGenerator),
        ("org.apache.hudi.keygen.NonPartitionedAvroKeyGenerator", NonpartitionedKeyGenerator),
        ("org.apache.hudi.keygen.TimestampBasedAvroKeyGenerator", TimestampBasedKeyGenerator),
        ("org.apache.hudi.keygen.CustomAvroKeyGenerator", CustomKeyGenerator),
        ("org.apache.hudi.keygen.GlobalAvroDeleteKeyGenerator", GlobalDeleteKeyGenerator),
        ("ComplexKeyGenerator", ComplexKeyGenerator),
        ("TimestampBasedKeyGenerator", TimestampBasedKeyGenerator),
        ("  CustomKeyGenerator ", CustomKeyGenerator),
    ],
)
def test_key_generator_class_known_name_returns_implementation(name: str, expected: type) -> None:
    assert key_generator_class(name) is expected


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_key_generator_class_every_implementation_found_by_its_class_name_and_type(cls: type) -> None:
    assert key_generator_class(cls.class_name) is cls
    assert key_generator_class(cls.key_generator_type.value) is cls
    assert cls.class_name.startswith("org.apache.hudi.keygen.")
    assert cls.class_name in registered_names()


def test_key_generator_type_values_match_hudi_enum() -> None:
    assert [t.value for t in KeyGeneratorType] == [
        "SIMPLE",
        "COMPLEX",
        "TIMESTAMP",
        "CUSTOM",
        "NON_PARTITION",
        "GLOBAL_DELETE",
    ]


def test_key_generator_class_misspelt_class_raises_config_error_with_did_you_mean() -> None:
    with pytest.raises(HudiConfigError, match="Did you mean 'org.apache.hudi.keygen.ComplexKeyGenerator'"):
        key_generator_class("org.apache.hudi.keygen.ComplexKeyGen")


def test_key_generator_class_misspelt_type_raises_config_error_with_did_you_mean() -> None:
    with pytest.raises(HudiConfigError, match="Did you mean 'NON_PARTITION'"):
        key_generator_class("NON_PARTITIONED")


def test_key_generator_class_user_jvm_class_raises_config_error_with_help() -> None:
    with pytest.raises(HudiConfigError, match="cannot run JVM key generator classes"):
        key_generator_class("com.example.MyKeyGenerator")
