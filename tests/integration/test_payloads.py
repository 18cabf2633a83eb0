"""Payload classes end to end: an unsupported class fails before anything is written.

How each supported payload merges is checked against Apache Hudi in
``tests/oracle/test_payload_differential.py`` and rule by rule in
``tests/unit/write/test_payloads.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hudi_sql
from hudi_sql.errors import HudiConfigError

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, ts long, p string"
OPTIONS = {
    "hoodie.table.name": "payloads",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
}
CUSTOM = "com.example.MyPayload"


def _state(path: Path) -> list[str]:
    """Every file of the table (timeline, properties, data and log files)."""
    return sorted(str(f.relative_to(path)) for f in path.rglob("*") if f.is_file())


def _rows(spark: Any, path: Path) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.read.format("hudi").load(str(path)).select("id", "name", "ts").collect())


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_write_unknown_payload_class_raises_naming_it_and_leaves_table_unchanged(spark: Any, tmp_path: Path,
                                                                                  table_type: str) -> None:
    path = tmp_path / "table"
    options = {**OPTIONS, "hoodie.datasource.write.table.type": table_type}
    hudi_sql.write(spark.createDataFrame([(1, "a", 10, "x"), (2, "b", 10, "x")], SCHEMA), str(path), options)
    before, rows_before = _state(path), _rows(spark, path)

    update = spark.createDataFrame([(1, "changed", 20, "x")], SCHEMA)
    with pytest.raises(HudiConfigError) as info:
        hudi_sql.write(update, str(path), {**options, "hoodie.datasource.write.payload.class": CUSTOM})
    message = f"{info.value} {info.value.help}"
    assert CUSTOM in message
    assert "org.apache.hudi.common.model.PartialUpdateAvroPayload" in message  # the supported ones are listed

    assert _state(path) == before
    assert _rows(spark, path) == rows_before


def test_create_with_unknown_payload_class_writes_no_table(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "table"
    with pytest.raises(HudiConfigError, match=CUSTOM):
        hudi_sql.write(spark.createDataFrame([(1, "a", 10, "x")], SCHEMA), str(path),
                       {**OPTIONS, "hoodie.datasource.write.payload.class": CUSTOM})
    assert not (path / ".hoodie").exists()


def test_write_partial_update_payload_keeps_stored_values_of_null_fields(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "table"
    options = {**OPTIONS, "hoodie.datasource.write.payload.class":
               "org.apache.hudi.common.model.PartialUpdateAvroPayload"}
    hudi_sql.write(spark.createDataFrame([(1, "a", 10, "x")], SCHEMA), str(path), options)
    hudi_sql.write(spark.createDataFrame([(1, None, 20, "x")], SCHEMA), str(path), options)
    assert _rows(spark, path) == [(1, "a", 20)]
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    assert "payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload" in props


@pytest.mark.parametrize(("version", "late_wins"), [(None, True), ("8", False)])
def test_dataframe_write_default_payload_is_apache_hudi_dataframe_default(spark: Any, tmp_path: Path,
                                                                         version: str | None, late_wins: bool) -> None:
    # Apache Hudi 0.15's DataFrame writer (table version 6) defaults to OverwriteWithLatestAvroPayload:
    # a record with a lower ordering value than the stored one still replaces it. Apache Hudi 1.x
    # (version 8) merges by event time when there is an ordering field. (SQL: the planner's default.)
    path = tmp_path / "default"
    options = {**OPTIONS, "hoodie.datasource.write.table.type": "MERGE_ON_READ",
               **({"hoodie.write.table.version": version} if version else {})}
    hudi_sql.write(spark.createDataFrame([(1, "a", 10, "x")], SCHEMA), str(path), options)
    hudi_sql.write(spark.createDataFrame([(1, "late", 5, "x")], SCHEMA), str(path), options)
    assert _rows(spark, path) == ([(1, "late", 5)] if late_wins else [(1, "a", 10)])
    hudi_sql.compact(spark, str(path))
    assert _rows(spark, path) == ([(1, "late", 5)] if late_wins else [(1, "a", 10)])
