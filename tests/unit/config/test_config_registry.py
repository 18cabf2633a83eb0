"""The option registry: typed access, errors naming the key, and the generated reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_sql.config import HudiConfigs, HudiWriteConfig, IndexType
from hudi_sql.config.__main__ import render
from hudi_sql.errors import HudiConfigError
from hudi_sql.write.operation import WriteOperationType


def test_registry_typed_get_returns_parsed_value_and_default() -> None:
    configs = HudiConfigs.of({"hoodie.datasource.write.operation": "bulk_insert",
                              "hoodie.datasource.write.recordkey.field": "a, b"})
    assert configs.get(HudiWriteConfig.OPERATION) is WriteOperationType.BULK_INSERT
    assert configs.get(HudiWriteConfig.RECORD_KEY_FIELDS) == ("a", "b")
    assert configs.get(HudiWriteConfig.INDEX_TYPE) is IndexType.SIMPLE


def test_registry_unknown_hoodie_key_rejected_with_did_you_mean() -> None:
    with pytest.raises(HudiConfigError, match="Did you mean 'hoodie.datasource.write.recordkey.field'"):
        HudiConfigs.of({"hoodie.datasource.write.recordkey.fields": "id"})


def test_registry_value_that_does_not_parse_names_key_never_defaults() -> None:
    configs = HudiConfigs.of({"hoodie.parquet.max.file.size": "big"})
    with pytest.raises(HudiConfigError, match="hoodie.parquet.max.file.size"):
        configs.get(HudiWriteConfig.PARQUET_MAX_FILE_SIZE)


def test_registry_closed_choice_rejects_other_values() -> None:
    with pytest.raises(HudiConfigError, match="hoodie.bulkinsert.sort.mode"):
        HudiConfigs.of({"hoodie.bulkinsert.sort.mode": "RANDOM"}).get(HudiWriteConfig.BULK_INSERT_SORT_MODE)


def test_registry_non_hoodie_keys_pass_through() -> None:
    assert HudiConfigs.of({"spark.sql.shuffle.partitions": "3"})["spark.sql.shuffle.partitions"] == "3"


def test_configuration_reference_is_up_to_date() -> None:
    doc = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
    assert doc.read_text() == render(), "regenerate with: python -m hudi_sql.config > docs/configuration.md"
