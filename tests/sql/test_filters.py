"""The filters a query puts on each table it reads, as data skipping takes them."""

from __future__ import annotations

import datetime
import decimal

import pytest

from hudi_sql.read.skipping import ColumnPredicate as P
from hudi_sql.sql.analyzer import analyze


def _filters(sql: str) -> dict[str, list[str]]:
    (statement,) = analyze(sql)
    return {str(ref.name.name if ref.name else ref.path): [str(p) for p in ref.filters]
            for ref in statement.table_refs}  # type: ignore[attr-defined]


def test_every_supported_comparison_of_a_column_with_literals() -> None:
    (statement,) = analyze(
        "SELECT * FROM t WHERE a = 1 AND b > -2.5 AND c IN ('x', 'y') AND d BETWEEN 1 AND 3 "
        "AND e IS NULL AND NOT f IS NULL AND g IS NOT NULL AND h = DATE '2024-01-01' AND 5 < i "
        "AND j = true AND k <> 'z'")
    assert statement.table_refs[0].filters == (  # type: ignore[attr-defined]
        P("a", "=", (1,)), P("b", ">", (decimal.Decimal("-2.5"),)), P("c", "in", ("x", "y")),
        P("d", ">=", (1,)), P("d", "<=", (3,)), P("e", "is_null"), P("f", "is_not_null"),
        P("g", "is_not_null"), P("h", "=", (datetime.date(2024, 1, 1),)), P("i", ">", (5,)),
        P("j", "=", (True,)), P("k", "!=", ("z",)))


@pytest.mark.parametrize("where", ["a + 1 = 3", "a = b", "upper(c) = 'X'", "a = 1 OR b = 2", "a IN (SELECT x FROM u)",
                                   "a = NULL", "ts > TIMESTAMP 'not a time'"])
def test_what_is_left_to_spark_alone(where: str) -> None:
    assert _filters(f"SELECT * FROM t WHERE {where}")["t"] == []


def test_a_timestamp_literal_stays_naive_until_placed_in_the_sessions_time_zone() -> None:
    from hudi_sql.sql.analyzer.filters import localized

    (statement,) = analyze("SELECT * FROM t WHERE ts >= TIMESTAMP '2024-01-01 10:00:00'")
    filters = statement.table_refs[0].filters  # type: ignore[attr-defined]
    assert filters == (P("ts", ">=", (datetime.datetime(2024, 1, 1, 10),)),)
    (placed,) = localized(filters, "America/New_York")
    assert placed.values[0].astimezone(datetime.timezone.utc) == datetime.datetime(
        2024, 1, 1, 15, tzinfo=datetime.timezone.utc)


def test_joins_qualify_by_alias_and_outer_joins_are_left_alone() -> None:
    assert _filters("SELECT * FROM t x JOIN u y ON x.a = y.a WHERE x.b = 1 AND y.c < 3 AND d = 4") == {
        "t": ["b = 1"], "u": ["c < 3"]}
    assert _filters("SELECT * FROM t LEFT JOIN u ON t.a = u.a WHERE u.b = 1 AND t.c = 2") == {"t": [], "u": []}


def test_a_subquerys_where_belongs_to_its_own_table() -> None:
    assert _filters("SELECT * FROM (SELECT * FROM t WHERE z = 9) s WHERE s.q = 1") == {"t": ["z = 9"]}
