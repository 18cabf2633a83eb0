"""The reader comparison's digest: per partition, the same for the same keys however they are
split into batches and tasks, and different when a key is missing or repeated."""

from __future__ import annotations

import pyarrow as pa

from hudi_sql.report.verify_exec import digest_rows


def _digest(*batches: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    arrow = [pa.RecordBatch.from_pydict({"_hoodie_partition_path": [p for p, _ in b], "_hoodie_record_key": [k for _, k in b]})
             for b in batches]
    out: dict[str, list[int]] = {}
    for batch in (r for piece in arrow for r in digest_rows(iter([piece]))):
        for partition, rows, digest in zip(*(batch.column(i).to_pylist() for i in range(3)), strict=True):
            total = out.setdefault(partition, [0, 0])
            total[0] += rows
            total[1] += digest
    return {p: (t[0], t[1]) for p, t in out.items()}


ROWS = [("a", "1"), ("a", "2"), ("b", "3"), ("b", "4"), ("b", "5")]


def test_the_digest_does_not_depend_on_order_or_split() -> None:
    whole = _digest(ROWS)
    assert whole == _digest(ROWS[3:], ROWS[:3]) == _digest(list(reversed(ROWS)))
    assert {p: n for p, (n, _) in whole.items()} == {"a": 2, "b": 3}


def test_a_missing_or_repeated_key_changes_the_digest() -> None:
    whole = _digest(ROWS)
    assert _digest(ROWS[:-1])["b"] != whole["b"]
    swapped = _digest([*ROWS[:-1], ("b", "6")])
    assert swapped["b"][0] == whole["b"][0] and swapped["b"][1] != whole["b"][1]
    assert _digest([*ROWS, ("a", "1")])["a"][0] == 3
