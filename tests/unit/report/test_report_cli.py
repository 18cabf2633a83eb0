"""``hudi-sql report <path>``: figures from the timeline and listings, without starting Spark.

The subprocesses run with ``SPARK_HOME`` pointing nowhere, so starting a SparkSession there
fails at once (the first test shows it does): a report that succeeds did not start one.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from test_collect import HandMadeTable, _stat

from hudi_sql.apps.cli import main
from hudi_sql.model.instant import Action

ROOT = Path(__file__).resolve().parents[3]
NO_SPARK = {**os.environ, "SPARK_HOME": "/nonexistent/spark-home", "PYTHONPATH": str(ROOT)}


def _table(root: Path) -> HandMadeTable:
    table = HandMadeTable(root)
    t1 = table.next_time()
    base = table.data_file("p1", f"gggg-0_0-1-0_{t1}.parquet", 4096)
    table.commit(Action.COMMIT, {"p1": [_stat(base, writes=7, inserts=7, size=4096)]}, "INSERT", instant_time=t1)
    return table


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], check=False, capture_output=True, text=True, env=NO_SPARK,
                          timeout=300, cwd=ROOT)


def test_report_cli_environment_without_spark_home_cannot_start_spark() -> None:
    started = _run("-c", "from pyspark.sql import SparkSession; SparkSession.builder.master('local[1]').getOrCreate()")
    assert started.returncode != 0 and "spark-submit" in started.stderr


def test_report_cli_path_json_to_stdout_without_spark(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    done = _run("-m", "hudi_sql.apps.cli", "report", str(table.root), "--format", "json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert [c["records_inserted"] for c in figures["commits"]] == [7]


def test_report_cli_out_json_by_extension_and_conf_applies(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    out = tmp_path / "reports" / "t.json"
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(["report", str(table.root), "--out", str(out), "--conf", "hoodie.parquet.small.file.limit=100"],
                  stdout=stdout, stderr=stderr)
    assert status == 0, stderr.getvalue()
    figures = json.loads(out.read_text())
    assert figures["settings"]["small_file_limit"] == 100
    assert figures["summary"]["small_files"] == 0
    assert str(out) in stdout.getvalue()


def test_report_cli_missing_table_path_fails_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here"
    done = _run("-m", "hudi_sql.apps.cli", "report", str(missing))
    assert done.returncode == 1
    assert str(missing) in done.stderr


def test_report_cli_bad_conf_is_a_usage_error(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    stderr = io.StringIO()
    assert main(["report", str(table.root), "--conf", "no-equals-sign"], stdout=io.StringIO(), stderr=stderr) == 2
    assert "KEY=VALUE" in stderr.getvalue()
