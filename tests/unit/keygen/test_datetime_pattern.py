"""Joda date patterns (Hudi's timestamp key generator) converted to Spark datetime patterns."""

from __future__ import annotations

import pytest

from hudi_sql.errors import HudiConfigError
from hudi_sql.keygen.datetime_pattern import (
    has_zone_field,
    joda_to_spark_parse_patterns,
    joda_to_spark_pattern,
)


@pytest.mark.parametrize(
    ("joda", "spark"),
    [
        ("yyyy/MM/dd/HH", "yyyy'/'MM'/'dd'/'HH"),
        ("yyyy-MM-dd HH:mm:ss.SSS", "yyyy'-'MM'-'dd' 'HH':'mm':'ss'.'SSS"),
        ("yyyyMMdd", "yyyyMMdd"),
        ("yyyy-MM-dd'T'HH:mm:ssZ", "yyyy'-'MM'-'dd'T'HH':'mm':'ssZ"),
        ("YYYY", "yyyy"),
        ("HH:mmZZ", "HH':'mmxxx"),
        ("ZZZ", "VV"),
        ("'year='yyyy", "'year='yyyy"),
        ("yyyy''MM", "yyyy''''MM"),
        ("'it''s' yyyy", "'it''s 'yyyy"),
        ("yyyy[MM]", "yyyy'['MM']'"),
        ("EEE, d MMM yyyy hh:mm a", "EEE', 'd' 'MMM' 'yyyy' 'hh':'mm' 'a"),
    ],
)
def test_joda_to_spark_pattern_common_patterns_convert(joda: str, spark: str) -> None:
    assert joda_to_spark_pattern(joda) == spark


@pytest.mark.parametrize("letter", ["C", "x", "w", "e"])
def test_joda_to_spark_pattern_letter_without_spark_equivalent_raises_config_error(letter: str) -> None:
    with pytest.raises(HudiConfigError, match=f"uses '{letter}'"):
        joda_to_spark_pattern(f"yyyy-{letter}{letter}")


def test_joda_to_spark_pattern_illegal_letter_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="illegal pattern letter 'q'"):
        joda_to_spark_pattern("yyyy-qq")


def test_joda_to_spark_pattern_unterminated_quote_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="unterminated quote"):
        joda_to_spark_pattern("yyyy'MM")


def test_joda_to_spark_pattern_empty_raises_config_error() -> None:
    with pytest.raises(HudiConfigError, match="empty"):
        joda_to_spark_pattern("  ")


def test_has_zone_field_offset_and_zone_letters_only_outside_quotes() -> None:
    assert has_zone_field("yyyy-MM-dd'T'HH:mm:ssZ")
    assert has_zone_field("HH z")
    assert not has_zone_field("yyyy-MM-dd'Z'")
    assert not has_zone_field("yyyy/MM/dd")


def test_joda_to_spark_parse_patterns_without_offset_is_the_format_pattern() -> None:
    assert joda_to_spark_parse_patterns("yyyy-MM-dd HH:mm") == (joda_to_spark_pattern("yyyy-MM-dd HH:mm"),)
    assert joda_to_spark_parse_patterns("yyyy ZZZ") == ("yyyy' 'VV",)


@pytest.mark.parametrize("offset", ["Z", "ZZ"])
def test_joda_to_spark_parse_patterns_offset_has_one_pattern_per_offset_form(offset: str) -> None:
    # Joda's Z and ZZ both read 'Z', +05, +0530, +053015 (X, XXXX) and +05:30, +05:30:15 (XXXXX).
    assert joda_to_spark_parse_patterns(f"HH{offset}") == ("HHX", "HHXXXX", "HHXXXXX")


def test_joda_to_spark_parse_patterns_two_offsets_every_combination() -> None:
    assert len(joda_to_spark_parse_patterns("Z'/'ZZ")) == 9
