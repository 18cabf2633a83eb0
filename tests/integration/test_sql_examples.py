"""Every script in ``sql_examples/`` runs through ``hudi-sql -f`` and shows what it promises."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import hudi_sql
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
        assert [(r["id"], r["name"]) for r in results[-2]] == [(1, "Alice"), (3, "Carol"), (4, "Daniel")]
        changes = [(r["op"], r["id"], r["email_before"], r["email_after"]) for r in last]
        assert changes[:3] == [("i", 1, None, "alice@example.com"), ("i", 2, None, "bob@example.com"),
                               ("i", 3, None, "carol@example.com")]
        assert sorted(changes[3:]) == [("d", 2, "bob@example.com", None), ("i", 4, None, "dan@example.com"),
                                       ("u", 1, "alice@example.com", "alice@new.example.com")]
    elif script.stem == "incremental_etl":
        assert [r["num_affected_rows"] for r in results[-3]] == [2]  # the second run: two days changed
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


def _statement(script: Path, starting: str) -> str:
    """The statement of *script* that starts with *starting* (comments dropped)."""
    text = "\n".join(line for line in script.read_text().splitlines() if not line.lstrip().startswith("--"))
    return next(part.strip() for part in text.split(";") if part.strip().startswith(starting))


def _location(db: Any, table: str) -> str:
    return str(db.sql(f"DESCRIBE EXTENDED {table}").where("col_name = 'Location'").collect()[0]["data_type"])


@pytest.mark.streaming
def test_incremental_pipeline_rerun_reads_only_what_changed_since_its_checkpoint(spark: Any) -> None:
    from hudi_sql.errors import HudiSqlError
    from hudi_sql.table.meta_client import TableMetaClient

    script = next(p for p in EXAMPLES if p.stem == "incremental_etl")
    run_example(spark, script)
    db = hudi_sql.connect(spark)
    database = "example_incremental_etl"
    merge = _statement(script, "MERGE INTO")
    db.sql(f"INSERT INTO {database}.orders VALUES (3, 'carol', 9.75, 3, DATE '2024-05-02'), "
           f"(5, 'erin', 4.00, 3, DATE '2024-05-04')")
    spark.catalog.setCurrentDatabase(database)
    try:
        changed = db.sql(merge).collect()[0]
        assert changed["num_affected_rows"] == 2  # 2024-05-02 and 2024-05-04; the other days were not read
        assert [tuple(r) for r in db.sql("SELECT day, orders, revenue FROM daily_revenue ORDER BY day").collect()] == [
            tuple(r) for r in db.sql("SELECT day, count(*), sum(amount) FROM orders GROUP BY day ORDER BY day").collect()]
        orders, revenue = (TableMetaClient.load(_location(db, n)) for n in ("orders", "daily_revenue"))
        recorded = {r["metadata_key"]: r["metadata_value"] for r in db.sql(
            "CALL show_commit_extra_metadata(table => 'daily_revenue')").collect()}
        checkpoints = {k: v for k, v in recorded.items() if k.startswith("_hudi_sql.checkpoint.")}
        assert list(checkpoints.values()) == [orders.timeline.completed_writes().last.instant_time]
        commits = revenue.timeline.completed_writes().times()
        unchanged = db.sql(merge).collect()[0]  # nothing new upstream: nothing read, nothing written
        assert unchanged["num_affected_rows"] == 0
        assert TableMetaClient.load(revenue.base_path).timeline.completed_writes().times() == commits
        with pytest.raises(HudiSqlError, match="INSERT INTO or MERGE INTO"):
            db.sql("SELECT * FROM hudi_table_changes('orders', 'latest_state', 'checkpoint')").collect()
    finally:
        spark.catalog.setCurrentDatabase("default")
