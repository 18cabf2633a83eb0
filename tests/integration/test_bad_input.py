"""Bad input gets a clear error naming the problem, and the table stays as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from table_helpers import our_table

import hudi_sql
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, ts long, p string"
OPTIONS = {"hoodie.table.name": "bad", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}


@pytest.fixture()
def table(spark: Any, tmp_path: Path) -> Path:
    path = tmp_path / "table"
    hudi_sql.write(spark.createDataFrame([(1, "a", 1, "x"), (2, "b", 1, "y")], SCHEMA), str(path), OPTIONS)
    return path


def _state(path: Path) -> tuple[list[str], set[str]]:
    files = {str(p.relative_to(path)) for p in path.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    return sorted(p.name for p in (path / ".hoodie").iterdir() if p.is_file()), files


CASES = {
    "null record key": (
        lambda spark: spark.createDataFrame([(None, "n", 2, "x")], SCHEMA), {},
        hudi_sql.HudiKeyError, r"null or empty record key.*\bid\b"),
    "missing record key column": (
        lambda spark: spark.createDataFrame([("n", 2, "x")], "name string, ts long, p string"), {},
        hudi_sql.HudiKeyError, r"(?i)record key (field|column) 'id'"),
    "missing ordering column": (
        lambda spark: spark.createDataFrame([(3, "n", "x")], "id int, name string, p string"), {},
        hudi_sql.HudiKeyError, r"precombine \(ordering\) column 'ts'"),
    "missing data column": (
        lambda spark: spark.createDataFrame([(3, 2, "x")], "id int, ts long, p string"), {},
        hudi_sql.HudiSchemaError, r"name"),
    "incompatible type": (
        lambda spark: spark.createDataFrame([(3, "n", "not-a-number", "x")], "id int, name string, ts string, p string"),
        {}, hudi_sql.HudiSchemaError, r"'ts'"),
    "unknown option": (
        lambda spark: spark.createDataFrame([(3, "n", 2, "x")], SCHEMA),
        {"hoodie.datasource.write.precombine.feld": "ts"}, hudi_sql.HudiConfigError,
        r"hoodie.datasource.write.precombine.feld.*Did you mean 'hoodie.datasource.write.precombine.field'"),
    "unknown operation": (
        lambda spark: spark.createDataFrame([(3, "n", 2, "x")], SCHEMA),
        {"hoodie.datasource.write.operation": "upsertt"}, hudi_sql.HudiConfigError, r"upsertt"),
    "changed record key": (
        lambda spark: spark.createDataFrame([(3, "n", 2, "x")], SCHEMA),
        {"hoodie.datasource.write.recordkey.field": "name"}, hudi_sql.HudiConfigError, r"record key"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_write_raises_named_error_and_leaves_table_unchanged(spark: Any, table: Path, case: str) -> None:
    make_df, extra, error, message = CASES[case]
    before_rows = our_table(spark, str(table)).to_pylist()
    before = _state(table)
    with pytest.raises(error, match=message):
        hudi_sql.write(make_df(spark), str(table), {**OPTIONS, **extra})
    assert _state(table) == before, "no timeline file and no data file may appear"
    assert our_table(spark, str(table)).to_pylist() == before_rows


def test_bad_first_write_creates_no_table(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "never"
    with pytest.raises(hudi_sql.HudiKeyError):
        hudi_sql.write(spark.createDataFrame([(None, "n", 2, "x")], SCHEMA), str(path), OPTIONS)
    assert not (path / ".hoodie" / "hoodie.properties").exists()


def test_read_of_path_without_table_names_the_path(spark: Any, tmp_path: Path) -> None:
    with pytest.raises(hudi_sql.TableNotFoundError, match=str(tmp_path)):
        spark.read.format("hudi").load(str(tmp_path))


def test_write_without_table_name_names_the_option(spark: Any, tmp_path: Path) -> None:
    options = {k: v for k, v in OPTIONS.items() if k != "hoodie.table.name"}
    with pytest.raises(hudi_sql.HudiConfigError, match="hoodie.table.name"):
        hudi_sql.write(spark.createDataFrame([(1, "n", 2, "x")], SCHEMA), str(tmp_path / "t"), options)


def test_failed_write_leaves_no_stray_files_after_next_write(spark: Any, table: Path) -> None:
    with pytest.raises(hudi_sql.HudiKeyError):
        hudi_sql.write(spark.createDataFrame([(None, "n", 2, "x")], SCHEMA), str(table), OPTIONS)
    hudi_sql.write(spark.createDataFrame([(3, "c", 1, "x")], SCHEMA), str(table), OPTIONS)
    meta = TableMetaClient.load(str(table))
    assert not meta.timeline.pending().instants
    assert len(meta.timeline.completed_writes()) == 2
    committed = {s.path for i in meta.timeline.completed_writes() for s in meta.commit_metadata(i).write_stats()}
    on_disk = {str(p.relative_to(table)) for p in table.rglob("*.parquet")}
    assert on_disk == committed


TIMESTAMP_OPTIONS = {
    "hoodie.table.name": "ts_keys", "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "ts_str",
    "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
    "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
    "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
    "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd/HH",
}


def test_write_unparseable_timestamp_partition_raises_key_error_naming_value_and_option(
        spark: Any, tmp_path: Path) -> None:
    # Apache Hudi fails the write (HoodieKeyGeneratorException); no row may be dropped, and
    # the parseable rows next to it must not reach the planner as a partition None (TypeError).
    path = tmp_path / "ts"
    batch = spark.createDataFrame([(1, "2023-04-01T12:01:00.123Z"), (2, "04/01/2023 12:01")], "id int, ts_str string")
    with pytest.raises(hudi_sql.HudiKeyError, match=r"1 record\(s\).*ts_str='04/01/2023 12:01'.*"
                       r"hoodie\.keygen\.timebased\.input\.dateformat"):
        hudi_sql.write(batch, str(path), TIMESTAMP_OPTIONS)
    assert not (path / ".hoodie" / "hoodie.properties").exists()


def test_write_timestamp_partition_number_beyond_timestamps_raises_key_error_naming_it(
        spark: Any, tmp_path: Path) -> None:
    options = {**TIMESTAMP_OPTIONS, "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS"}
    batch = spark.createDataFrame([(1, 1680350460000), (2, 2**63 - 1)], "id int, ts_str long")
    with pytest.raises(hudi_sql.HudiKeyError, match=r"ts_str='9223372036854775807'.*EPOCHMILLISECONDS"):
        hudi_sql.write(batch, str(tmp_path / "ts"), options)
