"""Partition value extractors behave like Hudi's Java classes (pure)."""

from __future__ import annotations

import pytest

from catalog.hive.partition_values import (
    escape_path_name,
    extractor_for,
    extractor_names,
    java_split,
    parse_partition_name,
    unescape_path_name,
)
from hudi_sql.errors import HudiConfigError

MULTI = "org.apache.hudi.hive.MultiPartKeysValueExtractor"


@pytest.mark.parametrize(("text", "sep", "expected"), [
    ("a/b", "/", ["a", "b"]), ("a/b/", "/", ["a", "b"]), ("a//b", "/", ["a", "", "b"]),
    ("", "/", [""]), ("k=", "=", ["k"]), ("=v", "=", ["", "v"]),
])
def test_java_split_drops_trailing_empty_strings(text: str, sep: str, expected: list[str]) -> None:
    assert java_split(text, sep) == expected


@pytest.mark.parametrize(("path", "values"), [
    ("2024/01/05", ["2024", "01", "05"]),
    ("year=2024/month=01", ["2024", "01"]),
    ("x'); DROP TABLE t; --", ["x'); DROP TABLE t; --"]),
    ("", []),
])
def test_multi_part_keys_extracts_each_level(path: str, values: list[str]) -> None:
    assert extractor_for(MULTI).extract(path) == values


def test_multi_part_keys_two_equals_raises() -> None:
    with pytest.raises(HudiConfigError, match="not in expected format"):
        extractor_for(MULTI).extract("a=b=c")


def test_slash_encoded_day_formats_date() -> None:
    ex = extractor_for("org.apache.hudi.hive.SlashEncodedDayPartitionValueExtractor")
    assert ex.extract("2024/1/5") == ["2024-01-05"]
    assert ex.extract("y=2024/m=12/d=31") == ["2024-12-31"]
    with pytest.raises(HudiConfigError, match="yyyy/mm/dd"):
        ex.extract("2024/01")
    with pytest.raises(HudiConfigError):
        ex.extract("2024/ab/01")


def test_slash_encoded_hour_formats_hour() -> None:
    ex = extractor_for("SlashEncodedHourPartitionValueExtractor")
    assert ex.extract("2024/1/5/7") == ["2024-01-05-07"]


def test_hive_style_extracts_value() -> None:
    ex = extractor_for("org.apache.hudi.hive.HiveStylePartitionValueExtractor")
    assert ex.extract("dt=2024-01-05") == ["2024-01-05"]
    with pytest.raises(HudiConfigError, match="partition_key=partition_value"):
        ex.extract("2024-01-05")


def test_single_part_replaces_slashes() -> None:
    assert extractor_for("org.apache.hudi.hive.SinglePartPartitionValueExtractor").extract("202210/01/20") == [
        "202210-01-20"]


def test_non_partitioned_has_no_values() -> None:
    assert extractor_for("org.apache.hudi.hive.NonPartitionedExtractor").extract("anything/at/all") == []


def test_extractor_for_hudi_1x_package_names_resolve() -> None:
    ex = extractor_for("org.apache.hudi.sync.common.model.partextractor.MultiPartKeysValueExtractor")
    assert ex.extract("a/b") == ["a", "b"]
    assert MULTI in extractor_names()


def test_extractor_for_unknown_name_suggests() -> None:
    with pytest.raises(HudiConfigError, match="Did you mean"):
        extractor_for("org.apache.hudi.hive.MultiPartKeyValueExtractor")


@pytest.mark.parametrize("value", ["x'); DROP TABLE t; --", "ü ß/\\%", "a=b:c", "plain", "tab\there"])
def test_escape_unescape_path_name_round_trip(value: str) -> None:
    escaped = escape_path_name(value)
    assert "/" not in escaped and "'" not in escaped
    assert unescape_path_name(escaped) == value


def test_parse_partition_name_reads_show_partitions_rows() -> None:
    assert parse_partition_name("p=x%27); DROP TABLE t; --") == ["x'); DROP TABLE t; --"]
    assert parse_partition_name("p=ü ß%2F%5C%25/q=1") == ["ü ß/\\%", "1"]
