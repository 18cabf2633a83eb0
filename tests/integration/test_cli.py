"""The ``hudi-sql`` shell: scripts, ``-e``, interactive input, output formats, exit status.

Most runs go through :func:`hudi_sql.apps.cli.main` in-process on the shared session (a JVM start
per run would cost ~10 s); one test starts the real command in a subprocess with its own
``--warehouse``, runs an Apache Hudi fixture script with it and reads the result with the
Rust reader.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hudi_sql.apps.cli import main
from hudi_sql.apps.shell import format_rows, split_statements

PROJECT = Path(__file__).resolve().parents[2]
DATABASE = "cli_shell"


def run(spark: Any, *argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["--database", DATABASE, *argv],
        spark=spark,
        stdout=out,
        stderr=err,
        stdin=io.StringIO(stdin) if stdin is not None else None,
    )
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def shell(spark: Any) -> Iterator[Any]:
    spark.sql(f"DROP DATABASE IF EXISTS {DATABASE} CASCADE")
    spark.sql(f"CREATE DATABASE {DATABASE}")
    yield spark


# Pure helpers ---------------------------------------------------------------------------------------


def test_split_statements_honours_quotes_and_comments() -> None:
    text = "SELECT ';' AS a; -- a comment; with a semicolon\nSELECT /* ; */ 2;\nSELECT `x;y` FROM t; SELECT 3"
    statements, rest = split_statements(text)
    assert statements == [
        "SELECT ';' AS a",
        "-- a comment; with a semicolon\nSELECT /* ; */ 2",
        "SELECT `x;y` FROM t",
    ]
    assert rest.strip() == "SELECT 3"
    assert split_statements("SELECT 'unterminated;") == ([], "SELECT 'unterminated;")


def test_format_rows_in_every_output_format() -> None:
    rows = [(1, "a", None), (2, "b\tc", [1, 2])]
    columns = ["id", "name", "extra"]
    assert format_rows(columns, rows, "json").splitlines() == [
        '{"id": 1, "name": "a", "extra": null}',
        '{"id": 2, "name": "b\\tc", "extra": [1, 2]}',
    ]
    assert format_rows(columns, rows, "csv").splitlines() == ["id,name,extra", "1,a,NULL", '2,b\tc,"[1, 2]"']
    assert format_rows(columns, rows, "tsv").splitlines()[0] == "id\tname\textra"
    table = format_rows(columns, rows, "table").splitlines()
    assert table[0] == table[2] == table[-1] == "+----+------+--------+"
    assert table[1] == "| id | name | extra  |"


# In-process runs --------------------------------------------------------------------------------------


@pytest.mark.spark
def test_script_with_init_file_conf_and_json_output(shell: Any, tmp_path: Path) -> None:
    init = tmp_path / "init.sql"
    init.write_text("CREATE TABLE kv (k INT, v STRING) USING hudi TBLPROPERTIES (primaryKey = 'k');\n")
    script = tmp_path / "script.sql"
    script.write_text(
        "INSERT INTO kv VALUES (1, 'one'), (2, 'two');\n"
        "INSERT INTO kv VALUES (2, 'again');\n"
        "SELECT k, v FROM kv ORDER BY k;\n"
    )
    status, out, err = run(
        shell,
        "-i",
        str(init),
        "-f",
        str(script),
        "--output",
        "json",
        "--conf",
        "hoodie.datasource.insert.dup.policy=drop",
    )
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-2:] == [{"k": 1, "v": "one"}, {"k": 2, "v": "two"}]
    assert lines[0]["num_inserted_rows"] == 2 and len(lines[0]["instant_time"]) == 17
    assert "Time taken:" in err


@pytest.mark.spark
def test_first_failing_statement_stops_with_status_1_and_error_on_stderr(shell: Any) -> None:
    status, out, err = run(
        shell, "-S", "--output", "csv", "-e", "SELECT 1 AS a; SELECT * FROM kvs; SELECT 2 AS b"
    )
    assert status == 1
    assert out == "a\n1\n"
    assert err.startswith("Error: Table or view 'kvs' not found") and "Did you mean 'kv'" in err
    status, out, err = run(shell, "-S", "-e", "SELECT 1 AS a;\nSELEC 2")
    assert status == 1 and out == ""  # a script that does not parse runs nothing
    assert "syntax error at or near 'SELEC'" in err and "SQLSTATE: 42601 (line 2, column 1)" in err
    assert err.splitlines()[2] == "  ^", "the caret under the misspelt word"
    status, _, err = run(shell, "-S", "-e", "CREATE TABLE x (id INT) USING hudi TBLPROPERTIES (type = 'xx')")
    assert status == 1 and "type" in err


@pytest.mark.spark
def test_a_value_of_the_wrong_type_is_refused_naming_the_value_not_our_source(shell: Any) -> None:
    run(shell, "-S", "-e", "CREATE TABLE typed (id INT, n INT) USING hudi TBLPROPERTIES (primaryKey = 'id')")
    status, _, err = run(shell, "-S", "-e", "INSERT INTO typed VALUES (1, 'abc')")
    assert status == 1 and "'abc'" in err
    assert "hudi_sql" not in err and "was called from" not in err, err


@pytest.mark.spark
def test_interactive_prompt_multiline_statements(shell: Any) -> None:
    status, out, err = run(
        shell,
        "-S",
        "--output",
        "tsv",
        stdin="SELECT\n  41 + 1 AS answer\n;\nSELECT nope;\nSELECT 'still here' AS s; quit;\nSELECT 3;\n",
    )
    assert status == 0
    assert "answer\n42\n" in out and "s\nstill here\n" in out
    assert "hudi-sql> " in out and "       > " in out
    assert "Error:" in err and "3\n" not in out.split("still here")[1]


# A real `hudi-sql` process ------------------------------------------------------------------------


@pytest.mark.spark
@pytest.mark.compat
@pytest.mark.processes
def test_hudi_sql_command_runs_a_fixture_script(tmp_path: Path) -> None:
    from fixture_tables import SampleTable
    from table_helpers import rows_of, rust_table

    table = SampleTable.MOR_AVRO_TRIPS_8I1U
    script = table.sql_file()
    warehouse = tmp_path / "wh"
    command = (
        [shutil.which("hudi-sql")] if shutil.which("hudi-sql") else [sys.executable, "-m", "hudi_sql.apps.cli"]
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PROJECT), os.environ.get("PYTHONPATH", "")]),
        "HUDI_SQL_HOME": str(tmp_path / "home"),
    }
    done = subprocess.run(
        [
            *command,
            "--master",
            "local[2]",
            "--warehouse",
            str(warehouse),
            "--conf",
            "spark.sql.shuffle.partitions=2",
            "-f",
            str(script),
            "--output",
            "json",
        ],
        capture_output=True,
        check=False,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = [json.loads(line) for line in done.stdout.splitlines()]
    assert [m["num_affected_rows"] for m in metrics] == [8, 1]
    assert "Traceback" not in done.stderr
    ours = rust_table(str(warehouse / table.table_name))
    expected = rust_table(str(table.path()))
    columns = [c for c in expected.column_names if not c.startswith("_hoodie_")] + [
        "_hoodie_record_key",
        "_hoodie_partition_path",
    ]
    assert rows_of(ours, columns) == rows_of(expected, columns)
    assert (warehouse / ".hudi-sql" / "metastore_db").is_dir()
