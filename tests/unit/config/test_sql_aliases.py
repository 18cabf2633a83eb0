"""Hudi's SQL short names map to option keys in one place (hudi_sql.config.sql_aliases)."""

from __future__ import annotations

import pytest

from hudi_sql.config import HudiTableConfig, HudiWriteConfig, TableType
from hudi_sql.config.sql_aliases import (
    SQL_ALIASES,
    TYPE,
    resolve_sql_aliases,
    sql_alias,
    table_type_short_name,
)
from hudi_sql.sql import statements as st
from hudi_sql.sql.planner import FIXED_PROPERTIES, sql_table_options


def test_sql_alias_lookup_any_case_finds_the_short_name() -> None:
    for alias in SQL_ALIASES:
        assert sql_alias(alias.name.upper()) is alias
        assert sql_alias(alias.name.lower()) is alias
    assert sql_alias("primary_key") is None


def test_resolve_sql_aliases_short_names_become_write_options() -> None:
    given = {"PrimaryKey": "id", "preCombineField": "ts", "type": "mor", "payloadClass": "P", "comment": "c"}
    resolved = resolve_sql_aliases(given)
    assert resolved == {
        HudiWriteConfig.RECORD_KEY_FIELDS.key: "id",
        HudiWriteConfig.PRECOMBINE_FIELD.key: "ts",
        HudiWriteConfig.TABLE_TYPE.key: TableType.MERGE_ON_READ.value,
        HudiWriteConfig.PAYLOAD_CLASS.key: "P",
        "comment": "c",
    }
    assert "comment" not in resolve_sql_aliases(given, keep_other=False)


def test_resolve_sql_aliases_bad_type_raises() -> None:
    with pytest.raises(ValueError, match="not a table type"):
        resolve_sql_aliases({"type": "columnar"})


def test_table_type_short_name_round_trips_through_the_alias() -> None:
    for table_type in TableType:
        assert TYPE.normalize(table_type_short_name(table_type)) == table_type.value


def test_sql_layer_uses_the_one_mapping_for_options_and_create_table() -> None:
    properties = {"primaryKey": "id", "type": "cow", "hoodie.x.y": "1", "note": "n"}
    assert sql_table_options(properties) == resolve_sql_aliases(properties, keep_other=False)
    create = st.CreateTable(st.TableName(None, "t"), properties=properties)
    assert create.hoodie_options() == resolve_sql_aliases(properties)
    assert create.primary_key == ("id",)
    assert create.table_type is TableType.COPY_ON_WRITE
    by_table_key = st.CreateTable(st.TableName(None, "t"), properties={HudiTableConfig.TYPE.key: "mor"})
    assert by_table_key.table_type is TableType.MERGE_ON_READ


def test_fixed_properties_cover_the_fixed_short_names_only() -> None:
    for alias in SQL_ALIASES:
        assert (alias.name.lower() in FIXED_PROPERTIES) is alias.fixed
