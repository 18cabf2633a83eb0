"""Record keys of stored rows recomputed with Arrow (no Spark): forms, placeholders, value strings.

The parity with the Spark expressions and the JVM is proven in
``tests/integration/test_keygen_parity.py``; these tests pin the rules that need no JVM.
"""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import pyarrow as pa
import pytest

from hudi_sql.errors import HudiKeyError
from hudi_sql.keygen import RecordKeySpec, key_generator_class
from hudi_sql.keygen.arrow_key import arrow_key_string, arrow_record_keys, java_floating_string
from hudi_sql.keygen.base import KeyGenSettings

UTC = dt.timezone.utc


def test_arrow_record_keys_simple_null_and_empty_invalid() -> None:
    table = pa.table({"id": ["1", "", None]})
    assert arrow_record_keys(table, RecordKeySpec(("id",), composite=False)).to_pylist() == ["1", None, None]


def test_arrow_record_keys_composite_placeholders_and_all_missing_invalid() -> None:
    table = pa.table({"a": ["x", None, "", "", None], "b": [1, 2, 3, None, None]})
    keys = arrow_record_keys(table, RecordKeySpec(("a", "b"), composite=True)).to_pylist()
    assert keys == ["a:x,b:1", "a:__null__,b:2", "a:__empty__,b:3", None, None]


def test_arrow_record_keys_one_field_composite_keeps_field_name() -> None:
    table = pa.table({"id": [7]})
    assert arrow_record_keys(table, RecordKeySpec(("id",), composite=True)).to_pylist() == ["id:7"]


def test_arrow_record_keys_nested_field_null_parent_is_null() -> None:
    inner = pa.array([{"b": "deep"}, None, {"b": None}], pa.struct([("b", pa.string())]))
    table = pa.table({"a": inner})
    assert arrow_record_keys(table, RecordKeySpec(("a.b",), composite=True)).to_pylist() == [
        "a.b:deep", None, None]


def test_arrow_record_keys_case_insensitive_field_resolves_like_spark() -> None:
    table = pa.table({"Id": ["1"]})
    assert arrow_record_keys(table, RecordKeySpec(("id",), composite=False)).to_pylist() == ["1"]


def test_arrow_record_keys_missing_field_raises_hudi_key_error() -> None:
    with pytest.raises(HudiKeyError, match="'idd' does not exist"):
        arrow_record_keys(pa.table({"id": ["1"]}), RecordKeySpec(("idd",), composite=False))


def test_arrow_key_string_binary_raises_hudi_key_error() -> None:
    with pytest.raises(HudiKeyError, match="binary"):
        arrow_key_string(pa.array([b"x"]), path="raw")


def test_record_key_spec_simple_with_two_fields_raises() -> None:
    with pytest.raises(ValueError, match="one field"):
        RecordKeySpec(("a", "b"), composite=False)


@pytest.mark.parametrize(
    ("name", "fields", "settings", "composite"),
    [
        ("SIMPLE", ("id",), KeyGenSettings(), False),
        ("COMPLEX", ("id",), KeyGenSettings(), True),
        ("COMPLEX", ("id",), KeyGenSettings(complex_keygen_new_encoding=True), False),
        ("COMPLEX", ("id", "name"), KeyGenSettings(complex_keygen_new_encoding=True), True),
        ("NON_PARTITION", ("id",), KeyGenSettings(), False),
        ("NON_PARTITION", ("id", "name"), KeyGenSettings(), True),
        ("GLOBAL_DELETE", ("id",), KeyGenSettings(), True),
        ("CUSTOM", ("id",), KeyGenSettings(), False),
        ("CUSTOM", ("id", "name"), KeyGenSettings(), True),
    ],
)
def test_record_key_spec_form_decided_by_key_generator(
        name: str, fields: tuple[str, ...], settings: KeyGenSettings, composite: bool) -> None:
    keygen = key_generator_class(name)(fields, ("p",), settings=settings)
    assert keygen.record_key_spec() == RecordKeySpec(fields, composite=composite)


def test_arrow_key_string_timestamp_micros_since_epoch_any_unit() -> None:
    values = [dt.datetime(2023, 4, 1, 12, 1, 0, 123456, tzinfo=UTC), dt.datetime(1969, 12, 31, 23, 59, 59, 999999,
                                                                                  tzinfo=UTC), None]
    micros = [None if v is None else str((v - dt.datetime(1970, 1, 1, tzinfo=UTC)) // dt.timedelta(microseconds=1))
              for v in values]
    assert arrow_key_string(pa.array(values, pa.timestamp("us", tz="UTC"))).to_pylist() == micros
    assert arrow_key_string(pa.array(values, pa.timestamp("ns", tz="UTC"))).to_pylist() == micros
    seconds = pa.array([1680350460], pa.timestamp("s"))
    assert arrow_key_string(seconds).to_pylist() == [str(1680350460 * 1_000_000)]


def test_arrow_key_string_decimal_follows_to_scientific_string() -> None:
    # Python's str(Decimal) and Java's BigDecimal.toString implement the same to-scientific-string rule.
    values = [Decimal("0E-8"), Decimal("0.00000010"), Decimal("-0.00000123"), Decimal("1234.00000001")]
    assert arrow_key_string(pa.array(values, pa.decimal128(20, 8))).to_pylist() == [str(v) for v in values]


def test_arrow_key_string_date_iso_and_boolean_lowercase() -> None:
    dates = [dt.date(2024, 2, 29), dt.date(1, 1, 1)]
    assert arrow_key_string(pa.array(dates)).to_pylist() == [d.isoformat() for d in dates]
    assert arrow_key_string(pa.array([True, False])).to_pylist() == ["true", "false"]


@pytest.mark.parametrize(
    ("value", "java"),
    [  # Double.toString's documented forms: decimal in [1e-3, 1e7), computerized scientific outside.
        (1.0, "1.0"), (1.0e7, "1.0E7"), (9999999.0, "9999999.0"), (1.0e-3, "0.001"), (9.0e-4, "9.0E-4"),
        (-3.25, "-3.25"), (0.0, "0.0"), (-0.0, "-0.0"), (1.0e23, "1.0E23"), (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"), (5e-324, "4.9E-324"), (1.7976931348623157e308, "1.7976931348623157E308"),
    ],
)
def test_java_floating_string_double_forms(value: float, java: str) -> None:
    assert java_floating_string(value) == java


def test_java_floating_string_float_uses_float_precision() -> None:
    as_float = struct.unpack("f", struct.pack("f", 0.1))[0]  # 0.100000001490116...
    assert java_floating_string(as_float, single=True) == "0.1"
    assert java_floating_string(as_float) == repr(as_float)
    assert java_floating_string(3.4028234663852886e38, single=True) == "3.4028235E38"
