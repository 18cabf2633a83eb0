"""Every script in ``sql_examples/`` runs through ``hudi-sql -f`` and shows what it promises."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from hudi_sql.apps.cli import main

pytestmark = pytest.mark.spark

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "sql_examples").glob("*.sql"))


def run_example(spark: Any, script: Path) -> list[list[dict[str, Any]]]:
    """Run *script* in a database of its own; the JSON rows printed, grouped per statement."""
    database = "example_" + script.stem
    spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
    spark.sql(f"CREATE DATABASE {database}")
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["--database", database, "--output", "json", "-f", str(script)], spark=spark, stdout=out, stderr=err
    )
    assert status == 0, f"{script.name}:\n{err.getvalue()}"
    # One "Time taken" line per statement on stderr, with its row count: split stdout accordingly.
    counts = [
        int(line.rsplit("Fetched ", 1)[1].split()[0])
        for line in err.getvalue().splitlines()
        if line.startswith("Time taken:")
    ]
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    groups, start = [], 0
    for count in counts:
        groups.append(lines[start : start + count])
        start += count
    return groups


def test_examples_exist() -> None:
    assert {p.stem for p in EXAMPLES} >= {
        "quickstart_cow",
        "quickstart_mor",
        "cdc_merge",
        "incremental_etl",
        "time_travel",
        "compaction_and_clean",
    }


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(spark: Any, script: Path) -> None:
    results = run_example(spark, script)
    last = results[-1]
    if script.stem == "quickstart_cow":
        assert {r["city"]: r["trips"] for r in results[-3]} == {"chennai": 1, "san_francisco": 3}
    elif script.stem == "quickstart_mor":
        snapshot, read_optimized = results[3], results[4]
        assert {r["rider"]: r["fare"] for r in snapshot}["rider-D"] == 25.0
        assert {r["rider"]: r["fare"] for r in read_optimized}["rider-D"] == 33.9
    elif script.stem == "cdc_merge":
        assert [(r["id"], r["name"]) for r in last] == [(1, "Alice"), (3, "Carol"), (4, "Daniel")]
    elif script.stem == "incremental_etl":
        assert [(r["day"], r["orders"], r["revenue"]) for r in last] == [
            ("2024-05-01", 2, "32.50"),
            ("2024-05-02", 1, "7.25"),
            ("2024-05-03", 1, "12.00"),
        ]
    elif script.stem == "time_travel":
        assert [(r["sku"], r["price"]) for r in results[-3]] == [("apple", 1.2), ("pear", 2.0)]
    elif script.stem == "compaction_and_clean":
        compaction = results[-5]
        assert compaction and compaction[0]["state"] == "COMPLETED"
        cleaned = results[-3]
        assert cleaned and cleaned[0]["total_files_deleted"] > 0
        assert [(r["id"], r["value"]) for r in last] == [(1, 11.0), (2, 102.0), (3, 26.0)]
