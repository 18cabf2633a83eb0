"""Precombine in the write task: one record per key, the greatest ordering value, then the latest arrival."""

from __future__ import annotations

import pyarrow as pa

from hudi_sql.write.combine import ARRIVAL_COLUMN, latest_per_key


def _records(rows: list[tuple[str, int | None, str]]) -> pa.Table:
    return pa.table({
        "_hoodie_record_key": [r[0] for r in rows],
        "ts": pa.array([r[1] for r in rows], pa.int64()),
        "v": [r[2] for r in rows],
        ARRIVAL_COLUMN: pa.array(range(len(rows)), pa.int64()),
    })


def _by_key(table: pa.Table) -> dict[str, tuple[int | None, str]]:
    return {r["_hoodie_record_key"]: (r["ts"], r["v"]) for r in table.to_pylist()}


def test_greatest_ordering_value_wins_and_null_ordering_loses() -> None:
    combined = latest_per_key(_records([("a", 5, "low"), ("a", 9, "high"), ("a", 7, "mid"),
                                        ("b", None, "null"), ("b", 1, "one")]), "ts")
    assert _by_key(combined) == {"a": (9, "high"), "b": (1, "one")}
    assert combined.num_rows == 2


def test_equal_ordering_values_go_to_the_later_arrival() -> None:
    combined = latest_per_key(_records([("k", 4, "first"), ("k", 4, "second"), ("j", 1, "only")]), "ts")
    assert _by_key(combined) == {"k": (4, "second"), "j": (1, "only")}


def test_without_ordering_field_the_latest_arrival_wins() -> None:
    combined = latest_per_key(_records([("k", 9, "first"), ("k", 1, "last")]), None)
    assert _by_key(combined) == {"k": (1, "last")}


def test_unique_keys_pass_through_in_order_without_the_arrival_column() -> None:
    records = _records([("b", 1, "x"), ("a", 2, "y")])
    combined = latest_per_key(records, "ts")
    assert combined.column_names == ["_hoodie_record_key", "ts", "v"]
    assert combined.to_pylist() == records.drop_columns([ARRIVAL_COLUMN]).to_pylist()
