"""Partition path escaping: the pure reference of PartitionPathEncodeUtils.escapePathName."""

from __future__ import annotations

import pytest

from hudi_sql.keygen.partition_path import DEFAULT_PARTITION_PATH, ESCAPED_CHARACTERS, escape_path_name_py


def test_escaped_characters_control_chars_and_hive_list() -> None:
    assert set(ESCAPED_CHARACTERS) == {chr(c) for c in range(0x20)} | set("\"#%'*/:=?\\\x7f{[]^")
    assert len(ESCAPED_CHARACTERS) == 47


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2023/04/01", "2023%2F04%2F01"),
        ("a=b:c", "a%3Db%3Ac"),
        ("50%", "50%25"),
        ("x\ny", "x%0Ay"),
        ("sp ace-_.~", "sp ace-_.~"),
        ("ünï", "ünï"),
        ("", DEFAULT_PARTITION_PATH),
    ],
)
def test_escape_path_name_py_hive_rules_upper_hex(value: str, expected: str) -> None:
    assert escape_path_name_py(value) == expected
