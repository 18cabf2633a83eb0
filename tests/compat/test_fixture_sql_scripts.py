"""Acceptance: Apache Hudi's own fixture scripts, run unchanged by ``hudi-sql -f``, build tables
whose snapshots (read by the Rust reader) equal those of the tables Apache Hudi built.

Every ``.sql`` next to a fixture zip runs once, in-process through :func:`hudi_sql.apps.cli.main` on
the shared Spark session, each in its own database (two scripts create a table of the same
name). The comparison covers every data column plus ``_hoodie_record_key`` and
``_hoodie_partition_path``; commit times and file names naturally differ.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from fixture_tables import SampleTable
from table_helpers import rows_of, rust_table

pytestmark = [pytest.mark.spark, pytest.mark.compat]

COMPARED_META = ("_hoodie_record_key", "_hoodie_partition_path")

# The session time zone each fixture was written in, which decides what
# CAST('2023-04-01 12:01:00' AS TIMESTAMP) means: the copy-on-write fixtures were written on a
# machine in US Central daylight time (their instants, local time, are 5 hours behind the UTC
# times in their zips; 12:01 local is stored as 17:01Z), the merge-on-read ones in UTC.
_TIME_ZONES = {table: "America/Chicago" if table.is_cow else "UTC" for table in SampleTable}


def _compared_columns(table: Any) -> list[str]:
    meta = [c for c in COMPARED_META if c in table.column_names]
    return [c for c in table.column_names if not c.startswith("_hoodie_")] + meta


@pytest.fixture(scope="module")
def built_tables(spark: Any) -> dict[SampleTable, str]:
    """Run every fixture script through the CLI; the location of each resulting table."""
    from catalog.base import TableIdent
    from catalog.spark_catalog import SparkSessionCatalog
    from hudi_sql.apps.cli import main

    catalog = SparkSessionCatalog(spark)
    built: dict[SampleTable, str] = {}
    for index, table in enumerate(SampleTable):
        script = table.sql_file()
        database = f"fixture_script_{index}"
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {database}")
        out, err = io.StringIO(), io.StringIO()
        argv = [
            "--database",
            database,
            "-S",
            "--conf",
            f"spark.sql.session.timeZone={_TIME_ZONES[table]}",
            "-f",
            str(script),
        ]
        status = main(argv, spark=spark, stdout=out, stderr=err)
        assert status == 0, f"{script.name} failed:\n{err.getvalue()}"
        info = catalog.load_table(TableIdent(database, table.table_name.lower()))
        assert info is not None and info.location is not None
        built[table] = info.location
    return built


@pytest.mark.parametrize("table", list(SampleTable), ids=lambda t: t.name.lower())
def test_fixture_script_snapshot_equals_apache_hudi(
    built_tables: dict[SampleTable, str], table: SampleTable
) -> None:
    expected = rust_table(str(table.path()))
    ours = rust_table(built_tables[table].removeprefix("file:"))
    assert sorted(ours.column_names) == sorted(expected.column_names)
    columns = _compared_columns(expected)
    key = "_hoodie_record_key" if "_hoodie_record_key" in columns else "id"
    assert rows_of(ours, columns, key=key) == rows_of(expected, columns, key=key)
